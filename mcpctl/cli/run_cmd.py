"""`mcpctl run NAME`: the typer command (help, errors); the work is in `run_start.py`."""

from __future__ import annotations

from typing import Annotated

import typer

from mcpctl.cli.options import ConfigOption, WorkspaceOption
from mcpctl.cli.run_start import HELP, start


def register(app: typer.Typer) -> None:
    app.command("run", help=HELP)(run_command)


def run_command(
    name: Annotated[str, typer.Argument(help="Server name.")],
    print_remote: Annotated[
        bool, typer.Option("--print", help="For a url server: print the resolved URL and "
                           "header names (never header values).")
    ] = False,
    allow_insecure: Annotated[
        bool, typer.Option("--allow-insecure", help="For a url server: allow plain http:// "
                           "to a non-loopback host.")
    ] = False,
    workspace: WorkspaceOption = None,
    config: ConfigOption = None,
) -> int:
    return start(name, print_remote=print_remote, allow_insecure=allow_insecure,
                 workspace=workspace, config=config)
