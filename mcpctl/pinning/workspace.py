"""The whole workspace as an approval covers it: a digest per path (issue 11, item 1).

In a git work tree: every tracked file, every untracked file git does not ignore and
every ignored one a launch can load (`ignored.py`); a repository inside it (a
submodule, a gitlink, a clone) is walked as a folder, without its `.git` and the
folders tools make (issue 23).
Outside git: every entry under the root. Either way, bounded: past MAX_FILES entries or
MAX_BYTES of regular files the set carries an `unpinned` reason and the gate refuses.

How (issue 24): with a cache from an earlier pass and git able to answer, `_fast` asks
git which paths differ from mcpctl's private index of each repository
(`git_index.py`) and hashes only those and the rows the cache watches; every other
digest is read from the cache when asked (`CachedEntries`). Otherwise `_exact` lists
and stats every path and hashes each file whose cached row does not hold.

Each entry's digest:
- a regular file: `sha256:` of its content (cached by path, size, mtime, ctime, inode),
  `exec:sha256:` when git tracks it and its owner may execute it;
- a symlink: `symlink:sha256:` of what it says, where it leads (real path) and what is
  there — so retargeting it, or changing the outside file it names, changes the digest;
  a link to a folder outside the workspace cannot be bounded and makes the set unpinned;
- anything else (FIFO, socket, device): its kind; an unreadable file: `unreadable:`.
Python's bytecode caches that git would not hand a clone (untracked `__pycache__`) are
left out: Python writes them on the first run; tracked ones are pinned like any file.
"""

import contextlib
import json
import os
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import partial
from itertools import islice
from operator import itemgetter
from pathlib import Path
from typing import BinaryIO, NamedTuple

from mcpctl.pinning import digest_cache, folder_snapshot
from mcpctl.pinning.digest_cache import ABSENT, SETTLED, SKIPPED, WATCHED, Row
from mcpctl.pinning.git import (
    IGNORED,
    NESTED,
    TRACKED,
    UNTRACKED,
    Changes,
    GitUnavailable,
    Listing,
    work_tree_listing,
)
from mcpctl.pinning.git import index_stat as repo_index_stat
from mcpctl.pinning.git_index import SETTLED_NS, intact, settled, write_index
from mcpctl.pinning.ignored import TOOL_MADE, ignored_loadable
from mcpctl.sha256 import sha256_hex

MAX_FILES = 1_500_000
MAX_BYTES = 4 * 1024**3
MAX_FAST = 4096  # paths git names as changed past which the exact pass runs instead
MAX_OVERLAY = 256  # rows read over the cache, past which it is written again
GIT, FOLDER = "git", "folder"  # how the files were found
EXECUTABLE = "exec:"  # before the digest of a file its owner may execute: a mode change
_CHUNK = 1024 * 1024
SPLIT_AT = 4096  # files with no cached row past which a pass is split over two processes
_MAX_PAYLOAD = 1024**3  # the child's rows: about 150 bytes a file, at most MAX_FILES / 2
_OPEN = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW
_IN_SET = (SETTLED, WATCHED)
_NEW = tuple.__new__  # a NamedTuple without its Python-level constructor


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
    # The cache the entries are read from when git found nothing changed since it was
    # written: set digests computed once are kept there (`pin_set._shared`).
    memo: digest_cache.Memo | None = None
    state: str = ""  # with `memo`: the paths read over the cache, by content ("": none)


class CachedEntries(Mapping[str, Entry]):
    """The entries of an unchanged workspace, read from the cache only when asked: a
    launch asks for a few by path, a change report walks them once in order."""

    def __init__(self, cache: digest_cache.Cache, count: int,
                 over: Mapping[str, Row] = digest_cache.NO_ROWS) -> None:
        self.cache = cache
        self.count = count
        self.over = over  # rows that differ from the cache's (hashed again this start)

    def __getitem__(self, path: str) -> Entry:
        import sqlite3  # noqa: PLC0415 - loaded with the cache already

        try:
            row = self.over.get(path) or self.cache.row(path)
        except sqlite3.Error:
            raise self.cache.broken() from None
        if row is None or row.flag not in _IN_SET:
            raise KeyError(path)
        return Entry(row.digest, row.size, row.lines)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self.get(path) is not None

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[str]:
        return (path for path, _ in self.items())

    def items(self) -> Iterator[tuple[str, Entry]]:  # type: ignore[override]
        """One pass (not a query per path)."""
        import sqlite3  # noqa: PLC0415 - loaded with the cache already

        over = self.over
        try:
            for row in self.cache.rows():
                if row.flag in _IN_SET and row.path not in over:
                    yield row.path, Entry(row.digest, row.size, row.lines)
        except sqlite3.Error:
            raise self.cache.broken() from None
        for path, row in over.items():
            if row.flag in _IN_SET:
                yield path, Entry(row.digest, row.size, row.lines)


