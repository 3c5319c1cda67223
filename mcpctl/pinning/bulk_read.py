"""The content digests of many small files at once: the first pass over a workspace
(issue 24: `trust` from cold costs what git's own hashing of every file costs, within
a small factor).

Each file is opened without following a link or blocking on a FIFO, stat-ed (`fstat`,
before reading: a write while it is read moves its ctime, so its row is not trusted
later), read in one call and hashed (SHA-256 of the content, as every digest of a file
is). Anything else — a link, a special file, a file of a megabyte or more, an error,
a file that changed size while read — is left to the caller, which looks at it
alone. The paths are split over threads (the system calls, which are most of the cost
of a small file, run outside the interpreter's lock); each thread reads at most
`budget // threads` bytes and leaves the rest to the caller, so together they never
read past the caller's byte bound.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence

SMALL = 1024 * 1024  # a file this size or larger is read in chunks by the caller
MIN_PER_THREAD = 4096  # fewer files than this per thread: one thread does it all
_OPEN = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW

Read = tuple[os.stat_result, str, int] | None  # (fstat, sha256 hex, newlines), or None


def read_small(prefix: str, paths: Sequence[str], budget: int,
               threads: int | None = None) -> list[Read]:
    """For each of `paths` (relative to `prefix`, which ends in `/`), in order: its fstat
    before reading, the SHA-256 of its content as hex and its newlines; or None where
    the caller must look at it itself."""
    count = max(1, min(threads or os.cpu_count() or 1, 4, len(paths) // MIN_PER_THREAD))
    if count == 1:
        return _read(prefix, paths, budget)
    import threading  # noqa: PLC0415 - a large first pass only

    size = -(-len(paths) // count)
    parts = [paths[start:start + size] for start in range(0, len(paths), size)]
    results: list[list[Read]] = [[] for _ in parts]

    def work(number: int) -> None:
        results[number] = _read(prefix, parts[number], budget // len(parts))

    workers = [threading.Thread(target=work, args=(number,), daemon=True)
               for number in range(1, len(parts))]
    for worker in workers:
        worker.start()
    try:
        work(0)
    finally:
        for worker in workers:
            worker.join()
    if any(len(result) != len(part) for result, part in zip(results, parts, strict=True)):
        return _read(prefix, paths, 0)  # a thread failed: the caller looks at each
    return [read for result in results for read in result]


def _read(prefix: str, paths: Sequence[str], budget: int) -> list[Read]:
    import hashlib  # noqa: PLC0415 - OpenSSL, only when files are read

    sha256, open_, fstat, read, close = hashlib.sha256, os.open, os.fstat, os.read, os.close
    regular = stat.S_ISREG
    out: list[Read] = []
    used = 0
    for path in paths:
        try:
            fd = open_(prefix + path, _OPEN)
        except OSError:  # a symlink (ELOOP), gone, unreadable: the caller looks
            out.append(None)
            continue
        try:
            status = fstat(fd)
            size = status.st_size
            if not regular(status.st_mode) or size >= SMALL or used + size > budget:
                out.append(None)
                continue
            data = read(fd, size + 1)
        except OSError:
            out.append(None)
            continue
        finally:
            close(fd)
        if len(data) != size:  # it changed since the fstat
            out.append(None)
            continue
        used += size
        out.append((status, sha256(data).hexdigest(), data.count(b"\n")))
    return out
