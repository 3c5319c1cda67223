"""What reading one tier yields: the definitions found and the problems met."""

from __future__ import annotations

import os
import stat
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
    """The file's text, or a Problem saying why it cannot be read (never raises).

    Only a regular file is read, and never more than MAX_CONFIG_BYTES of it: a repo can
    commit `.mcp.json` as a symlink to /dev/zero or a FIFO, and `list` must still end.
    Newlines are read as `Path.read_text` reads them (universal newlines).
    """
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; no effect on files.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        return Problem(path, 1, 1, f"cannot read: {error.strerror or error}")
    try:
        kind = os.fstat(fd).st_mode
        if stat.S_ISDIR(kind):
            return Problem(path, 1, 1, "is a directory, not a file")
        if not stat.S_ISREG(kind):
            return Problem(path, 1, 1, "is not a regular file")
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as error:
        return Problem(path, 1, 1, f"cannot read: {error.strerror or error}")
    finally:
        os.close(fd)
    if len(data) > MAX_CONFIG_BYTES:
        return Problem(path, 1, 1, f"file is larger than {MAX_CONFIG_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return Problem(path, 1, 1, f"not UTF-8 text (byte {error.start})")
    return text.replace("\r\n", "\n").replace("\r", "\n")