def workspace_files(root: Path, environ: Mapping[str, str], cache_dir: Path | None = None,
                    *, max_files: int = MAX_FILES) -> WorkspaceFiles:
    """`max_files` bounds a pass that lists every path (a test lowers it). The fast path
    lists only what changed: a workspace grown past the bound change by change is still
    pinned whole, each of its files in the set."""
    real_root = os.path.realpath(root)
    cache = digest_cache.load(cache_dir, real_root) if cache_dir is not None else None
    import sqlite3  # noqa: PLC0415 - loaded with the cache already

    try:
        if cache is not None and cache_dir is not None and cache.meta("fast") == "1":
            fast = _fast(real_root, cache, environ, cache_dir)
            if fast is not None:
                return fast
    except sqlite3.Error:  # a corrupted cache: the exact pass writes a new one
        cache = None
    return _exact(real_root, environ, cache_dir, cache, max_files)


def _exact(real_root: str, environ: Mapping[str, str], cache_dir: Path | None,
           cache: digest_cache.Cache | None, max_files: int = MAX_FILES) -> WorkspaceFiles:
    """Every path listed and stat-ed; a file hashed unless its cached row holds."""
    repos: dict[str, Listing] = {}
    try:
        listed: dict[str, bool] | None = _git_paths(Path(real_root), environ, repos,
                                                    max_files)
        source = GIT
    except GitUnavailable:
        listed, source, repos = None, FOLDER, {}
    paths = listed if listed is not None \
        else dict.fromkeys(_walk(real_root, bound=max_files), True)
    if len(paths) > max_files:  # the walk stopped there: a part is no approval
        return WorkspaceFiles(source, {}, f"more than {max_files:,} files in the workspace; "
                              f"mcpctl pins at most {max_files:,}")
    import sqlite3  # noqa: PLC0415

    try:
        previous = {row.path: row for row in cache.rows()} if cache is not None else {}
        old_indexes = _indexes(cache)
        fast_before = cache is not None and cache.meta("fast") == "1"
    except sqlite3.Error:
        previous, old_indexes, fast_before = {}, set(), False
    cached = {path: row for path, row in previous.items() if row.flag == SETTLED}
    if cache is not None:
        cache.close()
    hasher = _Hasher(real_root, cached, modes=source == GIT, targets=_targets(cache))
    entries = hasher.entries(paths)
    unpinned = hasher.unpinned or _past_bytes(hasher.total)
    fast = source == GIT and unpinned is None
    # Written again only when it would say something else (outside git, or with the
    # fast path off, this pass runs on every start).
    memo: digest_cache.Memo | None = None
    if cache_dir is not None:
        if hasher.deferred or hasher.rows != previous or fast or fast_before \
                or hasher.new_targets != hasher.targets:
            memo = _save_aside(cache_dir, real_root, hasher.row_count(), lambda generation: _save(
                cache_dir, real_root, source, hasher.all_rows(), repos if fast else {},
                hasher.total, old_indexes, targets=hasher.new_targets, generation=generation))
        else:  # the cache there holds these very rows
            memo = digest_cache.load(cache_dir, real_root)
    return WorkspaceFiles(source, entries, unpinned, hasher.skipped(), memo)


def _save_aside(cache_dir: Path, real_root: str, count: int,
                save: Callable[[str], None]) -> digest_cache.Memo | None:
    """The cache written for the next start, and its memo (where this command keeps the
    set digest it computes). Past SPLIT_AT rows it is written by a detached process,
    so the command answers meanwhile: that writer holds the cache's lock until the
    cache is in place, and a start that comes meanwhile waits for it
    (`digest_cache.load`). Its generation is chosen here, so the memo this command
    writes is the new cache's. A writer that cannot be forked: written here."""
    generation = digest_cache.new_generation()
    lock = digest_cache.writing(cache_dir, real_root) \
        if count >= SPLIT_AT and _can_fork() else None
    if lock is not None:
        try:
            child = os.fork()
        except OSError:
            child = -1
        if child == 0:  # pragma: no cover - the child's lines run in the child
            code = 1
            try:
                if os.fork() == 0:  # the writer, a grandchild: nothing has to reap it
                    _detach()
                    save(generation)
                code = 0
            finally:
                os._exit(code)
        os.close(lock)  # the writer holds it now
        if child > 0 and os.waitpid(child, 0)[1] == 0:
            return digest_cache.Memo(digest_cache.cache_file(cache_dir, real_root), generation)
    save(generation)
    return digest_cache.load(cache_dir, real_root)


def _detach() -> None:  # pragma: no cover - runs in the writer
    """Out of the caller's session, its terminal and its pipes: a script reading the
    command's output sees its end when the command ends, not when the cache is written."""
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)


def _past_bytes(total: int) -> str | None:
    if total <= MAX_BYTES:
        return None
    return f"{total:,} bytes in the workspace; mcpctl hashes at most {MAX_BYTES // 1024**3} GiB"


