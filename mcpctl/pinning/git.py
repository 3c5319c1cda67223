"""The files git would hand a clone: tracked ones and untracked ones not ignored.

Git is run with the repo's own configuration neutralised (issue 11, item 2): a repo's
`.git/config` can name programs git runs (`core.fsmonitor`, hooks, filters, a pager,
credential or ssh helpers), and pinning must never execute the repo's code. So:

- `-c core.fsmonitor=` and `core.untrackedCache=false` (the fsmonitor hook is what
  `ls-files --others` would otherwise start), `core.hooksPath=/dev/null`;
- no system or global config (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`), no
  inherited `GIT_*` variable (`GIT_DIR`, `GIT_INDEX_FILE` would point git elsewhere);
- no pager, no prompts, stdin closed, a timeout, and an output cap.

Only `rev-parse`, `ls-files` and `diff-files --name-only` are run; none applies filters
or runs aliases. A worktree that git places elsewhere (`core.worktree`) is not this
folder: the caller then walks the folder instead.
"""


import contextlib
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from mcpctl.sha256 import sha256_hex

TIMEOUT = 30.0
MAX_OUTPUT = 256 * 1024 * 1024  # NUL-separated paths; the file bound is checked after
_CHUNK = 1024 * 1024
_NEUTRAL = ("-c", "core.fsmonitor=", "-c", "core.untrackedCache=false",
            "-c", "core.hooksPath=/dev/null", "-c", "core.pager=cat",
            "-c", "core.quotePath=false", "--no-pager", "--no-optional-locks")


TRACKED, UNTRACKED, NESTED, IGNORED = "tracked", "untracked", "nested", "ignored"


class GitUnavailable(Exception):
    """Git is missing, refused the folder, or it is not a work tree of its own."""


def git_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The caller's environment without git's own variables, plus the neutral ones."""
    env = {key: value for key, value in environ.items() if not key.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0",
               GIT_PAGER="cat", PAGER="cat", GIT_ASKPASS="", SSH_ASKPASS="",
               GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    return env


def git_program(environ: Mapping[str, str]) -> str:
    """Git from the absolute entries of PATH only: a `.` entry would find the repo's own
    `git`, which is exactly the code pinning must not run."""
    for entry in environ.get("PATH", os.defpath).split(os.pathsep):
        found = os.path.join(entry, "git")
        # As `shutil.which` finds it (which would bring the compression modules along).
        if os.path.isabs(entry) and os.path.isfile(found) and os.access(found, os.X_OK):
            return found
    raise GitUnavailable("git is not on PATH")


def _git_outputs(folder: Path, commands: Sequence[list[str]], environ: Mapping[str, str],
                 *, timeout: float = TIMEOUT, max_output: int = MAX_OUTPUT,
                 index_files: Sequence[str | None] = ()) -> list[bytes]:
    """Each command's stdout (`GitRound`)."""
    with GitRound(folder, commands, environ, timeout=timeout, max_output=max_output,
                  index_files=index_files) as round_:
        return round_.outputs()


class GitRound:
    """Gits started side by side (each takes a few milliseconds to start, and `list`
    needs three), all within one `timeout`; the caller may do other work before it
    asks for their `outputs`. An output past `max_output` stops its git. Spawned with
    `os.posix_spawn`: importing `subprocess` (and the threading, signal, selectors and
    locale modules it brings) would cost `list` 15 M instructions, 6 ms here (issue
    15). `index_files[i]`, if given, is the index command i reads instead of the
    repo's (`GIT_INDEX_FILE`). Leaving the `with` stops every git still running."""

    def __init__(self, folder: Path, commands: Sequence[list[str]],
                 environ: Mapping[str, str], *, timeout: float = TIMEOUT,
                 max_output: int = MAX_OUTPUT,
                 index_files: Sequence[str | None] = ()) -> None:
        program, env = git_program(environ), git_environment(environ)
        self.timeout, self.max_output = timeout, max_output
        self.deadline = time.monotonic() + timeout
        self.runs: list[_Run] = []
        try:
            for number, args in enumerate(commands):
                index = index_files[number] if number < len(index_files) else None
                own = env if index is None else {**env, "GIT_INDEX_FILE": index}
                self.runs.append(_Run([program, "-C", str(folder), *_NEUTRAL, *args], own))
        except OSError as error:
            self.stop()  # those started before the failure are not left running
            raise GitUnavailable(str(error)) from None

    def __enter__(self) -> "GitRound":
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def outputs(self) -> list[bytes]:
        try:
            _read_all(self.runs, self.deadline, self.max_output)
        except TimeoutError:
            raise GitUnavailable(f"git did not finish within {self.timeout:g} s") from None
        except OSError as error:
            raise GitUnavailable(str(error)) from None
        finally:
            self.stop()  # none is left running, whatever ended the wait
        for run in self.runs:
            if run.status != 0 or len(run.out) > self.max_output:
                raise GitUnavailable(bytes(run.err).decode("utf-8", "replace").strip()[:200])
        return [bytes(run.out) for run in self.runs]

    def stop(self) -> None:
        for run in self.runs:
            run.stop()


