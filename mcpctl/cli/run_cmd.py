"""`mcpctl run NAME`: the typer command (help, errors); the work is in `run_start.py`."""

from __future__ import annotations

from typing import Annotated

import typer

from mcpctl.cli.options import ConfigOption, WorkspaceOption

HELP = """Start a server with its variables and secrets resolved, replacing mcpctl itself.

    stdin, stdout and stderr pass straight to the server, so an MCP client can start
    any server through mcpctl and no client file holds a token:
    {"command": "mcpctl", "args": ["run", "github"]}. mcpctl writes nothing to stdout;
    errors go to stderr. A remote (url) server is bridged: each JSON-RPC line on stdin
    is sent to it over Streamable HTTP with its headers resolved from the keyring, and
    each message it returns is written to stdout as one line. Workspace servers must be
    trusted at their current fingerprint (see: mcpctl trust).

    With --guard (the entries `mcpctl sync` writes for Claude Code's allowlist), the
    server's name is MCPCTL_GUARD_SERVER and its workspace MCPCTL_GUARD_WORKSPACE.
    --key is the machine's guard key that `sync` writes into Claude Code's entries so
    that no repo can write a line its allowlist lets start; `run` does not check it.

    Example: mcpctl run github
    """


def register(app: typer.Typer) -> None:
    app.command("run", help=HELP)(run_command)


def run_command(
    name: Annotated[str | None, typer.Argument(help="Server name.")] = None,
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
    guard: Annotated[
        bool, typer.Option("--guard", help="Start the server MCPCTL_GUARD_SERVER names in "
                           "the folder MCPCTL_GUARD_WORKSPACE names (the guard's entries).")
    ] = False,
    key: Annotated[
        str | None, typer.Option("--key", help="The machine's guard key, as Claude Code's "
                                 "entries carry it (not checked here).")
    ] = None,
) -> int:
    from mcpctl.cli.run_start import start  # noqa: PLC0415 - the work; not needed for help

    del key  # what Claude Code's allowlist matches; nothing for `run` to do with it

    if guard or name is None:
        from mcpctl.cli.run_start import guard_target  # noqa: PLC0415
        from mcpctl.errors import UsageError  # noqa: PLC0415

        if not guard:
            raise UsageError("run: give a server name (see: mcpctl run --help)")
        if name is not None or print_remote or workspace is not None or config is not None:
            raise UsageError("run --guard takes nothing but --key: the server and its "
                             "workspace come from the environment")
        name, workspace = guard_target()
    return start(name, print_remote=print_remote, allow_insecure=allow_insecure,
                 workspace=workspace, config=config)
