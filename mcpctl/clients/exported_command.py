"""Which mcpctl the entries of `export` and `sync` run when none is set (DESIGN §11).

`mcpctl` when the running console script lies in a folder every client's PATH has (a
GUI client started from the desktop gets only the system folders), else the absolute
path it was started by (`~/.local/bin/mcpctl` for a `uv tool` or `pipx` install), so a
client with a short PATH still finds it. Run another way (`python -m mcpctl`), the name
is all there is, and the client's PATH decides.

Every client then runs that program, from any folder, for as long as the entry stays.
One inside a git work tree (a venv in a clone, an editable install of a checkout) runs
whatever a later pull or checkout puts there, which whoever writes that repo decides.
So it is the last choice: an `mcpctl` on PATH that no work tree holds wins, and when
there is none the running one is still written (it is what the user ran, and it works)
with a warning naming it and the work tree.

A path that the work tree's git ignores is not held by it: a checkout or pull never
touches an ignored file. So `~/.pyenv` (a clone of pyenv, whose `versions/` holds the
interpreter a `uv tool` venv links to) does not hold mcpctl (issue 26), and neither
does a plain install into an ignored `.venv` of some clone.
"""

import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

DEFAULT_COMMAND = "mcpctl"
# Folders on the PATH of a client started from a desktop session (launchd, systemd).
STANDARD_FOLDERS = ("/usr/local/bin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/sbin",
                    "/sbin", "/opt/homebrew/bin")
_NAMES = ("mcpctl", "mcpctl.exe")


class ExportedCommand(NamedTuple):
    command: str
    warning: str | None = None  # a work tree holds it, and no other mcpctl was found
    note: str | None = None  # a work tree holds the running mcpctl; another one is named


class Program(NamedTuple):
    """An mcpctl that entries could run, and the git work tree that holds it, its
    interpreter or its code (None: none does)."""

    path: str
    work_tree: Path | None


def choose_command(running: Program, others: Iterable[Program],
                   standard: Sequence[str] = STANDARD_FOLDERS) -> ExportedCommand:
    """Pure: the running mcpctl unless a work tree holds it, else the first of `others`
    none holds, else the running one with a warning."""
    if running.work_tree is None:
        return ExportedCommand(running.path)
    for other in others:
        if other.work_tree is None:
            command = DEFAULT_COMMAND if os.path.dirname(other.path) in standard \
                else other.path
            return ExportedCommand(command, note=(
                f"the running mcpctl ({running.path}) lies in the git work tree "
                f"{running.work_tree}; exported entries run {other.path}, found on PATH"))
    return ExportedCommand(running.path, warning=(
        f"exported entries run {running.path}, which lies in the git work tree "
        f"{running.work_tree}: a commit or checkout there changes what every client runs; "
        "install mcpctl outside it (uv tool install, pipx) or set the command with "
        "`mcpctl clients command PATH`"))


def default_command(argv: Sequence[str], standard: Sequence[str] = STANDARD_FOLDERS, *,
                    search_path: str | None = None, interpreter: str | None = None,
                    code: str | None = None) -> ExportedCommand:
    """The command for the running mcpctl, started as `argv`. The running console
    script is kept as invoked (made absolute, not resolved, so a link such as
    `~/.local/bin/mcpctl` survives upgrades); `interpreter` (sys.executable) and `code`
    (mcpctl's package folder) are what it runs, `search_path` the PATH to look on."""
    script = argv[0] if argv else ""
    if Path(script).name not in _NAMES or not os.path.isfile(script):
        return ExportedCommand(DEFAULT_COMMAND)
    running = os.path.abspath(script)
    if os.path.dirname(running) in standard:
        return ExportedCommand(DEFAULT_COMMAND)
    own = Program(running, work_tree_of(running, interpreter or sys.executable,
                                        code or str(Path(__file__).resolve().parent.parent)))
    path = os.environ.get("PATH", "") if search_path is None else search_path
    return choose_command(own, _on_path(path, running), standard)


def work_tree_of(*paths: str) -> Path | None:
    """The nearest folder with a `.git` (a folder, or a file in a linked worktree) that
    holds any of `paths`, as written or with links resolved, unless its git ignores
    that path."""
    for path in paths:
        for spelling in dict.fromkeys((os.path.abspath(path), os.path.realpath(path))):
            folder = Path(spelling)
            for candidate in (folder, *folder.parents):
                if os.path.lexists(candidate / ".git"):
                    if not _ignored(candidate, folder):
                        return candidate
                    break  # the nearest work tree decides for this spelling
    return None


def _ignored(tree: Path, path: Path) -> bool:
    """Does the git of `tree` ignore `path`? Asked with the repo's own configuration
    neutralised, as pinning asks (issue 11); no answer counts as "not ignored", which
    keeps the warning."""
    from mcpctl.pinning.git import GitUnavailable, ignores  # noqa: PLC0415 - export only

    if path.is_dir():  # mcpctl's code: judged by its package's own first file
        path = path / "__init__.py"
    try:
        return ignores(tree, path.relative_to(tree).as_posix(), os.environ)
    except (GitUnavailable, ValueError):
        return False


def _on_path(search_path: str, running: str) -> Iterator[Program]:
    """Every other `mcpctl` on `search_path`, in order, with what holds it (lazily: the
    first one outside every work tree ends the search). A relative folder would be
    looked up from whatever folder the client starts in, so it is skipped."""
    for folder in search_path.split(os.pathsep):
        candidate = os.path.join(folder, DEFAULT_COMMAND)
        if not os.path.isabs(folder) or not os.path.isfile(candidate) \
                or not os.access(candidate, os.X_OK) or _same_file(candidate, running):
            continue
        yield Program(candidate, work_tree_of(candidate, *_interpreter_of(candidate)))


def _same_file(one: str, other: str) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False


def _interpreter_of(script: str) -> list[str]:
    """The program a `#!` line names (what a console script runs), if it names one."""
    try:
        with open(script, "rb") as handle:
            first = handle.readline(4096)
    except OSError:
        return []
    words = first[2:].decode("utf-8", "replace").split() if first.startswith(b"#!") else []
    return words[:1] if words and os.path.isabs(words[0]) else []
