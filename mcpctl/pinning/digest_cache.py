"""The digest cache: what mcpctl last saw of a workspace, one SQLite file per workspace
(issues 11 and 24).

`<cache>/pins/<sha256 of the real root>.db` holds a row per path — digest, size, lines,
and mcpctl's own stat of the file when it hashed it — keyed by the path's bytes (git's
order), so a launch reads the few rows it needs without loading the rest, and a change
report or a new approval walks them in order. `meta` holds, per git repository of the
workspace, what must be unchanged for git's answer to cover everything (its tracked
list, its ignore rules, its nested repositories), and the set digests already computed.

The cache is the user's (a repo cannot write there). A row's stat is used only while
size, mtime, ctime and inode are what mcpctl saw: any write moves the ctime, which no
unprivileged process can set back. A file still within `git_index.SETTLED_NS` of its
last write when hashed is WATCHED: hashed again on every start. Anything unreadable,
malformed or of another version is ignored and rebuilt; the file is replaced
atomically (written beside, then renamed), so two commands that race each write a
whole cache and the last one stays. A cache written by a detached writer
(`workspace._save_aside`) is announced by its lock, `<name>.lock`: a start waits for
that writer (`load`, at most WAIT_SECONDS) rather than run the exact pass again.

Size, measured: about 145 bytes a path (SQLite's B-tree of the path, a 71-character
digest, nine integers): 14 MB for 100,000 files, 146 MB for 1,000,000.
"""


import contextlib
import json
import os
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from mcpctl.sha256 import sha256_hex

if TYPE_CHECKING:
    import sqlite3

SCHEMA_VERSION = 3
SETTLED, WATCHED, SKIPPED, ABSENT = 0, 1, 2, 3  # row flags
# SETTLED: in the set and in its repository's private index; WATCHED: in the set,
# re-evaluated on every start (unsettled, a symlink, a special or unreadable file);
# SKIPPED: untracked bytecode, not in the set; ABSENT: tracked by git, not on disk.


class Row(NamedTuple):
    path: str
    digest: str
    size: int
    lines: int
    mtime: int  # ns
    ctime: int  # ns
    ino: int
    mode: int
    uid: int
    gid: int
    flag: int
    tracked: int = 0  # 1: git tracks it (its executable bit is pinned, as git records it)


NO_ROWS: Mapping[str, Row] = {}
WAIT_SECONDS = 60.0  # for a cache another command's writer is still writing


def cache_file(cache_dir: Path, real_root: str) -> Path:
    name = sha256_hex(real_root.encode("utf-8", "surrogateescape"))
    return cache_dir / "pins" / f"{name}.db"


def index_file(cache_dir: Path, trailer: str) -> Path:
    """A private git index, named by its own checksum: written once, never changed, so
    the cache names exactly the index its rows were written with."""
    return cache_dir / "pins" / f"{trailer}.index"


