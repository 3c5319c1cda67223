"""Which workspace files a server runs, and their content digests (DESIGN §4).

A repo must not be able to swap the code behind an approved command line, so every
path the launch could load code from is tried, the way the launch will see it:

- the command when it holds a `/`, each argument, an option's value (`--require=./hook.js`,
  `-r./hook.js`), each token of an env value (`NODE_OPTIONS=--require ./hook.js`,
  `BASH_ENV=./evil.sh`; split at whitespace, `=` and `:`), `envFile` and the values
  it sets — each relative to the server's cwd and to the workspace root;
- the program the launch finds on the child's `PATH` (relative entries against cwd);
- the files of a Python `-m` module, and a folder run as the program (`python3 srvdir`,
  `node .`) as one bounded tree digest — also behind a wrapper (`uv run python -m x`).

Texts are expanded with every variable the launch will expand except secrets (and VS
Code inputs, which never launch): a secret is known only at launch, where
`launch.resolve_launch` checks the resolved command line again. Each path that is a
regular file (or a program folder) inside the workspace after following symlinks is
hashed. The definition's own values stay as written in the fingerprint; only which
files are pinned depends on the environment.

Bounded: MAX_FILES pinned paths and MAX_BYTES hashed per server, MAX_TREE_ENTRIES per
program folder. Past a bound the set holds an `unpinned:` marker where a digest would
be, and the gate refuses the server: mcpctl never accepts a file it did not hash.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from mcpctl.errors import ConfigError
from mcpctl.fingerprint import PinnedFile
from mcpctl.model import ServerSpec
from mcpctl.variables import Context, UnresolvedVariable, expand

MAX_FILES = 32
MAX_BYTES = 64 * 1024 * 1024
MAX_TREE_ENTRIES = 1000
MAX_ENV_FILE_BYTES = 1024 * 1024  # a bigger envFile's values are read only at launch
UNPINNED = "unpinned:"  # a marker in place of a digest: the gate refuses the server
NO_ENVIRONMENT: Mapping[str, str] = MappingProxyType({})

_CHUNK = 1024 * 1024
_AT_LAUNCH = "\0"  # what a secret expands to here: known only at launch, never a path
# `.git` is the repo's own store; `__pycache__` is what Python writes next to the code
# it imports on the first run (a folder that changed by running would never be trusted).
_NOT_IN_TREES = frozenset({".git", "__pycache__"})
_ENV_SEPARATORS = re.compile(r"[\s=:]+")
_PYTHON = re.compile(r"(?:python|pypy)[0-9.]*")


@dataclass(frozen=True)
class Reach:
    """What a launch runs, as text after expansion; None where it is known only at launch."""

    argv: Sequence[str | None]
    cwd: str | None  # absolute; None: the root
    env_file: str | None
    env: Mapping[str, str | None]  # the server's own variables, the envFile's included
    path: str | None  # the PATH the child searches for argv[0]


@dataclass(frozen=True)
class _Interpreter:
    """How a program that can run a folder (or a module) reads its command line."""

    valued: frozenset[str]  # options whose value is the next argument
    inline: frozenset[str]  # options that give the code inline: no program follows
    module: str = ""  # the option naming a module to run instead of a program
    clustered: str = ""  # short options that take the rest of a cluster (`-um mod`)


_PYTHON_CLI = _Interpreter(frozenset({"-W", "-X", "--check-hash-based-pycs"}),
                           frozenset({"-c"}), module="-m", clustered="cmWX")
_NODE_CLI = _Interpreter(frozenset({"-r", "--require", "--import", "--loader",
                                    "--experimental-loader", "-C", "--conditions",
                                    "--input-type", "--title"}),
                         frozenset({"-e", "--eval", "-p", "--print"}))
_RUNNER_CLI = _Interpreter(frozenset({"-p", "--package"}), frozenset({"-c", "--call"}))
_INTERPRETERS = {"node": _NODE_CLI, "nodejs": _NODE_CLI, "bun": _NODE_CLI,
                 "npx": _RUNNER_CLI, "bunx": _RUNNER_CLI, "pnpx": _RUNNER_CLI}


def pinned_files(spec: ServerSpec, root: Path, *, environ: Mapping[str, str] = NO_ENVIRONMENT,
                 home: Path | None = None, lookups: Lookups | None = None) -> list[PinnedFile]:
    """The pinned set of a definition, expanded with the environment its launch will get."""
    if spec.command is None:
        return []
    return pins_of(reach_of(spec, root, environ, home), root, lookups)


def unpinned_reason(files: Sequence[PinnedFile]) -> str | None:
    """Why the set cannot be trusted (its first marker), or None when every file is hashed."""
    for path, digest in files:
        if digest.startswith(UNPINNED):
            return f"{path}: {digest.removeprefix(UNPINNED)}"
    return None


# ---- from a definition to what its launch reaches ----------------------------------------

def reach_of(spec: ServerSpec, root: Path, environ: Mapping[str, str],
             home: Path | None) -> Reach:
    context = Context(root, home or root, environ, lambda _name: _AT_LAUNCH)

    def known(text: str) -> str | None:
        if "${" not in text:
            return text
        if home is None and "${userHome}" in text:
            return None
        try:
            return expand(text, context, server=spec.name, field="")
        except UnresolvedVariable:
            return None  # the launch refuses it too (unset variable, input, unknown)

    env_file = known(spec.env_file) if spec.env_file is not None else None
    env: dict[str, str | None] = {}
    if env_file is not None:
        env.update(_env_file_values(_absolute(env_file, root, home)))
    env.update({key: known(text) for key, text in spec.env.items()})
    path = env["PATH"] if "PATH" in env else environ.get("PATH", os.defpath)
    cwd = known(spec.cwd) if spec.cwd is not None else None
    folder = _absolute(cwd, root, home) if cwd is not None else None
    return Reach(argv=[known(text) for text in spec.argv()],
                 cwd=str(folder) if folder is not None else None,
                 env_file=env_file, env=env, path=path)


def _absolute(text: str, root: Path, home: Path | None) -> Path | None:
    """Where the launch looks for it: `~` is home, a relative path is under the root."""
    if _AT_LAUNCH in text:
        return None
    if text == "~" or text.startswith("~/"):
        return None if home is None else home / text[2:]
    return root / text  # an absolute `text` stays as it is


def _env_file_values(path: Path | None) -> dict[str, str]:
    # The launch's own parser; imported here because launch imports this module's callers.
    from mcpctl.launch import read_env_file  # noqa: PLC0415

    try:
        if path is None or not path.is_file() or path.stat().st_size > MAX_ENV_FILE_BYTES:
            return {}
        return read_env_file(path)
    except (OSError, ValueError, ConfigError):
        return {}  # unreadable here: the launch reads it again and its values are checked


# ---- from what a launch reaches to the pinned set ----------------------------------------

FILE, PROGRAM, MODULE = "file", "program", "module"  # what a candidate may be
_Hit = tuple[Path, bool]  # (real path, is a program folder)


class Lookups:
    """What one command (a `list`, a `trust`) learns once for all the servers it pins:
    the workspace's real path and where each program is on PATH. A launch never shares
    one: it looks again."""

    def __init__(self) -> None:
        self.real_roots: dict[Path, Path] = {}
        self.programs: dict[tuple[str | None, str | None, str, Path], _Hit | None] = {}

    def real_root(self, root: Path) -> Path:
        if root not in self.real_roots:
            self.real_roots[root] = Path(os.path.realpath(root))
        return self.real_roots[root]

    def program(self, command: str | None, path: str | None, cwd: str,
                real_root: Path) -> _Hit | None:
        key = (command, path, cwd, real_root)
        if key not in self.programs:
            found = _on_path(command, path, cwd)
            self.programs[key] = None if found is None \
                else _inside(found, real_root, folder_ok=False)
        return self.programs[key]


def pins_of(reach: Reach, root: Path, lookups: Lookups | None = None) -> list[PinnedFile]:
    """Every workspace file (or program folder) the launch reaches, with its digest."""
    lookups = lookups or Lookups()
    real_root = lookups.real_root(root)
    cwd = reach.cwd or str(root)
    found = dict(_named(reach, root, cwd, real_root))  # real path → is a program folder
    program = lookups.program(reach.argv[0] if reach.argv else None, reach.path, cwd,
                              real_root)
    if program is not None:
        found.setdefault(*program)
    return _digests(found, real_root)


def _named(reach: Reach, root: Path, cwd: str, real_root: Path) -> Iterator[_Hit]:
    """Each candidate the launch could load, where it is a workspace file (or folder)."""
    wanted: dict[tuple[str, bool], bool] = {}  # (text, is a module stem) → folder allowed
    for text, kind in _candidates(reach):
        key = (text, kind == MODULE)
        wanted[key] = wanted.get(key, False) or kind == PROGRAM
    bases = list(dict.fromkeys([cwd, str(root)]))
    for (text, module), folder_ok in wanted.items():
        paths = [found for base in _module_bases(reach, cwd, str(root))
                 for found in _module_files(os.path.join(base, text))] if module \
            else [os.path.join(base, text) for base in bases]
        for path in paths:
            hit = _inside(path, real_root, folder_ok=folder_ok)
            if hit is not None:
                yield hit


def _candidates(reach: Reach) -> Iterator[tuple[str, str]]:
    """(path text, FILE/PROGRAM/MODULE) for everything the launch could load code from."""
    command, *args = reach.argv or [None]
    if command and "/" in command:  # else exec looks for it on PATH only: see _on_path
        yield command, FILE
    for arg in args:
        if arg:
            yield from ((text, FILE) for text in _option_paths(arg) if text)
    for value in reach.env.values():
        if value:
            yield value, FILE
            for token in _ENV_SEPARATORS.split(value):
                yield from ((text, FILE) for text in _option_paths(token) if text)
    if reach.env_file:
        yield reach.env_file, FILE
    # The interpreter may come after a wrapper: `uv run python -m x`, `env A=1 node .`.
    for index, word in enumerate(reach.argv):
        name = os.path.basename(word or "")
        cli = _PYTHON_CLI if _PYTHON.fullmatch(name) else _INTERPRETERS.get(name)
        if cli is not None:
            yield from _program(reach.argv[index + 1:], cli)
            return


def _option_paths(arg: str) -> Iterator[str]:
    """An argument is a path; an option's value may be one (`--x=PATH`, `-xPATH`)."""
    if not arg.startswith("-"):
        yield arg
        return
    _, equals, value = arg.partition("=")
    if equals:
        yield value
    elif not arg.startswith("--") and len(arg) > 2:
        yield arg[2:]