def _indexes(cache: digest_cache.Cache | None) -> set[str]:
    if cache is None:
        return set()
    import sqlite3  # noqa: PLC0415

    try:
        repos = json.loads(cache.meta("repos") or "{}")
        return {str(info["index"]) for info in repos.values()}
    except (ValueError, TypeError, KeyError, AttributeError, sqlite3.Error):
        return set()


def _fast(real_root: str, cache: digest_cache.Cache, environ: Mapping[str, str],  # noqa: PLR0912, PLR0915
          cache_dir: Path) -> WorkspaceFiles | None:
    """Git's word on what differs from the private indexes (`git_index.py`), each such
    path hashed again, and every other row read from the cache only when asked; None
    when git cannot say it all (the exact pass runs instead)."""
    try:
        repos = json.loads(cache.meta("repos") or "")
        count, total = int(cache.meta("count") or ""), int(cache.meta("bytes") or "")
        infos = [(str(prefix), str(info["index"]), str(info["tracked"]), str(info["rules"]),
                  list(info["nested"]), info.get("index_stat"), str(info["loadable"]),
                  str(info.get("inside", "")))
                 for prefix, info in repos.items()]
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    candidates: set[str] = set()
    snapshots: dict[str, folder_snapshot.Snapshot | None] = {}
    for prefix, trailer, tracked, rules, nested, index_stat, loadable, inside in infos:
        index = digest_cache.index_file(cache_dir, trailer)
        if not _intact(index, repos[prefix].get("index_file")):
            return None  # missing or corrupted: the exact pass writes a new one
        known = cache.recall(f"index:{prefix}")
        seen = json.loads(known) if known else index_stat
        folder = Path(real_root, prefix)
        later = cache.recall(f"snapshot:{prefix}")
        kept = folder_snapshot.loads(later if later is not None
                                     else cache.meta(f"snapshot:{prefix}"))
        stat_known = (seen, tracked) if isinstance(seen, list) else None
        began = time.time_ns()
        try:
            # git stats every file while the folders are compared with the snapshot:
            # both read the same folders, which a cold disk makes each wait for.
            with Changes(folder, index, environ, stat_known, walk=kept is None) as asked:
                quiet = folder_snapshot.unchanged(str(folder), kept) \
                    if kept is not None else None
                since = None if kept is not None and quiet is None else asked.since()
            if since is None:  # a folder changed: git walks them all
                began = time.time_ns()
                with Changes(folder, index, environ, stat_known) as asked:
                    since = asked.since()
        except GitUnavailable:
            return None  # a missing or corrupted index, git missing or failing: exact pass
        found = sorted(path.rstrip("/") for path in since.others if path.endswith("/"))
        if quiet is not None and kept is not None:  # no folder changed: git's walk would
            pinned_ignored = quiet  # list what it listed when the snapshot was taken
            candidates.update(prefix + path for path in kept.others)
        else:
            pinned_ignored = ignored_loadable(str(folder), since.ignored, MAX_FILES) \
                if since.ignored else []
        # A repository inside that has files shows as `x/` (the private index holds
        # none of them); one that is new makes the exact pass run. Those known are
        # walked below, and a gitlink is in the tracked list.
        if since.tracked != tracked or since.rules is None or since.rules != rules \
                or since.inside != inside \
                or not set(found) <= set(nested) \
                or _loadable_digest(pinned_ignored) != loadable:
            return None  # the tracked list, the ignore rules, the ignored files pinned,
            # the repositories inside or the folder's place in its repository changed:
            # the exact pass lists them anew
        for inner in nested:  # walked as folders, as the exact pass does: O(their files)
            candidates.update(_walked_changes(real_root, cache, f"{prefix}{inner}/"))
        if since.index_stat is not None and since.index_stat != seen:
            # The user's git rewrote its index, with the same paths: for the next start.
            cache.remember(f"index:{prefix}", json.dumps(since.index_stat))
        candidates.update(prefix + path for path in since.changed)
        if len(candidates) > MAX_FAST:
            return None
        if quiet is None:  # the folders as git walked them now, for the next start
            snapshots[prefix] = folder_snapshot.take(str(folder), since.ignored, nested,
                                                     began, since.changed, MAX_FILES)
            if snapshots[prefix] != kept:
                cache.remember(f"snapshot:{prefix}", folder_snapshot.dumps(snapshots[prefix]))
        else:
            snapshots[prefix] = kept
    watched = cache.unsettled()
    if cache.meta("watched") != _watched_digest(watched):
        return None  # a row's flag was corrupted: it might have stopped being watched
    rows = {row.path: row for row in watched}
    for path in candidates - rows.keys():
        row = cache.row(path)
        if row is not None:
            rows[path] = row
    hasher = _Hasher(real_root, {}, modes=True, targets=_targets(cache))
    changes: dict[str, Row] = {}
    for path in sorted(candidates | rows.keys()):
        old = rows.get(path)
        new = hasher.again(path, old)
        if new != old:
            changes[path] = new
    if hasher.unpinned is not None:
        return None
    if hasher.new_targets != hasher.targets:
        cache.remember("targets", json.dumps(hasher.new_targets))
    differs = {path: new for path, new in changes.items() if _differs(rows.get(path), new)}
    if any(path.rsplit("/", 1)[-1] == ".gitignore" for path in differs):
        return None  # which files are ignored changed: the exact pass lists them anew
    for path, new in differs.items():
        old = rows.get(path)
        was, now = old is not None and old.flag in _IN_SET, new.flag in _IN_SET
        total += (new.size if now else 0) - (old.size if was and old is not None else 0)
        count += now - was
    skipped = int(cache.meta("skipped") or 0)
    if len(changes) <= MAX_OVERLAY:
        # A few paths differ from the cache: read over it, and named by what they hold,
        # so what is computed from this set is kept for the next start that sees it.
        state = "" if not differs else sha256_hex(json.dumps(
            [[path, new.flag in _IN_SET, new.digest] for path, new in sorted(differs.items())]
        ).encode("utf-8", "surrogateescape"))[:32]
        return WorkspaceFiles(GIT, CachedEntries(cache, count, differs), _past_bytes(total),
                              skipped, cache, state)
    every = {row.path: row for row in cache.rows()}
    old_indexes = _indexes(cache)
    cache.close()
    every.update(changes)
    # Once per change: the next start finds nothing to hash again.
    listings = {prefix: Listing({}, tracked, rules, repo_index_stat(Path(real_root, prefix)),
                                loadable, _settled_snapshot(snapshots.get(prefix)), inside)
                for prefix, _, tracked, rules, _, _, loadable, inside in infos}
    nested_of = {prefix: nested for prefix, _, _, _, nested, _, _, _ in infos}
    memo = _save_aside(cache_dir, real_root, len(every), lambda generation: _save(
        cache_dir, real_root, GIT, every, listings, total, old_indexes, nested_of,
        hasher.new_targets, generation=generation))
    entries = {path: Entry(row.digest, row.size, row.lines) for path, row in every.items()
               if row.flag in _IN_SET}
    skipped = sum(1 for row in every.values() if row.flag == SKIPPED)
    return WorkspaceFiles(GIT, entries, _past_bytes(total), skipped, memo)


