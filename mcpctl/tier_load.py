"""What reading one tier yields: the definitions found and the problems met."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mcpctl.model import Definition, Problem

MAX_CONFIG_BYTES = 16 * 1024 * 1024


@dataclass
class TierLoad:
    definitions: list[Definition] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    def extend(self, other: TierLoad) -> None:
        self.definitions.extend(other.definitions)
        self.problems.extend(other.problems)
        self.files.extend(other.files)


def read_config_text(path: Path) -> str | Problem:
    """The file's text, or a Problem saying why it cannot be read (never raises)."""
    try:
        if path.stat().st_size > MAX_CONFIG_BYTES:
            return Problem(path, 1, 1, f"file is larger than {MAX_CONFIG_BYTES} bytes")
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        return Problem(path, 1, 1, f"not UTF-8 text (byte {error.start})")
    except IsADirectoryError:
        return Problem(path, 1, 1, "is a directory, not a file")
    except OSError as error:
        return Problem(path, 1, 1, f"cannot read: {error.strerror or error}")