class _Run:
    """One git: stdin from /dev/null, stdout and stderr into pipes read by `_read_all`.
    The pipes' own ends are close-on-exec (Python's default), so git holds only the
    three descriptors it is given, besides any its caller left inheritable."""

    __slots__ = ("err", "out", "pid", "readers", "status")

    def __init__(self, argv: list[str], env: Mapping[str, str]) -> None:
        self.out, self.err = bytearray(), bytearray()
        self.status: int | None = None
        opened: list[int] = []
        try:
            out_read, out_write = os.pipe()
            opened += (out_read, out_write)
            err_read, err_write = os.pipe()
            opened += (err_read, err_write)
            self.pid = os.posix_spawn(argv[0], argv, env, file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, out_write, 1), (os.POSIX_SPAWN_DUP2, err_write, 2)])
        except OSError:
            for fd in opened:
                os.close(fd)
            raise
        os.close(out_write)  # git holds its own copies now
        os.close(err_write)
        self.readers = {out_read: self.out, err_read: self.err}

    def stop(self) -> None:
        """Kill git if it still runs, reap it, and close what is still open."""
        for fd in self.readers:
            os.close(fd)
        self.readers = {}
        if self.status is None:
            import signal  # noqa: PLC0415 - a git that did not end: rare

            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self.reap()

    def reap(self) -> None:
        _, wait_status = os.waitpid(self.pid, 0)
        self.status = os.waitstatus_to_exitcode(wait_status)


def _read_all(runs: Sequence[_Run], deadline: float, max_output: int) -> None:
    """Read every pipe to its end (or a git's stdout past `max_output`), then reap;
    TimeoutError past `deadline`."""
    import select  # noqa: PLC0415 - only when git runs

    owner = {fd: run for run in runs for fd in run.readers}
    poller = select.poll()
    for fd in owner:
        poller.register(fd, select.POLLIN)
    while owner:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        for fd, _ in poller.poll(left * 1000):
            if fd not in owner:  # closed above, with its git's other pipe
                continue
            run = owner[fd]
            chunk = os.read(fd, _CHUNK)
            run.readers[fd] += chunk
            flooded = len(run.out) > max_output  # more than an approval pins: git stops
            if chunk and not flooded:
                continue
            for finished in list(run.readers) if flooded else [fd]:  # or this pipe's end
                poller.unregister(finished)
                del owner[finished]
                os.close(finished)
                del run.readers[finished]
            if flooded:
                run.stop()
    for run in runs:
        if run.status is None:
            run.reap()


class Listing(NamedTuple):
    """One repository's files, and what the fast path checks to trust git's answer."""

    paths: dict[str, str]  # path → TRACKED, UNTRACKED or NESTED (see `work_tree_files`)
    tracked: str  # digest of the tracked path list (`tracked_digest`)
    rules: str | None  # digest of the ignore rules git reads outside the tree (`rules_of`)
    index_stat: list[int] | None = None  # the repo index's stat then (`index_stat`)
    loadable: str = ""  # digest of the ignored files pinned (`workspace._git_paths`)
    snapshot: str = "null"  # the folders as git walked them (`folder_snapshot`, JSON)
    inside: str = ""  # the folder's path from the repo's top, `/` at its end (`sub/`)


def work_tree_files(folder: Path, environ: Mapping[str, str]) -> dict[str, str]:
    """Path (relative, `/`-separated) → TRACKED, UNTRACKED, NESTED or IGNORED, for
    tracked and untracked files under `folder`, which must be a work tree's top level
    or a folder inside one. NESTED (a submodule or gitlink), or an untracked path that
    ends in `/` (a clone), is a repository of its own: the caller walks it. IGNORED:
    what git ignores but is there (a folder ends in `/`), which a tree delivered with
    its own `.git` may bring (issue 23, item 2). Four gits, side by side, whatever the
    workspace holds."""
    return work_tree_listing(folder, environ).paths


# Ignored paths present (a folder, collapsed, ends in `/`): `ignored.ignored_loadable`
# picks those a launch can load.
IGNORED_LISTING = ["ls-files", "-z", "--others", "--ignored", "--exclude-standard",
                   "--directory", "--no-empty-directory"]