def _intact(index: Path, recorded: object) -> bool:
    """`git_index.intact`, unless the file has the stat it had when written: any write
    to it since (a flipped bit put there by a tool, a copy put back) moves its ctime,
    which nothing unprivileged sets back, so it is the file mcpctl wrote."""
    try:
        status = os.stat(index)
    except OSError:
        return False
    if recorded == _file_stat(status):
        return True
    return intact(index)


def _file_stat(status: os.stat_result) -> list[int]:
    return [status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino,
            status.st_dev]


def _settled_snapshot(snapshot: folder_snapshot.Snapshot | None) -> str:
    """A snapshot for a cache written now: whatever git listed as not in the old private
    index has a row now (so is in the new index, or watched)."""
    return folder_snapshot.dumps(snapshot._replace(others=[]) if snapshot else None)


def _targets(cache: digest_cache.Cache | None) -> dict[str, object]:
    """The digests of links' targets the cache keeps (the latest, from its memo)."""
    if cache is None:
        return {}
    import sqlite3  # noqa: PLC0415

    try:
        found = json.loads(cache.recall("targets") or cache.meta("targets") or "{}")
    except (ValueError, sqlite3.Error):
        return {}
    return found if isinstance(found, dict) else {}


def _walked_changes(real_root: str, cache: digest_cache.Cache, folder: str) -> list[str]:
    """Paths under a repository inside (`folder`) whose row does not hold: its files are
    walked and stat-ed on every start, git is never asked about them (issue 23)."""
    rows = cache.under(folder)
    prefix = real_root.rstrip("/") + "/"
    walked = [folder + path for path in _walk(prefix + folder, skip=TOOL_MADE)]
    changed = list(rows.keys() - set(walked))
    for path in walked:
        row = rows.get(path)
        try:
            status = os.lstat(prefix + path)
        except OSError:
            changed.append(path)
            continue
        if row is None or row.flag != SETTLED or not stat.S_ISREG(status.st_mode) or (
                row.size, row.mtime, row.ctime, row.ino, row.mode, row.uid, row.gid) != (
                status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino,
                status.st_mode, status.st_uid, status.st_gid):
            changed.append(path)
    return changed


def _watched_digest(rows: Iterable[Row]) -> str:
    """Of the rows hashed again on every start: none may drop out unnoticed."""
    return sha256_hex(json.dumps([[row.path, row.flag, row.tracked] for row in rows
                                  if row.flag != SETTLED]).encode("utf-8", "surrogateescape"))


