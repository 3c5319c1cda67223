"""What reading one tier yields: the definitions found and the problems met."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from mcpctl.model import Definition, Problem

MAX_CONFIG_BYTES = 16 * 1024 * 1024


class TierLoad:
    """What reading one tier found: its definitions, its problems and the files read.

    A plain class, not a dataclass, for the start-up cost (see mcpctl/model.py)."""

    __slots__ = ("definitions", "files", "problems")

    def __init__(self, definitions: list[Definition] | None = None,
                 problems: list[Problem] | None = None, files: list[Path] | None = None) -> None:
        self.definitions = [] if definitions is None else definitions
        self.problems = [] if problems is None else problems
        self.files = [] if files is None else files

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
    text = read_file_text(path)
    if isinstance(text, Problem):
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_file_text(path: Path, limit: int = MAX_CONFIG_BYTES) -> str | Problem:
    """The file's text exactly as stored (newlines kept), or a Problem (never raises)."""
    data = read_file_bytes(path, limit)
    if data is None:
        return Problem(path, 1, 1, f"cannot read: {os.strerror(errno.ENOENT)}")
    return data if isinstance(data, Problem) else decode_utf8(path, data)


def read_file_bytes(path: Path, limit: int = MAX_CONFIG_BYTES) -> bytes | Problem | None:
    """At most `limit` bytes of a regular file; None when there is no file, a Problem
    when it cannot be read, is not a regular file or is larger (never raises)."""
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; no effect on files.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as error:
        return Problem(path, 1, 1, f"cannot read: {error.strerror or error}")
    try:
        kind = os.fstat(fd).st_mode
        if stat.S_ISDIR(kind):
            return Problem(path, 1, 1, "is a directory, not a file")
        if not stat.S_ISREG(kind):
            return Problem(path, 1, 1, "is not a regular file")
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as error:
        return Problem(path, 1, 1, f"cannot read: {error.strerror or error}")
    finally:
        os.close(fd)
    if len(data) > limit:
        return Problem(path, 1, 1, f"file is larger than {limit} bytes")
    return data


def decode_utf8(path: Path, data: bytes) -> str | Problem:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        return Problem(path, 1, 1, f"not UTF-8 text (byte {error.start})")
