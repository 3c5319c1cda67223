"""The program a launch runs: its command found on the child's `PATH`, as exec finds it;
and where a definition's `cwd` or `envFile` text points.

Apart from `paths.py` so that `run` of a user-tier server, which needs only this
lookup, imports nothing else of pinning.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

AT_LAUNCH = "\0"  # what a secret expands to here: known only at launch, never a path


def on_path(command: str | None, path: str | None, cwd: str) -> str | None:
    """The program `shutil.which` (run) and exec (probes) find: relative entries from cwd."""
    if not command or "/" in command or AT_LAUNCH in command or path is None:
        return None
    for entry in path.split(os.pathsep):
        candidate = os.path.join(cwd, entry, command)
        try:
            if not stat.S_ISDIR(os.stat(candidate).st_mode) and os.access(candidate, os.X_OK):
                return candidate
        except (OSError, ValueError):
            continue
    return None


def located(text: str, root: Path, home: Path) -> Path:
    """Where a `cwd` or `envFile` text points, for the launch and for pinning alike:
    `~` and `~/…` are the user's home, an absolute path is itself, anything else is
    under `root`. `~name` is not expanded: a lookup in the user database names another
    user's file, or fails, while the trust prompt would show the workspace's."""
    return home / text[2:] if at_home(text) else root / text


def at_home(text: str) -> bool:
    return text == "~" or text.startswith("~/")