def _program(args: Sequence[str | None], cli: _Interpreter) -> Iterator[tuple[str, str]]:
    """The interpreter's program (which may be a folder) or module: its first non-option."""
    expecting = ""  # the option whose value the next argument is
    for arg in args:
        if arg is None:
            return  # known only at launch
        if expecting:
            if expecting == cli.module:
                yield from _module_stems(arg)
                return
            expecting = ""
            continue
        if not arg.startswith("-") or arg == "-":
            yield arg, PROGRAM
            return
        option, value = _option(arg, cli)
        if option in cli.inline:
            return
        if option == cli.module and value:
            yield from _module_stems(value)
            return
        if option == cli.module or (option in cli.valued and value is None):
            expecting = option


def _option(arg: str, cli: _Interpreter) -> tuple[str, str | None]:
    """(option, the value given in the same argument, if any)."""
    if arg.startswith("--"):
        name, equals, value = arg.partition("=")
        return name, value if equals else None
    for index, letter in enumerate(arg[1:], start=1):
        if letter in cli.clustered:
            return "-" + letter, arg[index + 1:] or None
    return arg, None


def _module_stems(name: str) -> Iterator[tuple[str, str]]:
    """`-m a.b` loads a/__init__, then a/b as a module, or as a package and its __main__."""
    parts = name.split(".")
    if not all(part.isidentifier() for part in parts):
        return
    for depth in range(1, len(parts)):
        yield os.path.join(*parts[:depth], "__init__"), MODULE
    yield os.path.join(*parts), MODULE
    yield os.path.join(*parts, "__init__"), MODULE
    yield os.path.join(*parts, "__main__"), MODULE


