"""The folders of a work tree as git last walked them, so a start can skip the walk
(issue 24).

`git ls-files -o` and the listing of ignored paths (`git.IGNORED_LISTING`) read every
folder of the tree: a second walk as costly as the stat of every file. What they say
depends only on the names in those folders, the ignore rules and the indexes; a name
added, removed or renamed in a folder moves that folder's mtime and ctime, and no
unprivileged process can set a ctime back. So after a walk mcpctl keeps each folder's
(mtime, ctime, inode), taken after git's walk but counted only when the folder was
settled (`git_index.settled`) at the moment the walk began: a folder changed while git
read it, or within a coarse clock's tick of that, makes the snapshot unusable. While
every folder is as it was, git would list the same paths, and a start asks git only
what differs from the private index (`-m -d`).

Which folders: those git walks (all but `.git`, repositories inside, which are walked
file by file anyway, and ignored folders git lists whole) and those
`ignored.ignored_loadable` walks (ignored folders, without the tool-made ones and
virtual environments). The files of the ignored paths are kept too: whether one is
pinned depends on its mode (`ignored.loadable`), which a `chmod` changes without
touching its folder, so each is stat-ed on every start (as `ignored_loadable` did).
"""

import json
import os
import stat
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from mcpctl.pinning.git_index import settled
from mcpctl.pinning.ignored import TOOL_MADE, loadable
from mcpctl.sha256 import sha256_hex


class Snapshot(NamedTuple):
    folders: list[tuple[str, int, int, int]]  # ("" or "a/b/", mtime, ctime, inode)
    ignored: list[str]  # ignored files `ignored_loadable` looks at (its mode decides)
    others: list[str]  # files git listed as not in the private index, then


def take(real_root: str, ignored: Iterable[str], nested: Iterable[str], began_ns: int,
         others: Sequence[str] = (), limit: int = 1_500_000) -> Snapshot | None:
    """The folders under `real_root` (a git work tree's top) after git listed `ignored`
    (its ignored paths; a folder ends in `/`) and the repositories inside, `nested`;
    None when one was not settled at `began_ns` (before git began), cannot be read, or
    past `limit` entries."""
    prefix = real_root.rstrip("/") + "/"
    whole = {path for path in ignored if path.endswith("/")}
    files = [path for path in ignored if not path.endswith("/") and not _tool_made(path)]
    inner = {path.rstrip("/") + "/" for path in nested}
    folders: list[tuple[str, int, int, int]] = []
    pending = [("", False)]  # (folder, inside an ignored folder)
    while pending:
        folder, inside = pending.pop()
        try:
            status = os.lstat(prefix + folder)
        except OSError:
            return None
        if not stat.S_ISDIR(status.st_mode) \
                or not settled(status.st_mtime_ns, status.st_ctime_ns, began_ns):
            return None
        folders.append((folder, status.st_mtime_ns, status.st_ctime_ns, status.st_ino))
        if inside and os.path.lexists(f"{prefix}{folder}pyvenv.cfg"):
            continue  # a virtual environment: `ignored_loadable` does not look inside
        try:
            children = list(os.scandir(prefix + folder))
        except OSError:
            return None
        for child in children:
            relative = folder + child.name
            if child.name == ".git" or (inside and child.name in TOOL_MADE):
                continue  # as `ignored_loadable` skips them
            if not child.is_dir(follow_symlinks=False):
                if inside:
                    files.append(relative)
                continue
            below = relative + "/"
            if below in inner or (below in whole and _tool_made(below)):
                continue
            pending.append((below, inside or below in whole))
        if len(folders) + len(files) > limit:
            return None
    return Snapshot(sorted(folders), sorted(files), sorted(others))


def unchanged(real_root: str, snapshot: Snapshot) -> list[str] | None:
    """The ignored files to pin (as `ignored_loadable` would find them) when every folder
    is as the snapshot has it; None when one is not (git must walk the tree)."""
    prefix = real_root.rstrip("/") + "/"
    lstat = os.lstat
    for folder, mtime, ctime, inode in snapshot.folders:
        try:
            status = lstat(prefix + folder)
        except OSError:
            return None
        if (status.st_mtime_ns, status.st_ctime_ns, status.st_ino) != (mtime, ctime, inode) \
                or not stat.S_ISDIR(status.st_mode):
            return None
    pinned = []
    for path in snapshot.ignored:
        try:
            mode = lstat(prefix + path).st_mode
        except OSError:
            return None  # gone: its folder changed too
        if loadable(path.rsplit("/", 1)[-1], mode):
            pinned.append(path)
    return pinned


def dumps(snapshot: Snapshot | None) -> str:
    """The snapshot as text, with a digest of itself: a bit flipped in a kept path of
    `others` would otherwise drop a new file from the next starts' set."""
    body = json.dumps(None if snapshot is None else list(snapshot))
    return json.dumps([sha256_hex(body.encode("utf-8", "surrogateescape")), body])


def loads(text: str | None) -> Snapshot | None:
    """A snapshot kept by `dumps`, or None when there is none, it is malformed or it
    does not match its digest."""
    try:
        digest, body = json.loads(text or "null")
        if not isinstance(body, str) \
                or sha256_hex(body.encode("utf-8", "surrogateescape")) != digest:
            return None
        data = json.loads(body)
        if data is None:
            return None
        folders, ignored, others = data
        return Snapshot([(str(path), int(mtime), int(ctime), int(inode))
                         for path, mtime, ctime, inode in folders],
                        [str(path) for path in ignored], [str(path) for path in others])
    except (ValueError, TypeError):
        return None


def _tool_made(path: str) -> bool:
    return any(part in TOOL_MADE for part in path.rstrip("/").split("/"))
