"""Options shared by several commands, and the per-invocation context they build."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from mcpctl.paths import Paths

WorkspaceOption = Annotated[
    Path | None,
    typer.Option(
        "--workspace", "-w", help="Workspace root (default: nearest folder with .git, else cwd).",
        file_okay=False, exists=True,
    ),
]
ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", help="User-tier config file (default: <config dir>/config.toml)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print a JSON document (see schemas/).")]


@dataclass(frozen=True)
class Context:
    paths: Paths
    root: Path
    config_file: Path


def context(workspace: Path | None, config: Path | None) -> Context:
    from mcpctl.workspace import find_workspace_root  # noqa: PLC0415

    paths = Paths.from_environment(os.environ)
    root = workspace.resolve() if workspace is not None else find_workspace_root(Path.cwd())
    return Context(paths, root, config.absolute() if config is not None else paths.config_file)