def _module_bases(reach: Reach, cwd: str, root: str) -> list[str]:
    # `python -m` searches the cwd, then PYTHONPATH (relative entries from the cwd).
    python_path = reach.env.get("PYTHONPATH") or ""
    entries = [os.path.join(cwd, entry) for entry in python_path.split(os.pathsep) if entry]
    return list(dict.fromkeys([cwd, *entries, root]))


def _module_files(stem: str) -> Iterator[str]:
    """Source, bytecode and extension modules of `stem` (Python tries extensions first)."""
    folder, name = os.path.split(stem)
    try:
        names = os.listdir(folder)
    except (OSError, ValueError):
        return
    for found in names:
        if found in (f"{name}.py", f"{name}.pyc") or (
                found.startswith(f"{name}.") and found.endswith(".so")):
            yield os.path.join(folder, found)


def _on_path(command: str | None, path: str | None, cwd: str) -> str | None:
    """The program `shutil.which` (run) and exec (probes) find: relative entries from cwd."""
    if not command or "/" in command or _AT_LAUNCH in command or path is None:
        return None
    for entry in path.split(os.pathsep):
        candidate = os.path.join(cwd, entry, command)
        try:
            if not stat.S_ISDIR(os.stat(candidate).st_mode) and os.access(candidate, os.X_OK):
                return candidate
        except (OSError, ValueError):
            continue
    return None


def _inside(candidate: str, real_root: Path, *, folder_ok: bool) -> tuple[Path, bool] | None:
    """(real path, is a folder) when `candidate` is a workspace file (or allowed folder)."""
    if not candidate or _AT_LAUNCH in candidate:
        return None
    try:
        # One stat first: most arguments are not files, and realpath costs a stat per
        # path component (1,000 servers in a workspace must still list fast).
        mode = os.stat(candidate).st_mode
        folder = stat.S_ISDIR(mode)
        if not (stat.S_ISREG(mode) or (folder and folder_ok)):
            return None
        real = Path(os.path.realpath(candidate))
        if not real.is_relative_to(real_root):
            return None
    except (OSError, ValueError):
        return None
    return real, folder


# ---- digests ---------------------------------------------------------------------------

def _digests(found: Mapping[Path, bool], real_root: Path) -> list[PinnedFile]:
    named = [(_relative(path, real_root, folder=folder), path, folder)
             for path, folder in found.items()]
    budget = MAX_BYTES
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
    return "sha256-tree:" + hashlib.sha256(text.encode("utf-8")).hexdigest(), used


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