def work_tree_listing(folder: Path, environ: Mapping[str, str]) -> Listing:
    # `-s` gives each index entry's mode: 160000 is a submodule (no lstat per file).
    top, tracked, others, ignored = _git_outputs(folder, [
        REV_PARSE, ["ls-files", "-z", "-s"],
        ["ls-files", "-z", "--others", "--exclude-standard"], IGNORED_LISTING], environ)
    git_dir, inside = _check_top(folder, top)
    before = index_stat(folder)  # taken after git read it: a later write moves its ctime
    paths = _tracked_paths(tracked.decode("utf-8", "surrogateescape"))
    tracked_list = tracked_digest(paths)
    for raw in others.split(b"\0"):
        if raw:
            paths.setdefault(raw.decode("utf-8", "surrogateescape"), UNTRACKED)
    for raw in ignored.split(b"\0"):
        if raw:
            paths.setdefault(raw.decode("utf-8", "surrogateescape"), IGNORED)
    return Listing(paths, tracked_list, rules_of(git_dir, environ), before, inside=inside)


def _tracked_paths(text: str) -> dict[str, str]:
    """Each path of `ls-files -z -s` (entries `MODE OID STAGE\tPATH`), once, in git's
    order: TRACKED, or NESTED for a gitlink (mode 160000). Split in C when no path holds
    a tab (one tab an entry), else entry by entry."""
    if text.count("\t") == text.count("\0"):
        parts = text.replace("\t", "\0").split("\0")
        metas, names = parts[0:-1:2], parts[1::2]  # the last part: after the last NUL
    else:  # a path with a tab in it
        split = [entry.partition("\t") for entry in text.split("\0") if entry]
        metas, names = [meta for meta, _, _ in split], [name for _, _, name in split]
    paths = dict.fromkeys(names, TRACKED)
    if "160000 " in text:
        for meta, name in zip(metas, names, strict=True):
            if meta.startswith("160000 "):
                paths[name] = NESTED
    return paths


def index_stat(folder: Path) -> list[int] | None:
    """(size, mtime, ctime, inode) of the repo's own index, when settled: while it is
    what it was, so is its path list (any write moves its ctime). Never its entries'
    stat data, which is the repo's to forge."""
    from mcpctl.pinning.git_index import settled  # noqa: PLC0415

    try:
        status = os.stat(os.path.join(folder, ".git", "index"))
    except OSError:
        return None
    if not settled(status.st_mtime_ns, status.st_ctime_ns, time.time_ns()):
        return None
    return [status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino]


# The top level, the git dir, and the folder's path from the top (`sub/`, or empty).
REV_PARSE = ["rev-parse", "--show-toplevel", "--absolute-git-dir", "--show-prefix"]


def _check_top(folder: Path, output: bytes) -> tuple[str, str]:
    """The git dir and the folder's path from the top (`REV_PARSE`), once git's top
    level is this folder or holds it."""
    lines = output.decode("utf-8", "surrogateescape").split("\n")
    if len(lines) < 3:
        raise GitUnavailable("git rev-parse gave no top level")
    real = os.path.realpath(folder)
    top_real = os.path.realpath(lines[0])
    if real != top_real and not real.startswith(top_real.rstrip("/") + "/"):
        raise GitUnavailable(f"git's work tree is {top_real}, not this folder")
    return lines[1], lines[2]


def tracked_digest(names: Iterable[str]) -> str:
    """One digest of the tracked paths (each once, in git's order)."""
    return sha256_hex("\0".join(names).encode("utf-8", "surrogateescape"))


def rules_of(git_dir: str, environ: Mapping[str, str]) -> str | None:
    """A digest of what git reads outside the tree to decide what is ignored: the repo's
    `info/exclude`, its config, and the user's own excludes file (`~/.config/git/ignore`,
    read even with the global config off). None when the config names an excludes file
    (its content could change unseen): the fast path is then off for this repository."""
    texts = []
    for name in (os.path.join(git_dir, "info/exclude"), os.path.join(git_dir, "config"),
                 _user_excludes(environ)):
        try:
            with open(name, "rb") as handle:
                texts.append(handle.read(1024 * 1024 + 1))
        except (FileNotFoundError, NotADirectoryError):
            texts.append(b"")
        except OSError:
            return None
    if b"excludesfile" in texts[1].lower() or b"include" in texts[1].lower() \
            or any(len(text) > 1024 * 1024 for text in texts):
        return None
    return sha256_hex(b"\0\0".join(texts))


def _user_excludes(environ: Mapping[str, str]) -> str:
    """Where git looks for the user's excludes when no config names a file."""
    xdg = environ.get("XDG_CONFIG_HOME", "")
    if os.path.isabs(xdg):
        return os.path.join(xdg, "git", "ignore")
    return os.path.join(environ.get("HOME", "/nonexistent"), ".config", "git", "ignore")


