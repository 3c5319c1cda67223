"""The one atomic-write helper and the one lock helper (STYLE 6, DESIGN §10).

A write goes to a temp file in the same folder, is fsynced, then `os.replace`d over
the target, so a reader (or a crash) sees the old file or the new one, never a torn
one. Every read-modify-write holds an exclusive lock on a `.lock` file named by the
caller: beside the file for mcpctl's own files, in mcpctl's cache folder for another
client's file (where a `<file>.lock` beside it could be that client's own lock).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from mcpctl.errors import CannotWrite


def atomic_write_text(path: Path, text: str, *, mode: int | None = None) -> None:
    """Replace `path` with `text`. Keeps an existing file's mode; new files get `mode`
    (default 0600: what mcpctl writes may be trust or secret indexes). A symlink (a
    config kept in a dotfiles repo) stays a symlink: the file it points to is replaced.
    A failure (no space, read-only, a folder in the way) is a CannotWrite naming the
    file, which is left as it was (exit 8)."""
    try:
        _replace(Path(os.path.realpath(path)), text, mode)
    except OSError as error:
        raise CannotWrite(f"cannot write {path}: {error.strerror or error}; the file was not "
                          "changed") from None


def atomic_write_bytes(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """`atomic_write_text` for bytes (mcpctl's binary caches)."""
    try:
        _replace(Path(os.path.realpath(path)), data, mode)
    except OSError as error:
        raise CannotWrite(f"cannot write {path}: {error.strerror or error}; the file was not "
                          "changed") from None


def _replace(path: Path, text: str | bytes, mode: int | None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o777
        except FileNotFoundError:
            mode = 0o600
    import tempfile  # noqa: PLC0415 - only writers need it; `list` reads the store via here

    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        if isinstance(text, bytes):
            with os.fdopen(fd, "wb") as raw:
                raw.write(text)
                raw.flush()
                os.fsync(raw.fileno())
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(temp_name, mode)
        os.replace(temp_name, path)
        _fsync_dir(path.parent)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock on `<path>.lock` (created 0600) for the block.

    `path` names the lock, not necessarily the file it guards (see the module doc).
    """
    lock_path = path.with_name(path.name + ".lock")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as error:
        raise CannotWrite(f"cannot lock {lock_path}: {error.strerror or error}; nothing was "
                          "changed") from None
    try:
        _lock(fd)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _lock(fd: int) -> None:
    if sys.platform == "win32":
        import msvcrt  # noqa: PLC0415

        msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
    else:
        import fcntl  # noqa: PLC0415

        fcntl.flock(fd, fcntl.LOCK_EX)
