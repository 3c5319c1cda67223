"""`mcpctl run NAME`: become the server, with its variables and secrets resolved."""

from __future__ import annotations

import os
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
from mcpctl.launch import Launch, child_environment, resolve_launch
from mcpctl.probing.redaction import hidden_values
from mcpctl.trust.gate import Admission, admit


def register(app: typer.Typer) -> None:
    app.command("run")(run_command)


def bridge_remote(admission: Admission, launch: Launch, *, allow_insecure: bool) -> int:
    """A url server: stdio on this side, Streamable HTTP on the other (no process)."""
    from mcpctl.protocol.bridge import remote_of, serve  # noqa: PLC0415 - asyncio, httpx

    secrets = tuple(hidden_values(admission.definition.spec, launch))
    serve(remote_of(launch, secrets, allow_insecure=allow_insecure))
    return ExitCode.OK


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
    """Start a server with its variables and secrets resolved, replacing mcpctl itself.

    stdin, stdout and stderr pass straight to the server, so an MCP client can start
    any server through mcpctl and no client file holds a token:
    {"command": "mcpctl", "args": ["run", "github"]}. mcpctl writes nothing to stdout;
    errors go to stderr. A remote (url) server is bridged: each JSON-RPC line on stdin
    is sent to it over Streamable HTTP with its headers resolved from the keyring, and
    each message it returns is written to stdout as one line. Workspace servers must be
    trusted at their current fingerprint (see: mcpctl trust).

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
    if server.winner.spec.url is not None and print_remote:
        # Variables resolved, secrets left as their references: nothing secret printed.
        remote = resolve_launch(admission, os.environ, Path.home(), reference)
        sys.stdout.write(masked_url(remote.url or "") + "\n")
        for header in remote.headers:
            sys.stdout.write(f"header: {header}\n")
        return ExitCode.OK
    launch = resolve_launch(admission, os.environ, Path.home(), get_secret)
    if launch.url is not None:
        return bridge_remote(admission, launch, allow_insecure=allow_insecure)
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
    program = launch.program  # found once, as pinned: exec'd as it is, never searched again
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
