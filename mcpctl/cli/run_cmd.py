"""`mcpctl run NAME`: become the server, with its variables and secrets resolved."""

from __future__ import annotations

import os
import shutil
import sys
from typing import Annotated

import typer

from mcpctl.cli.options import ConfigOption, WorkspaceOption, context
from mcpctl.config.merge import named
from mcpctl.config.view import load_view
from mcpctl.credentials.extraction import reference
from mcpctl.credentials.keyring_store import get_secret
from mcpctl.credentials.masking import masked_url
from mcpctl.errors import ExitCode, ServerFailed, UsageError
from mcpctl.launch import child_environment, resolve_launch
from mcpctl.trust.gate import admit


def register(app: typer.Typer) -> None:
    app.command("run")(run_command)


def run_command(
    name: Annotated[str, typer.Argument(help="Server name.")],
    print_remote: Annotated[
        bool, typer.Option("--print", help="For a url server: print the resolved URL and "
                           "header names (never header values).")
    ] = False,
    workspace: WorkspaceOption = None,
    config: ConfigOption = None,
) -> int:
    """Start a server with its variables and secrets resolved, replacing mcpctl itself.

    stdin, stdout and stderr pass straight to the server, so an MCP client can start
    any server through mcpctl and no client file holds a token:
    {"command": "mcpctl", "args": ["run", "github"]}. mcpctl writes nothing to stdout;
    errors go to stderr. Workspace servers must be trusted at their current
    fingerprint (see: mcpctl trust).

    Example: mcpctl run github
    """
    machine = context(workspace, config)
    view = load_view(machine.root, machine.config_file)
    server = named(view.servers, name, view.problems)
    admission = admit(server, machine.root, machine.paths.trust_file, environ=machine.environ,
                      home=machine.home)
    if server.winner.spec.url is not None:
        if not print_remote:
            raise UsageError(f"server {name!r} is a remote ({server.winner.spec.transport}) "
                             "server at a URL; clients connect to it themselves, so there is "
                             "nothing to start (--print shows the resolved URL and header names)")
        # Variables resolved, secrets left as their references: nothing secret printed.
        remote = resolve_launch(admission, machine.environ, machine.home, reference)
        sys.stdout.write(masked_url(remote.url or "") + "\n")
        for header in remote.headers:
            sys.stdout.write(f"header: {header}\n")
        return ExitCode.OK
    launch = resolve_launch(admission, machine.environ, machine.home, get_secret)
    env = child_environment(machine.environ, launch)
    if launch.cwd is not None:
        try:
            os.chdir(launch.cwd)
        except OSError as error:
            raise ServerFailed(f"server {name!r}: cannot enter cwd {launch.cwd}: "
                               f"{error.strerror}") from None
    program = shutil.which(launch.argv[0], path=env.get("PATH")) if launch.argv[0] else None
    if program is None:
        raise ServerFailed(f"server {name!r}: command {launch.argv[0]!r} not found on PATH")
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execve(program, list(launch.argv), env)  # noqa: S606 - argv, never a shell
    except OSError as error:
        raise ServerFailed(f"server {name!r}: cannot start {program}: {error.strerror}") from None
    return ExitCode.SERVER_FAILED  # not reached: execve replaced this process
