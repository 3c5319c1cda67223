"""The per-invocation context (paths, workspace root, user-tier file), without typer.

Built here so a fast path (`run`, `check`) can have it without importing typer; the
typer options in `options.py` build it through the same function.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from mcpctl.paths import Paths


@dataclass(frozen=True)
class Context:
    paths: Paths
    root: Path
    config_file: Path


def context(workspace: Path | None, config: Path | None) -> Context:
    from mcpctl.config.workspace import find_workspace_root  # noqa: PLC0415

    paths = Paths.from_environment(os.environ)
    root = workspace.resolve() if workspace is not None else find_workspace_root(Path.cwd())
    return Context(paths, root, config.absolute() if config is not None else paths.config_file)
