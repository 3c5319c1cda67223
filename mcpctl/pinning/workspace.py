"""The whole workspace as an approval covers it: a digest per path (issue 11, item 1).

In a git work tree: every tracked file, every untracked file git does not ignore and
every ignored one a launch can load (`ignored.py`); a repository inside it (a
submodule, a gitlink, a clone) is walked as a folder, without its `.git` and the
folders tools make (issue 23).
Outside git: every entry under the root. Either way, bounded: past MAX_FILES entries or
MAX_BYTES of regular files the set carries an `unpinned` reason and the gate refuses.

Each entry's digest:
- a regular file: `sha256:` of its content (cached by path, size, mtime, ctime, inode);
- a symlink: `symlink:sha256:` of what it says, where it leads (real path) and what is
  there — so retargeting it, or changing the outside file it names, changes the digest;
  a link to a folder outside the workspace cannot be bounded and makes the set unpinned;
- anything else (FIFO, socket, device): its kind; an unreadable file: `unreadable:`.
Python's bytecode caches that git would not hand a clone (untracked `__pycache__`) are
left out: Python writes them on the first run; tracked ones are pinned like any file.
"""

import json
import os
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import NamedTuple

from mcpctl.pinning import digest_cache
from mcpctl.pinning.git import IGNORED, NESTED, TRACKED, GitUnavailable, work_tree_files
from mcpctl.pinning.ignored import TOOL_MADE, ignored_loadable
from mcpctl.sha256 import sha256_hex

MAX_FILES = 250_000
MAX_BYTES = 4 * 1024**3
GIT, FOLDER = "git", "folder"  # how the files were found
_CHUNK = 1024 * 1024


class Entry(NamedTuple):  # a tuple: 100,000 of them are made per command
    digest: str
    size: int = 0
    lines: int = 0  # newlines in a regular file: the diffstat's unit


class WorkspaceFiles(NamedTuple):
    """Every workspace file with its digest, and how the list was made."""

    source: str  # GIT or FOLDER
    entries: Mapping[str, Entry]
    unpinned: str | None = None  # why the set cannot be trusted (a bound, a link out)
    skipped: int = 0  # untracked bytecode left out


def workspace_files(root: Path, environ: Mapping[str, str],
                    cache_dir: Path | None = None) -> WorkspaceFiles:
    real_root = os.path.realpath(root)
    try:
        listed: dict[str, bool] | None = _git_paths(Path(real_root), environ)
        source = GIT
    except GitUnavailable:
        listed, source = None, FOLDER
    paths = listed if listed is not None else dict.fromkeys(_walk(real_root), True)
    if len(paths) > MAX_FILES:
        return WorkspaceFiles(source, {}, f"more than {MAX_FILES:,} files in the workspace; "
                              f"mcpctl pins at most {MAX_FILES:,}")
    kept = [p for p, tracked in paths.items() if tracked or not _bytecode(p)]
    cache_path = digest_cache.cache_file(cache_dir, real_root) if cache_dir else None
    cached = digest_cache.load(cache_path, real_root) if cache_path else {}
    hasher = _Hasher(real_root, cached)
    entries = hasher.entries(kept)
    unpinned = hasher.unpinned
    if hasher.total > MAX_BYTES:
        unpinned = (f"{hasher.total:,} bytes in the workspace; mcpctl hashes at most "
                    f"{MAX_BYTES // 1024**3} GiB")
    if cache_path is not None and hasher.fresh != cached:
        digest_cache.save(cache_path, real_root, hasher.fresh)
    return WorkspaceFiles(source, entries, unpinned, len(paths) - len(kept))


def _bytecode(path: str) -> bool:
    return "__pycache__/" in f"/{path}" and path.endswith(".pyc")


def _git_paths(folder: Path, environ: Mapping[str, str]) -> dict[str, bool]:
    """Git's files of `folder` (path → tracked): tracked, untracked but not ignored, and
    ignored ones a launch can load (`ignored.py`). A repository inside it (a submodule,
    a gitlink, a clone) is walked as a folder (issue 23, item 4): git for each would
    cost four processes per repository, unbounded in count (an empty gitlink folder
    made git list the outer repository again, 16 levels down), and a nested
    repository's own `.gitignore` must not decide what is pinned any more than a
    delivered tree's does. Its `.git` and the folders tools make are left out."""
    found: dict[str, bool] = {}
    listed = work_tree_files(folder, environ)
    ignored = [path for path, kind in listed.items() if kind == IGNORED]
    for path in ignored_loadable(str(folder), ignored, MAX_FILES) if ignored else ():
        found[path] = False
    for path, kind in listed.items():
        if kind == IGNORED:
            continue
        if (path.endswith("/") or kind == NESTED) \
                and not os.path.islink(folder / path.rstrip("/")):  # a link: digested as one
            nested = path.rstrip("/") + "/"
            found.update(dict.fromkeys(
                (nested + p for p in _walk(str(folder / nested), skip=TOOL_MADE)), False))
        else:
            found[path.rstrip("/")] = kind == TRACKED
        if len(found) > MAX_FILES:
            break
    return found


def _walk(real_root: str, skip: frozenset[str] = frozenset()) -> list[str]:
    """Every entry under the root but folders (links are not followed) and what is in
    the folders named in `skip`, bounded."""
    found: list[str] = []
    pending = [(real_root, "")]
    while pending and len(found) <= MAX_FILES:
        directory, prefix = pending.pop()
        try:
            children = list(os.scandir(directory))
        except OSError:
            found.append(prefix or "./")  # an unreadable folder is pinned as such
            continue
        for child in children:
            if child.name in skip and (child.name == ".git"  # a submodule's is a file
                                       or child.is_dir(follow_symlinks=False)):
                continue
            if child.is_dir(follow_symlinks=False):
                pending.append((child.path, f"{prefix}{child.name}/"))
            else:
                found.append(prefix + child.name)
    return found


