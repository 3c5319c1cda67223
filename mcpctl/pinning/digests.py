"""Content digests of the pinned set: a file's sha256, a program folder's bounded tree
digest, and an `unpinned:` marker where a bound or an error leaves no digest.

Bounded: MAX_FILES pinned paths and MAX_BYTES hashed per server, MAX_TREE_ENTRIES per
program folder. Past a bound the set holds an `unpinned:` marker where a digest would
be, and the gate refuses the server: mcpctl never accepts a file it did not hash.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from mcpctl.model import PinnedFile
from mcpctl.sha256 import sha256_hex

MAX_FILES = 32
MAX_BYTES = 64 * 1024 * 1024
MAX_TREE_ENTRIES = 1000
UNPINNED = "unpinned:"  # a marker in place of a digest: the gate refuses the server

_CHUNK = 1024 * 1024
# `.git` is the repo's own store; `__pycache__` is what Python writes next to the code
# it imports on the first run (a folder that changed by running would never be trusted).
_NOT_IN_TREES = frozenset({".git", "__pycache__"})


def digests(found: Mapping[Path, bool], real_root: Path,
            budget: int = MAX_BYTES) -> list[PinnedFile]:
    """(workspace-relative path, digest or marker) for each real path → is a folder."""
    named = [(_relative(path, real_root, folder=folder), path, folder)
             for path, folder in found.items()]
    pinned: list[PinnedFile] = []
    for relative, path, folder in sorted(named[:MAX_FILES]):
        digest, used = _tree(path, budget, real_root) if folder else _file(path, budget)
        budget -= used
        pinned.append((relative, digest))
    if len(named) > MAX_FILES:
        pinned.append((named[MAX_FILES][0], f"{UNPINNED}one of {len(named)} workspace files "
                       f"the server names; mcpctl pins at most {MAX_FILES} per server"))
    return sorted(pinned)


def _relative(path: Path, real_root: Path, *, folder: bool) -> str:
    relative = path.relative_to(real_root).as_posix()
    return relative.rstrip("/") + "/" if folder else relative


def _file(path: Path, budget: int) -> tuple[str, int]:
    """("sha256:…", bytes read), or a marker when it is past the budget or unreadable."""
    import hashlib  # noqa: PLC0415 - OpenSSL, only when a file is read (see mcpctl/sha256.py)

    hasher = hashlib.sha256()
    read = size = 0
    try:
        # Non-blocking, then checked: a FIFO swapped in after the stat must not hang `list`.
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            status = os.fstat(handle)
            if not stat.S_ISREG(status.st_mode):
                return f"{UNPINNED}not a regular file any more", 0
            size = status.st_size
            while size <= budget and read <= budget and (chunk := os.read(handle, _CHUNK)):
                hasher.update(chunk)
                read += len(chunk)
        finally:
            os.close(handle)
    except OSError as error:
        return f"{UNPINNED}cannot be read ({error.strerror or 'error'})", 0
    if size > budget or read > budget:
        return (f"{UNPINNED}{max(size, read)} bytes, past the {MAX_BYTES // 2**20} MiB "
                "mcpctl hashes per server"), 0
    return "sha256:" + hasher.hexdigest(), read


def _tree(folder: Path, budget: int, real_root: Path) -> tuple[str, int]:
    """A program folder: sorted relative paths with content digests (symlinks followed
    inside the workspace, `.git` and `__pycache__` skipped), bounded like files."""
    entries: list[tuple[str, str]] = []
    used = 0
    seen = {folder}
    pending = [(folder, "")]
    while pending:
        directory, prefix = pending.pop()
        try:
            children = sorted(os.scandir(directory), key=lambda child: child.name)
        except OSError as error:
            return f"{UNPINNED}{prefix or './'} cannot be read ({error.strerror})", 0
        for child in children:
            if child.name in _NOT_IN_TREES:
                continue
            if len(entries) >= MAX_TREE_ENTRIES:
                return (f"{UNPINNED}more than {MAX_TREE_ENTRIES} files and folders in this "
                        f"program folder; mcpctl pins at most {MAX_TREE_ENTRIES}"), 0
            relative = prefix + child.name
            real = Path(os.path.realpath(child.path))
            kind = _kind(real, real_root)
            if kind == "folder":
                entries.append((relative + "/", "folder"))
                if real not in seen:
                    seen.add(real)
                    pending.append((real, relative + "/"))
            elif kind == "file":
                digest, read = _file(real, budget - used)
                if digest.startswith(UNPINNED):
                    return f"{digest} ({relative})", 0
                used += read
                entries.append((relative, digest))
            else:
                entries.append((relative, kind))
    text = json.dumps(sorted(entries), ensure_ascii=False, separators=(",", ":"))
    return "sha256-tree:" + sha256_hex(text.encode("utf-8")), used


def _kind(real: Path, real_root: Path) -> str:
    """file, folder, or what stands in for anything else: a link out, a FIFO, a gap."""
    if not real.is_relative_to(real_root):
        return f"outside:{real}"
    try:
        mode = os.stat(real).st_mode
    except OSError as error:
        return f"missing:{error.strerror}"
    if stat.S_ISDIR(mode):
        return "folder"
    return "file" if stat.S_ISREG(mode) else "special"
