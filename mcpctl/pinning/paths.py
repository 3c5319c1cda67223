"""Where a launch's candidates are: the workspace files (or program folders) they name,
relative to the server's cwd and to the workspace root, and `-m` modules on Python's
search path (the program the launch finds on the child's `PATH`: `program.py`).

A candidate counts when it is a regular file (or a program folder) inside the
workspace after following symlinks.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from mcpctl.pinning.candidates import candidates
from mcpctl.pinning.interpreters import MODULE, PROGRAM
from mcpctl.pinning.program import AT_LAUNCH
from mcpctl.pinning.reach import Reach

Hit = tuple[Path, bool]  # (real path, is a program folder)


def named(reach: Reach, root: Path, cwd: str, real_root: Path) -> Iterator[Hit]:
    """Each candidate the launch could load, where it is a workspace file (or folder)."""
    wanted: dict[tuple[str, bool], bool] = {}  # (text, is a module stem) → folder allowed
    for text, kind in candidates(reach):
        key = (text, kind == MODULE)
        wanted[key] = wanted.get(key, False) or kind == PROGRAM
    bases = list(dict.fromkeys([cwd, str(root)]))
    for (text, module), folder_ok in wanted.items():
        paths = [found for base in _module_bases(reach, cwd, str(root))
                 for found in _module_files(os.path.join(base, text))] if module \
            else [os.path.join(base, text) for base in bases]
        for path in paths:
            hit = inside(path, real_root, folder_ok=folder_ok)
            if hit is not None:
                yield hit


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


def inside(candidate: str, real_root: Path, *, folder_ok: bool) -> Hit | None:
    """(real path, is a folder) when `candidate` is a workspace file (or allowed folder)."""
    if not candidate or AT_LAUNCH in candidate:
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