class _Hasher:
    """Digests of one listing, within the byte bound, reusing the cache where it holds."""

    def __init__(self, real_root: str, cached: Mapping[str, digest_cache.Row]) -> None:
        self.real_root = real_root
        self.prefix = real_root.rstrip("/") + "/"
        self.cached = cached
        self.fresh: dict[str, digest_cache.Row] = {}
        self.total = 0
        self.unpinned: str | None = None

    def entries(self, paths: list[str]) -> dict[str, Entry]:
        """The hot loop of an unchanged workspace: one lstat and one cache row per path,
        inlined (a function call per file is a tenth of `list` on 100,000 files)."""
        found: dict[str, Entry] = {}
        cached, fresh, prefix, lstat, is_regular = (self.cached, self.fresh, self.prefix,
                                                    os.lstat, stat.S_ISREG)
        for path in paths:
            try:
                status = lstat(prefix + path)  # not os.path.join: 100,000 calls
            except OSError:
                continue  # listed (an index entry) but gone: nothing there can run
            row = cached.get(path)
            if (is_regular(status.st_mode) and type(row) is list and len(row) == 6
                    and row[0] == status.st_size and row[1] == status.st_mtime_ns
                    and row[2] == status.st_ctime_ns and row[3] == status.st_ino
                    and type(row[4]) is str and type(row[5]) is int):
                self.total += row[0]
                fresh[path] = row
                found[path] = Entry("sha256:" + row[4], row[0], row[5])
                continue
            entry = self.entry(path, status)
            if entry is not None:
                found[path] = entry
        return found

    def entry(self, path: str, status: os.stat_result) -> Entry | None:
        full = self.prefix + path
        if stat.S_ISLNK(status.st_mode):
            return self._link(path, full)
        if stat.S_ISDIR(status.st_mode):
            return Entry("unreadable:folder") if path.endswith("/") else None
        if not stat.S_ISREG(status.st_mode):
            return Entry(f"special:{stat.filemode(status.st_mode)[0]}")
        size = status.st_size
        self.total += size
        key = (size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)
        if self.total > MAX_BYTES:
            return Entry("unhashed:past the byte bound", size)
        digest, lines, after = _hash(full)
        if after == key and digest.startswith("sha256:"):  # unchanged while read: cache it
            self.fresh[path] = [*key, digest.removeprefix("sha256:"), lines]
        return Entry(digest, size, lines)

    def _link(self, path: str, full: str) -> Entry:
        try:
            said = os.readlink(full)
        except OSError as error:
            return Entry(f"unreadable:{error.strerror}")
        real = os.path.realpath(full)
        inside = real == self.real_root or real.startswith(self.real_root.rstrip("/") + "/")
        try:
            status = os.stat(real)
            mode = status.st_mode
        except OSError:
            there = "missing"
        else:
            if stat.S_ISREG(mode):
                there = self._target(path, real, status)
                self.total += 0 if inside else status.st_size
            elif stat.S_ISDIR(mode):
                there = "folder"
                if not inside and self.unpinned is None:
                    self.unpinned = (f"{path}: a symlink to a folder outside the workspace "
                                     f"({real}); mcpctl cannot pin what it holds")
            else:
                there = "special"
        where = os.path.relpath(real, self.real_root) if inside else real
        text = json.dumps([said, "inside" if inside else "outside", where, there])
        return Entry("symlink:sha256:" + sha256_hex(text.encode("utf-8", "surrogateescape")))


    def _target(self, path: str, real: str, status: os.stat_result) -> str:
        """The content digest of a link's regular target, cached under the link's path
        by the target's size, mtime, ctime and inode (issue 23, item 9: a large file
        outside the repo was read again by every command)."""
        key = (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)
        row = self.cached.get(path)
        if type(row) is list and len(row) == 6 and tuple(row[:4]) == key \
                and type(row[4]) is str and type(row[5]) is int:
            self.fresh[path] = row
            return "sha256:" + row[4]
        digest, lines, after = _hash(real)
        if after == key and digest.startswith("sha256:"):
            self.fresh[path] = [*key, digest.removeprefix("sha256:"), lines]
        return digest


def _hash(path: str) -> tuple[str, int, tuple[int, int, int, int] | None]:
    """(digest, newlines, the stat key after reading) of a regular file."""
    import hashlib  # noqa: PLC0415 - OpenSSL, only when a file is read (see mcpctl/sha256.py)

    hasher = hashlib.sha256()
    lines = 0
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        return f"unreadable:{error.strerror}", 0, None
    try:
        status = os.fstat(handle)
        if not stat.S_ISREG(status.st_mode):  # swapped for a FIFO after the lstat
            return "special:swapped", 0, None
        while chunk := os.read(handle, _CHUNK):
            hasher.update(chunk)
            lines += chunk.count(b"\n")
        after = os.fstat(handle)
    except OSError as error:
        return f"unreadable:{error.strerror}", 0, None
    finally:
        os.close(handle)
    key = (after.st_size, after.st_mtime_ns, after.st_ctime_ns, after.st_ino)
    return "sha256:" + hasher.hexdigest(), lines, key


def changed_paths(old: Mapping[str, str], new: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """(path, "modified"/"added"/"removed") in path order."""
    for path in sorted(old.keys() | new.keys()):
        if path not in old:
            yield path, "added"
        elif path not in new:
            yield path, "removed"
        elif old[path] != new[path]:
            yield path, "modified"
