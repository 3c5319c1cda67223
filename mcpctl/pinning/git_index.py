"""A private git index, written by mcpctl in its own cache, that git compares the work
tree against (issue 24).

The repo's own `.git/index` is never used for its stat data: a tarball or a copied
tree can bring one whose stat data matches forged files. This index is the user's
(mcpctl writes it in the user's cache, a repo cannot), and it holds only what mcpctl
itself saw when it hashed each file:

- the stat data of mcpctl's own `lstat` before reading the file (and unchanged after);
- an object id that is NOT git's id of the content but the first 20 bytes of its
  SHA-256, so whenever git compares content (a racily clean entry) it finds it
  different, and mcpctl hashes the file again: git's content comparison, which applies
  the repo's `.gitattributes` conversions, can never call a changed file unchanged;
- only settled files (`SETTLED_NS`): a file whose mtime or ctime is within the margin
  of the moment it was hashed is left out, so git lists it as untracked and mcpctl
  hashes it on every start until the index is written again. That is the racy case on
  any timestamp granularity up to the margin (2 s on FAT), whatever the clock of the
  filesystem the cache lives on.

Version 2, no extension: no split index, untracked cache, fsmonitor data or sparse
entries; no assume-unchanged or skip-worktree flag. git checks the trailer's SHA-1, so a
corrupted file is an error, and mcpctl falls back to its exact pass.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from pathlib import Path

from mcpctl.files.atomic import atomic_write_bytes

SETTLED_NS = 3 * 10**9  # a file written less than 3 s before it was hashed is re-hashed
_HEADER = struct.Struct(">4sII")
_ENTRY = struct.Struct(">10I20sH")  # ctime s/ns, mtime s/ns, dev, ino, mode, uid, gid, size
_MASK = 0xFFFFFFFF
_PADDING = [b"\0" * (8 - (62 + length) % 8) for length in range(8)]  # by the name's length


def settled(mtime_ns: int, ctime_ns: int, hashed_at_ns: int) -> bool:
    return max(mtime_ns, ctime_ns) + SETTLED_NS <= hashed_at_ns


def intact(path: Path) -> bool:
    """Whether the index still hashes to its name. git itself does not check the
    checksum when it reads an index, and one flipped bit could set an entry's
    assume-unchanged flag: git would then never look at that file again. The checksum
    covers the header too: a file that is no index of version 2 yet hashes to its name
    was made so on purpose, by someone who could as well write one that is."""
    import hashlib  # noqa: PLC0415 - OpenSSL, only when a workspace is pinned

    hasher = hashlib.sha1()  # noqa: S324 - git's own checksum of the file
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return False
    hasher.update(data[:-20])
    return hasher.digest() == data[-20:] and path.name == f"{data[-20:].hex()}.index"


def write_index(folder: Path, entries: Iterable[tuple[bytes, tuple[int, ...], bytes]]) -> str:
    """Write `<folder>/<checksum>.index` and return the checksum (hex). `entries`: (path
    bytes relative to the repo, (size, mtime_ns, ctime_ns, ino, mode, dev, uid, gid),
    SHA-256 digest bytes), sorted by path bytes."""
    parts: list[bytes] = []
    add, pack = parts.append, _ENTRY.pack
    for name, status, digest in entries:  # inlined: 100,000 entries a first pass
        size, mtime, ctime, ino, mode, dev, uid, gid = status
        kind = mode & 0o170000  # git records a symlink's or a gitlink's kind, else x or not
        mode = kind if kind in (0o120000, 0o160000) else 0o100755 if mode & 0o100 else 0o100644
        ctime_s, ctime_ns = divmod(ctime, 10**9)
        mtime_s, mtime_ns = divmod(mtime, 10**9)
        add(pack(ctime_s & _MASK, ctime_ns, mtime_s & _MASK, mtime_ns, dev & _MASK,
                 ino & _MASK, mode, uid & _MASK, gid & _MASK, size & _MASK, digest[:20],
                 min(len(name), 0xFFF)))
        add(name)
        add(_PADDING[len(name) % 8])  # 1 to 8 NULs: entries align to 8
    count = len(parts) // 3
    body = b"".join(parts)
    import hashlib  # noqa: PLC0415 - OpenSSL, only when a workspace is pinned

    data = _HEADER.pack(b"DIRC", 2, count) + body
    trailer = hashlib.sha1(data).digest()  # noqa: S324 - git's own checksum of the file
    path = folder / f"{trailer.hex()}.index"
    # Named by its content: written once, never changed. One there already is checked
    # first: the same rows after a corruption name the same file, and its stat, taken
    # next, is what later starts trust instead of reading it (`workspace._intact`).
    if not intact(path):
        atomic_write_bytes(path, data + trailer, mode=0o600)
    return trailer.hex()