def _differs(old: Row | None, new: Row) -> bool:
    """Whether the workspace set changed with this row (not only what the cache knows)."""
    was = old is not None and old.flag in _IN_SET
    now = new.flag in _IN_SET
    return was != now or (now and old is not None and old.digest != new.digest)


def _save(cache_dir: Path, real_root: str, source: str, rows: Mapping[str, Row],
          repos: Mapping[str, Listing], total: int, old_indexes: set[str],
          nested_of: Mapping[str, list[str]] | None = None,
          targets: Mapping[str, object] = digest_cache.NO_ROWS, *, generation: str) -> None:
    """The cache, and a private index per repository (the fast path is on only when
    every repository of the workspace has one)."""
    from mcpctl.errors import ConfigError  # noqa: PLC0415

    encoded = sorted([(row.path.encode("utf-8", "surrogateescape"), row)
                      for row in rows.values()], key=itemgetter(0))  # git's order
    unsettled = [row for _, row in encoded if row.flag != SETTLED]  # few: one pass
    prefixes = sorted(repos, key=len, reverse=True)
    infos: dict[str, dict[str, object]] = {}
    snapshots: dict[str, str] = {}
    folder = cache_dir / "pins"
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        for prefix in prefixes:
            listing = repos[prefix]
            nested = nested_of[prefix] if nested_of is not None else _nested(listing)
            # A repository inside is walked on every start, never left to git.
            inner = tuple(f"{prefix}{path}/".encode("utf-8", "surrogateescape")
                          for path in nested)
            start = prefix.encode("utf-8", "surrogateescape")
            size = len(start)
            # Named from the repository's top, as git reads an index: a workspace that
            # is a folder inside it (`sub/`) has its own paths under that folder.
            inside = listing.inside.encode("utf-8", "surrogateescape")
            entries = [(inside + raw[size:], (row.size, row.mtime, row.ctime, row.ino, row.mode, 0,
                                     row.uid, row.gid), bytes.fromhex(row.digest[-64:]))
                       for raw, row in encoded if row.flag == SETTLED
                       and raw.startswith(start) and not (inner and raw.startswith(inner))]
            trailer = write_index(folder, entries)
            infos[prefix] = {"index": trailer, "tracked": listing.tracked,
                             "rules": listing.rules, "nested": nested, "inside": listing.inside,
                             "index_stat": listing.index_stat, "loadable": listing.loadable,
                             "index_file": _file_stat(os.stat(
                                 digest_cache.index_file(cache_dir, trailer)))}
            snapshots[f"snapshot:{prefix}"] = listing.snapshot
    except (OSError, ConfigError, ValueError):
        infos, snapshots = {}, {}
    fast = bool(infos) and all(info["rules"] is not None for info in infos.values())
    meta = {"source": source, "fast": "1" if fast else "0", "repos": json.dumps(infos),
            "count": str(len(encoded) - sum(1 for row in unsettled if row.flag not in _IN_SET)),
            "bytes": str(total),
            "skipped": str(sum(1 for row in unsettled if row.flag == SKIPPED)),
            "watched": _watched_digest(unsettled), "targets": json.dumps(targets), **snapshots}
    digest_cache.save(cache_dir, real_root, encoded, meta, generation)
    for trailer in old_indexes - {str(info["index"]) for info in infos.values()}:
        with contextlib.suppress(OSError):
            os.unlink(digest_cache.index_file(cache_dir, trailer))


def _loadable_digest(paths: list[str]) -> str:
    return sha256_hex("\0".join(sorted(paths)).encode("utf-8", "surrogateescape"))


def _nested(listing: Listing) -> list[str]:
    """The repositories inside, walked as folders (`_git_paths`)."""
    return sorted(path.rstrip("/") for path, kind in listing.paths.items()
                  if kind == NESTED or (kind == UNTRACKED and path.endswith("/")))


def _bytecode(path: str) -> bool:
    return "__pycache__/" in f"/{path}" and path.endswith(".pyc")


def _git_paths(folder: Path, environ: Mapping[str, str],
               repos: dict[str, Listing], max_files: int = MAX_FILES) -> dict[str, bool]:
    """Git's files of `folder` (path → tracked): tracked, untracked but not ignored, and
    ignored ones a launch can load (`ignored.py`). A repository inside it (a submodule,
    a gitlink, a clone) is walked as a folder (issue 23, item 4): git for each would
    cost four processes per repository, unbounded in count (an empty gitlink folder
    made git list the outer repository again, 16 levels down), and a nested
    repository's own `.gitignore` must not decide what is pinned any more than a
    delivered tree's does. Its `.git` and the folders tools make are left out.
    `repos[""]` gets the listing (what the fast path checks, `_fast`)."""
    found: dict[str, bool] = {}
    listing = work_tree_listing(folder, environ)
    listed = listing.paths
    ignored = [path for path, kind in listed.items() if kind == IGNORED]
    loadable = ignored_loadable(str(folder), ignored, max_files) if ignored else []
    # No folder snapshot here: the first start walks and keeps one (`_fast`), so a
    # first pass does not pay for a third walk of the tree.
    repos[""] = listing._replace(loadable=_loadable_digest(loadable))
    for path in loadable:
        found[path] = False
    for path, kind in listed.items():
        if kind == IGNORED:
            continue
        if (path.endswith("/") or kind == NESTED) \
                and not os.path.islink(folder / path.rstrip("/")):  # a link: digested as one
            nested = path.rstrip("/") + "/"
            found.update(dict.fromkeys(
                (nested + p for p in _walk(str(folder / nested), skip=TOOL_MADE,
                                           bound=max_files)), False))
        else:
            found[path.rstrip("/")] = kind == TRACKED
        if len(found) > max_files:
            break
    return found