# What git compares in the private index, whatever the repo's config says: every stat
# field, the executable bit, symlinks as links, exact case, no sparse or split index.
_STAT_RULES = ("-c", "core.checkStat=default", "-c", "core.trustctime=true",
               "-c", "core.fileMode=true", "-c", "core.symlinks=true",
               "-c", "core.ignoreStat=false", "-c", "core.ignoreCase=false",
               "-c", "core.precomposeUnicode=false", "-c", "core.sparseCheckout=false",
               "-c", "index.sparse=false", "-c", "core.splitIndex=false")


class Since(NamedTuple):
    """What git says differs from a private index (`git_index.py`)."""

    tracked: str  # the repo's tracked list, as `tracked_digest`
    rules: str | None
    changed: list[str]  # paths that differ from the private index, gone, or not in it
    others: list[str]  # repositories inside (`x/`)
    index_stat: list[int] | None = None  # the repo index's, before git read it
    ignored: tuple[str, ...] = ()  # what git ignores and is there, as listed
    inside: str = ""  # the folder's path from the repo's top (`Listing.inside`)


class Changes:
    """One bounded round of git (side by side, as `git status` costs), started by
    `__init__` and read by `since`: `ls-files -m -d -o` against the private index, the
    ignored paths present, `rev-parse`, and the repo's own tracked list (its index's
    paths only: its stat data is never used) — unless `known` says (the index's stat,
    the list's digest) and the index is as it was. Without `walk` (no folder changed
    since git last walked them, `folder_snapshot`), only `diff-files`: what differs
    from the private index or is gone. Leaving the `with` stops the gits."""

    def __init__(self, folder: Path, index: Path, environ: Mapping[str, str],
                 known: tuple[list[int], str] | None = None, *, walk: bool = True) -> None:
        self.folder, self.environ, self.walk = folder, environ, walk
        self.before = index_stat(folder)
        self.known = known[1] if known is not None and self.before == known[0] else None
        # One git reads the private index once for both: `-m -d` what differs from it
        # (by stat, mode and type; a racily clean entry by content, which never
        # matches), `-o` what is not in it and not ignored (`x/`: a repository inside).
        # Without a walk, `diff-files` says the same as `ls-files -m -d` (a path whose
        # stat, mode or type differs from its entry, or that is gone; `--relative`: from
        # this folder and within it, as `ls-files` names them), but stats the entries
        # over the cores as `git status` does (`core.preloadIndex`); `ls-files` stats
        # them one by one. Names only: no diff is made, so no diff program or textconv
        # runs.
        modified = ([*_STAT_RULES, "ls-files", "-z", "-m", "-d", "-o", "--exclude-standard"]
                    if walk else
                    [*_STAT_RULES, "-c", "core.preloadIndex=true", "diff-files", "-z",
                     "--name-only", "--relative", "--ignore-submodules=all", "--no-ext-diff",
                     "--no-textconv"])
        commands = [REV_PARSE, modified]
        if walk:  # against the repo's index, as the exact pass lists them
            commands.append(IGNORED_LISTING)
        if self.known is None:
            commands.append(["ls-files", "-z"])
        self.round = GitRound(folder, commands, environ, index_files=[None, str(index)])

    def __enter__(self) -> "Changes":
        return self

    def __exit__(self, *_: object) -> None:
        self.round.stop()

    def since(self) -> Since:
        outputs = self.round.outputs()
        top, listed = outputs[:2]
        git_dir, inside = _check_top(self.folder, top)
        digest = self.known if self.known is not None else tracked_digest(dict.fromkeys(
            name for name in outputs[-1].decode("utf-8", "surrogateescape").split("\0")
            if name))
        names = [name.decode("utf-8", "surrogateescape") for name in listed.split(b"\0")
                 if name]
        return Since(digest, rules_of(git_dir, self.environ),
                     [name for name in names if not name.endswith("/")],
                     [name for name in names if name.endswith("/")], self.before,
                     tuple(name.decode("utf-8", "surrogateescape")
                           for name in outputs[2].split(b"\0") if name) if self.walk else (),
                     inside)


def ignores(tree: Path, relative: str, environ: Mapping[str, str],
            timeout: float = 5.0) -> bool:
    """Does the git of work tree `tree` ignore the file `relative` (untracked and matched
    by its ignore rules, or inside an ignored folder)? `ls-files --others --ignored`
    lists that one file exactly then; a tracked file never. For the exported command's
    choice (issue 26); GitUnavailable when git cannot say."""
    (out,) = _git_outputs(tree, [["ls-files", "-z", "--others", "--ignored",
                                  "--exclude-standard", "--", f":(literal){relative}"]],
                          environ, timeout=timeout, max_output=64 * 1024)
    return out.rstrip(b"\0") == os.fsencode(relative)

