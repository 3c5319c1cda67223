"""The invocation's one `Machine` (paths, workspace root, user-tier file, environ, home,
OS), built without typer.

Built here so a fast path (`run`, `check`) can have it without importing typer; the
typer options in `options.py` build it through the same function.
"""

from __future__ import annotations

import os
from pathlib import Path

from mcpctl.machine import Machine
from mcpctl.paths import Paths


def context(workspace: Path | None, config: Path | None) -> Machine:
    """The invocation's `Machine`: built here once, then passed down."""
    from mcpctl.config.workspace import find_workspace_root  # noqa: PLC0415

    paths = Paths.from_environment(os.environ)
    root = workspace.resolve() if workspace is not None else find_workspace_root(Path.cwd())
    return Machine.current(paths, config.absolute() if config is not None else paths.config_file,
                           root)
