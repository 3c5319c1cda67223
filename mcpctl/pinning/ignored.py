"""Which files git ignores are pinned anyway: those a launch can load (issue 23, item 2).

A clone never holds an ignored file, but a tree delivered with its own `.git` (a
tarball, a zip, a copy) can: its `.gitignore` then decides what is pinned, and a file
it ignores is present, loaded by the server and never pinned. So an ignored file is
pinned when it is present and code a launch can load — an executable file, or a name
with a code suffix — unless it lies in a folder that a package manager or interpreter
makes on the user's machine (`node_modules`, a virtual environment, caches). What those
folders hold is the residual the threat model states.

Pure but for `os.scandir`/`os.lstat` of the paths git named; bounded by `limit`.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable

# Made by the user's own tools from pinned inputs (a lockfile, pyproject.toml).
TOOL_MADE = frozenset({"node_modules", "__pycache__", ".venv", "venv", ".git", ".hg",
                       ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".nox",
                       ".cache", ".npm", ".pnpm-store", ".yarn"})
CODE_SUFFIXES = (".py", ".pyc", ".pyo", ".pyd", ".pth", ".so", ".dylib", ".node", ".wasm",
                 ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".sh",
                 ".bash", ".zsh", ".rb", ".pl", ".php", ".lua", ".jar", ".npmrc", ".pyz",
                 ".egg", ".whl")


def loadable(name: str, mode: int) -> bool:
    """Code a launch can load: a regular file that is executable or has a code suffix,
    or a symlink (what it leads to is pinned with it)."""
    if stat.S_ISLNK(mode):
        return True
    return stat.S_ISREG(mode) and (bool(mode & 0o111) or name.endswith(CODE_SUFFIXES))


def ignored_loadable(real_root: str, listed: Iterable[str], limit: int) -> list[str]:
    """Of git's ignored paths under `real_root` (a folder ends in `/`), those to pin:
    loadable files, also inside ignored folders, outside tool-made folders."""
    found: list[str] = []
    pending: list[str] = []
    prefix = real_root.rstrip("/") + "/"
    for path in listed:
        if _tool_made(path):
            continue
        if path.endswith("/"):
            pending.append(path)
            continue
        try:
            mode = os.lstat(prefix + path).st_mode
        except OSError:
            continue
        if loadable(path, mode):
            found.append(path)
    while pending and len(found) <= limit:
        folder = pending.pop()
        if os.path.lexists(f"{prefix}{folder}pyvenv.cfg"):
            continue  # a virtual environment, whatever its name
        try:
            children = list(os.scandir(prefix + folder))
        except OSError:
            continue
        for child in children:
            relative = folder + child.name
            if child.name in TOOL_MADE:
                continue
            if child.is_dir(follow_symlinks=False):
                pending.append(relative + "/")
            elif loadable(child.name, child.stat(follow_symlinks=False).st_mode):
                found.append(relative)
    return found


def _tool_made(path: str) -> bool:
    return any(part in TOOL_MADE for part in path.rstrip("/").split("/"))