class Memo:
    """What is learnt from a cache after it is written (a set digest, a change report),
    kept beside it in `<name>.memo` and tied to it by its generation: read only while
    the cache there is that generation. One can be made for a cache still being written
    (`writing`), since its generation is chosen before."""

    def __init__(self, path: Path, generation: str | None = None) -> None:
        self.path = path
        self._generation = generation
        self._memo: dict[str, str] | None = None

    def generation(self) -> str | None:
        return self._generation

    def _memos(self) -> dict[str, str]:
        if self._memo is None:
            self._memo = {}
            try:
                data = json.loads(self.path.with_suffix(".memo").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return self._memo
            if isinstance(data, dict) and data.get("generation") == self.generation() \
                    and isinstance(data.get("values"), dict):
                self._memo = {str(k): str(v) for k, v in data["values"].items()}
        return self._memo

    def recall(self, key: str) -> str | None:
        return self._memos().get(key)

    def remember(self, key: str, value: str) -> None:
        """Kept for the next command on this cache (a race loses one: it is computed
        again)."""
        from mcpctl.errors import ConfigError  # noqa: PLC0415
        from mcpctl.files.atomic import atomic_write_text  # noqa: PLC0415

        memos = self._memos()
        memos[key] = value
        with contextlib.suppress(ConfigError):
            atomic_write_text(self.path.with_suffix(".memo"), json.dumps(
                {"generation": self.generation(), "values": memos}), mode=0o600)


class Cache(Memo):
    """An open cache. Its file is written once and never changed (opened immutable: no
    lock, no journal, and a replacement by another command is not seen)."""

    def __init__(self, connection: "sqlite3.Connection", path: Path) -> None:
        super().__init__(path)
        self._db = connection

    def generation(self) -> str | None:
        return self.meta("generation")

    def broken(self) -> Exception:
        """What a read that failed after the fast path answered becomes: a clear error
        (the next command, finding the file unreadable, runs the exact pass)."""
        from mcpctl.errors import ConfigError  # noqa: PLC0415

        with contextlib.suppress(OSError):  # so the next command rebuilds it
            os.unlink(self.path)
        return ConfigError(f"the digest cache {self.path} was unreadable and is removed; "
                           "run the command again (it is rebuilt)")

    def meta(self, key: str) -> str | None:
        found = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return found[0] if found else None

    def row(self, path: str) -> Row | None:
        found = self._db.execute("SELECT * FROM rows WHERE path = ?",
                                 (path.encode("utf-8", "surrogateescape"),)).fetchone()
        return _row(found) if found else None

    def rows(self, flag: int | None = None) -> Iterator[Row]:
        """Every row in path order (or those with `flag`)."""
        found = self._db.execute("SELECT * FROM rows ORDER BY path") if flag is None \
            else self._db.execute("SELECT * FROM rows WHERE flag = ? ORDER BY path", (flag,))
        for values in found:
            yield _row(values)

    def under(self, folder: str) -> dict[str, Row]:
        """The rows under `folder` (which ends in `/`)."""
        low = folder.encode("utf-8", "surrogateescape")
        high = low[:-1] + b"0"  # the byte after `/`
        return {row.path: row for row in map(_row, self._db.execute(
            "SELECT * FROM rows WHERE path >= ? AND path < ?", (low, high)))}

    def unsettled(self) -> list[Row]:
        """The rows not settled, from their own index: without `INDEXED BY`, SQLite
        scans the whole table in path order rather than sort a few rows (every start
        read 14 MB at 100,000 files)."""
        return [_row(found) for found in self._db.execute(
            "SELECT * FROM rows INDEXED BY flagged WHERE flag != 0 ORDER BY path")]

    def close(self) -> None:
        self._db.close()


def _row(found: tuple[object, ...]) -> Row:
    return Row(os.fsdecode(found[0]), *found[1:])  # type: ignore[arg-type]


def load(cache_dir: Path, real_root: str) -> Cache | None:
    """The cache of `real_root`, or None when there is none or it is not usable."""
    import sqlite3  # noqa: PLC0415 - only a workspace pass needs it (4 ms)

    path = cache_file(cache_dir, real_root)
    if not _written(path):
        return None
    try:
        cache = Cache(sqlite3.connect(f"{path.as_uri()}?mode=ro&immutable=1", uri=True,
                                      check_same_thread=False), path)
    except sqlite3.Error:
        return None
    try:
        if cache.meta("schema") == str(SCHEMA_VERSION) and cache.meta("root") == real_root:
            return cache
    except sqlite3.Error:
        pass
    cache.close()
    return None


def new_generation() -> str:
    return f"{time.time_ns()}-{os.getpid()}"


def writing(cache_dir: Path, real_root: str) -> int | None:
    """The writer's lock of a cache (an open descriptor holding it), taken before a
    writer is forked and held by it until the cache is in place: a command that
    starts meanwhile waits for it (`load`). None when it cannot be had now."""
    import fcntl  # noqa: PLC0415

    path = cache_file(cache_dir, real_root).with_suffix(".lock")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # another command is writing it: this one writes in turn
        os.close(fd)
        return None
    return fd


def _written(path: Path) -> bool:
    """Whether the cache there is whole to read: True at once when no writer holds its
    lock, or once the writer lets go; False when one still holds it after WAIT_SECONDS
    (this start then reads no cache and runs the exact pass)."""
    import fcntl  # noqa: PLC0415

    try:
        fd = os.open(path.with_suffix(".lock"), os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return True  # no writer was ever forked for it
    try:
        deadline = time.monotonic() + WAIT_SECONDS
        pause = 0.002
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    return False
                time.sleep(pause)
                pause = min(pause * 2, 0.05)
            except OSError:
                return True  # a lock that cannot be taken at all is no writer's
            else:
                return True
    finally:
        os.close(fd)


def save(cache_dir: Path, real_root: str, rows: Iterable[tuple[bytes, Row]],
         meta: dict[str, str], generation: str) -> None:
    """Replace the cache with the rows (each with its path's bytes, in their order); an
    unwritable cache costs time only."""
    import sqlite3  # noqa: PLC0415
    import tempfile  # noqa: PLC0415 - writers only

    path = cache_file(cache_dir, real_root)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        os.close(fd)
    except OSError:
        return
    try:
        connection = sqlite3.connect(temp)
        with contextlib.closing(connection):
            connection.executescript(
                "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                "CREATE TABLE rows (path BLOB PRIMARY KEY, digest TEXT, size INT, lines INT,"
                " mtime INT, ctime INT, ino INT, mode INT, uid INT, gid INT, flag INT, tracked INT)"
                " WITHOUT ROWID;"
                "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
                "CREATE INDEX flagged ON rows (flag) WHERE flag != 0;")
            connection.executemany(
                "INSERT OR REPLACE INTO rows VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                [(raw, *row[1:]) for raw, row in rows])
            connection.executemany("INSERT INTO meta VALUES (?, ?)", [
                ("schema", str(SCHEMA_VERSION)), ("root", real_root),
                ("generation", generation), *meta.items()])
            connection.commit()
        os.chmod(temp, 0o600)
        os.replace(temp, path)
        with contextlib.suppress(OSError):  # the JSON cache of mcpctl before issue 24
            os.unlink(path.with_suffix(".json"))
    except (OSError, sqlite3.Error):
        pass
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