def _walk(real_root: str, skip: frozenset[str] = frozenset(),
          bound: int = MAX_FILES) -> list[str]:
    """Every entry under the root but folders (links are not followed) and what is in
    the folders named in `skip`; past `bound` entries, the walk stops."""
    found: list[str] = []
    pending = [(real_root, "")]
    while pending and len(found) <= bound:
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
    """Digests of one listing, within the byte bound, reusing the cache where it holds,
    and the cache's rows for the next command."""

    def __init__(self, real_root: str, cached: Mapping[str, Row], *, modes: bool,
                 targets: Mapping[str, object] = digest_cache.NO_ROWS) -> None:
        self.real_root = real_root
        self.targets = targets  # a link's target's digest, by the link's path (`_target`)
        self.new_targets: dict[str, list[object]] = {}
        self.modes = modes  # pin the executable bit of tracked files (git records it)
        self.prefix = real_root.rstrip("/") + "/"
        self.cached = cached  # SETTLED rows only: a WATCHED row is never reused
        self.rows: dict[str, Row] = {}
        self.total = 0
        self.unpinned: str | None = None
        # Before any file is read: a file written after this moment has a later ctime.
        self.started = time.time_ns()
        # A hashing child's rows as it sent them, with their count and skipped count.
        self.deferred: list[tuple[bytes, int, int]] = []

    def entries(self, paths: Mapping[str, bool]) -> dict[str, Entry]:
        """Every path's entry; a first pass over many files is split with a child
        process (`_split`)."""
        if len(paths) >= SPLIT_AT and not self.cached:
            split = self._split(paths)
            if split is not None:
                return split
        return self._entries(paths.items())

    def _split(self, paths: Mapping[str, bool]) -> dict[str, Entry] | None:
        """The second half of the paths hashed by a forked child, the first here: reading
        and SHA-256 of small files hold the interpreter's lock, so threads take turns
        where two processes use two cores. The child sends (marshal) its entries as
        columns, which become this command's in C, then its rows, kept as they came
        for the cache's writer (`all_rows`). None, before any row is made, when no
        child can be forked; a child that fails or dies leaves its half to this one."""
        if not _can_fork():
            return None
        # The child's share is a little smaller: it also packs what it found (about a
        # fifth of its hashing's cost), which this side takes in for less.
        half = len(paths) * 11 // 20
        reader, writer = os.pipe()
        with contextlib.suppress(OSError, AttributeError):  # Linux: fewer, larger reads
            import fcntl  # noqa: PLC0415

            fcntl.fcntl(writer, fcntl.F_SETPIPE_SZ, _CHUNK)
        try:
            child = os.fork()
        except OSError:
            os.close(reader)
            os.close(writer)
            return None
        if child == 0:  # pragma: no cover - the child's lines run in the child
            code = 1
            try:
                os.close(reader)
                with open(writer, "wb") as pipe:
                    self._send(self._entries(islice(paths.items(), half, None)), pipe)
                code = 0
            finally:
                os._exit(code)
        os.close(writer)
        found = self._entries(islice(paths.items(), half))
        try:
            payload = _read_all(reader, _MAX_PAYLOAD)
        finally:
            os.close(reader)  # a child past the bound ends on the closed pipe
            _, status = os.waitpid(child, 0)
        if status != 0 or not self._receive(payload, found):  # its half, here after all
            found.update(self._entries(islice(paths.items(), half, None)))
        return found

    def _send(self, found: dict[str, Entry], pipe: BinaryIO) -> None:  # pragma: no cover
        """The child's half: its entries as columns and its counts, then its rows."""
        import marshal  # noqa: PLC0415 - only for a split pass

        values = found.values()
        head = marshal.dumps((list(found), *(list(map(itemgetter(n), values)) for n in range(3)),
                              self.total, self.unpinned, self.new_targets, len(self.rows),
                              sum(1 for row in self.rows.values() if row.flag == SKIPPED)))
        rows = marshal.dumps(list(map(tuple, self.rows.values())))
        # All made before the first write: the parent reads only when its half is done.
        pipe.write(len(head).to_bytes(8, "big"))
        pipe.write(head)
        pipe.write(rows)

    def _receive(self, payload: bytes, found: dict[str, Entry]) -> bool:
        """The child's entries added to `found`, its rows kept for `all_rows`; False,
        with nothing changed, when what it sent is not whole."""
        import marshal  # noqa: PLC0415

        size = int.from_bytes(payload[:8], "big")
        try:
            # Written by this command's own child, through a pipe only the two hold; it
            # ended well, so it wrote all of it and this command read all of it.
            paths, digests, sizes, lines, total, unpinned, targets, count, skipped = \
                marshal.loads(payload[8:8 + size])  # noqa: S302
        except (ValueError, TypeError, EOFError):
            return False
        found.update(zip(paths, map(partial(_NEW, Entry), zip(digests, sizes, lines,
                                                              strict=True)), strict=True))
        self.total += total
        self.unpinned = self.unpinned or unpinned
        self.new_targets.update(targets)
        self.deferred.append((payload[8 + size:], count, skipped))
        return True

    def all_rows(self) -> dict[str, Row]:
        """Every row, with a child's (`_split`) made into rows here (by the cache's
        writer, off the command's path)."""
        import marshal  # noqa: PLC0415

        for rows, _, _ in self.deferred:
            self.rows.update({row[0]: _NEW(Row, row) for row in marshal.loads(rows)})  # noqa: S302
        self.deferred.clear()
        return self.rows

    def row_count(self) -> int:
        return len(self.rows) + sum(count for _, count, _ in self.deferred)

    def skipped(self) -> int:
        return sum(1 for row in self.rows.values() if row.flag == SKIPPED) + sum(
            skipped for _, _, skipped in self.deferred)

    def _entries(self, paths: Iterable[tuple[str, bool]]) -> dict[str, Entry]:
        """The hot loop, inlined (a function call per file is a tenth of `list` on
        100,000 files): a path with a cached row costs one lstat; the others are read
        by `_fresh`, in one call."""
        found: dict[str, Entry] = {}
        fresh: list[tuple[str, bool]] = []
        cached, rows, prefix, lstat, is_regular = (self.cached, self.rows, self.prefix,
                                                   os.lstat, stat.S_ISREG)
        for path, tracked in paths:
            if not tracked and _bytecode(path):
                rows[path] = Row(path, "", 0, 0, 0, 0, 0, 0, 0, 0, SKIPPED)
                continue
            row = cached.get(path) if cached else None
            if row is None:
                fresh.append((path, tracked))
                continue
            try:
                status = lstat(prefix + path)  # not os.path.join: 100,000 calls
            except OSError:  # listed (an index entry) but gone: nothing there can run
                rows[path] = Row(path, "", 0, 0, 0, 0, 0, 0, 0, 0, ABSENT, int(tracked))
                continue
            if (is_regular(status.st_mode)
                    and row.size == status.st_size and row.mtime == status.st_mtime_ns
                    and row.ctime == status.st_ctime_ns and row.ino == status.st_ino
                    and row.mode == status.st_mode and row.uid == status.st_uid
                    and row.gid == status.st_gid):
                self.total += row.size
                rows[path] = row
                found[path] = Entry(row.digest, row.size, row.lines)
                continue
            entry = self.entry(path, status, tracked=tracked)
            if entry is not None:
                found[path] = entry
        if fresh:
            found.update(self._fresh(fresh))
        return found

    def _fresh(self, paths: list[tuple[str, bool]]) -> dict[str, Entry]:
        """Paths with no cached row, in one loop with its names local: each opened
        without following a link or blocking on a FIFO, so a small regular file is
        hashed from one read. The stat is the fstat before reading: a write while it
        is read moves the ctime past `started`, so the row is not settled and the next
        start hashes it again. Anything else (a link, a special or large file, a read
        that came short) goes to `entry`; the rows and tuples are made directly."""
        import hashlib  # noqa: PLC0415 - OpenSSL, only when a file is read

        sha256 = hashlib.sha256
        found: dict[str, Entry] = {}
        rows, prefix, modes = self.rows, self.prefix, self.modes
        unsettled_after = self.started - SETTLED_NS  # `settled`, inlined
        open_, fstat, read, close, regular = os.open, os.fstat, os.read, os.close, stat.S_ISREG
        for path, tracked in paths:
            full = prefix + path
            try:
                fd = open_(full, _OPEN)
            except OSError:  # a symlink (ELOOP), a socket, gone: told apart by its lstat
                entry = self._unopened(path, full, tracked)
                if entry is not None:
                    found[path] = entry
                continue
            data: bytes | None = None
            status: os.stat_result | None = None
            try:
                status = fstat(fd)
                size = status.st_size
                if regular(status.st_mode) and size < _CHUNK and self.total + size <= MAX_BYTES:
                    data = read(fd, size + 1)
            except OSError:
                data = None
            finally:
                close(fd)
            if status is None or data is None or len(data) != size:  # else: read to its end
                entry = self._unopened(path, full, tracked) if status is None \
                    else self.entry(path, status, tracked=tracked)
                if entry is not None:
                    found[path] = entry
                continue
            self.total += size
            digest = "sha256:" + sha256(data).hexdigest()
            mode, mtime, ctime = status.st_mode, status.st_mtime_ns, status.st_ctime_ns
            if tracked and modes and mode & 0o100:
                digest = EXECUTABLE + digest
            lines = data.count(b"\n")
            rows[path] = _NEW(Row, (path, digest, size, lines, mtime, ctime, status.st_ino, mode,
                                    status.st_uid, status.st_gid,
                                    SETTLED if max(mtime, ctime) <= unsettled_after else WATCHED,
                                    int(tracked)))
            found[path] = _NEW(Entry, (digest, size, lines))
        return found

    def _unopened(self, path: str, full: str, tracked: bool) -> Entry | None:
        try:
            status = os.lstat(full)
        except OSError:
            self.rows[path] = Row(path, "", 0, 0, 0, 0, 0, 0, 0, 0, ABSENT, int(tracked))
            return None
        return self.entry(path, status, tracked=tracked)

    def again(self, path: str, old: Row | None) -> Row:
        """The row of one path git named (or the cache watches), as it is now."""
        tracked = old is not None and old.tracked == 1  # the tracked list is as it was
        try:
            status = os.lstat(self.prefix + path)
        except OSError:  # gone: watched from now on, in case it comes back
            return Row(path, "", 0, 0, 0, 0, 0, 0, 0, 0, ABSENT, int(tracked))
        if not tracked and _bytecode(path):
            return Row(path, "", 0, 0, 0, 0, 0, 0, 0, 0, SKIPPED)
        self.entry(path, status, tracked=tracked)
        return self.rows.get(path) or Row(path, "", 0, 0, 0, 0, 0, 0, 0, 0, ABSENT, int(tracked))

    def entry(self, path: str, status: os.stat_result, *, tracked: bool) -> Entry | None:
        full = self.prefix + path
        key = (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)
        row = (path, status.st_size, 0, status.st_mtime_ns, status.st_ctime_ns,
               status.st_ino, status.st_mode, status.st_uid, status.st_gid)
        entry: Entry | None
        if stat.S_ISLNK(status.st_mode):
            entry = self._link(path, full)
        elif stat.S_ISDIR(status.st_mode):
            entry = Entry("unreadable:folder") if path.endswith("/") else None
        elif not stat.S_ISREG(status.st_mode):
            entry = Entry(f"special:{stat.filemode(status.st_mode)[0]}")
        else:
            self.total += status.st_size
            if self.total > MAX_BYTES:
                entry = Entry("unhashed:past the byte bound", status.st_size)
            else:
                digest, lines, after = _hash(full)
                if tracked and self.modes and digest.startswith("sha256:") \
                        and status.st_mode & 0o100:
                    digest = EXECUTABLE + digest  # git records the bit: a clone has it
                entry = Entry(digest, status.st_size, lines)
                if after == key and digest.removeprefix(EXECUTABLE).startswith("sha256:") \
                        and settled(status.st_mtime_ns, status.st_ctime_ns, self.started):
                    self.rows[path] = Row(row[0], digest, row[1], lines, *row[3:], SETTLED,
                                          int(tracked))
                    return entry
        if entry is None:
            self.rows.pop(path, None)
            return None
        self.rows[path] = Row(row[0], entry.digest, entry.size, entry.lines, *row[3:],
                              WATCHED, int(tracked))
        return entry

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
        """The content digest of a link's regular target, kept by the link's path with
        the target's real path, size, mtime, ctime and inode (issue 23, item 9: a large
        file outside the repo was read again by every command)."""
        key = [real, status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino]
        known = self.targets.get(path)
        if isinstance(known, list) and len(known) == 6 and known[:5] == key \
                and isinstance(known[5], str):
            self.new_targets[path] = known
            return known[5]
        digest, _, after = _hash(real)
        if after is not None and list(after) == key[1:] and digest.startswith("sha256:") \
                and settled(status.st_mtime_ns, status.st_ctime_ns, self.started):
            self.new_targets[path] = [*key, digest]
        return digest


def _read_all(fd: int, limit: int) -> bytes:
    """What the pipe holds up to its end, or past `limit` bytes a prefix of it."""
    parts: list[bytes] = []
    size = 0
    while size <= limit and (chunk := os.read(fd, _CHUNK)):
        parts.append(chunk)
        size += len(chunk)
    return b"".join(parts)


def _can_fork() -> bool:
    """A fork copies only the calling thread: with another thread running (a lock it
    holds stays held in the child) the pass stays in one process."""
    if not hasattr(os, "fork"):
        return False
    import sys  # noqa: PLC0415

    threading = sys.modules.get("threading")
    return threading is None or threading.active_count() == 1


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
