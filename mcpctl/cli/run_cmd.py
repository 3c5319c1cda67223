"""`mcpctl run NAME`: become the server, with its variables and secrets resolved."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Annotated

import typer

from mcpctl.cli.options import ConfigOption, WorkspaceOption, context
from mcpctl.config.merge import find
from mcpctl.config.view import load_view
from mcpctl.credentials.extraction import reference
from mcpctl.credentials.keyring_store import get_secret
from mcpctl.credentials.masking import masked_url
from mcpctl.credentials.redact import redact
from mcpctl.errors import ExitCode, ServerFailed, UsageError
from mcpctl.launch import child_environment, resolve_launch
from mcpctl.probing.redaction import hidden_values
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
    ctx = context(workspace, config)
    view = load_view(ctx.root, ctx.config_file)
    server = find(view.servers, name)
    if server is None:
        note = f" ({len(view.problems)} config problem(s): see mcpctl list)" if view.problems \
            else ""
        raise UsageError(f"no server named {name!r} here{note}")
    admission = admit(server, ctx.root, ctx.paths.trust_file)
    if server.winner.spec.url is not None:
        if not print_remote:
            raise UsageError(f"server {name!r} is a remote ({server.winner.spec.transport}) "
                             "server at a URL; clients connect to it themselves, so there is "
                             "nothing to start (--print shows the resolved URL and header names)")
        # Variables resolved, secrets left as their references: nothing secret printed.
        remote = resolve_launch(admission, os.environ, Path.home(), reference)
        sys.stdout.write(masked_url(remote.url or "") + "\n")
        for header in remote.headers:
            sys.stdout.write(f"header: {header}\n")
        return ExitCode.OK
    launch = resolve_launch(admission, os.environ, Path.home(), get_secret)
    # The resolved command and cwd may hold a secret: errors quote them redacted, as
    # `cost` and `doctor` do (issue 14).
    hidden = hidden_values(admission.definition.spec, launch)
    env = child_environment(os.environ, launch)
    if launch.cwd is not None:
        try:
            os.chdir(launch.cwd)
        except OSError as error:
            raise ServerFailed(redact(f"server {name!r}: cannot enter cwd {launch.cwd}: "
                                      f"{error.strerror}", hidden)) from None
    program = shutil.which(launch.argv[0], path=env.get("PATH")) if launch.argv[0] else None
    if program is None:
        raise ServerFailed(redact(f"server {name!r}: command {launch.argv[0]!r} not found on "
                                  "PATH", hidden))
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execve(program, list(launch.argv), env)  # noqa: S606 - argv, never a shell
    except OSError as error:
        raise ServerFailed(redact(f"server {name!r}: cannot start {program}: {error.strerror}",
                                  hidden)) from None
    return ExitCode.SERVER_FAILED  # not reached: execve replaced this process
