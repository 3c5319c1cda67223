"""`mcpctl run NAME` without typer: parse the common line, resolve the server, exec it.

Every client start of every server goes through here, so the common command line
(`run NAME`, with `--print`, `-w`/`--workspace`, `--config`) is parsed by hand in
`parse_fast` and never imports typer, which alone costs several times a bare interpreter
(issue 15). Anything else (`--help`, a typo, a workspace that is not a folder) goes to
the typer command in `run_cmd.py`, which gives the usual help and errors.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mcpctl.cli.context import context
from mcpctl.config.merge import named
from mcpctl.config.view import load_view
from mcpctl.credentials.extraction import reference
from mcpctl.credentials.keyring_store import get_secret
from mcpctl.credentials.masking import masked_url
from mcpctl.credentials.redact import redact
from mcpctl.errors import ExitCode, ServerFailed, UsageError
from mcpctl.launch import child_environment, resolve_launch
from mcpctl.probing.redaction import hidden_values
from mcpctl.trust.gate import admit

HELP = """Start a server with its variables and secrets resolved, replacing mcpctl itself.

    stdin, stdout and stderr pass straight to the server, so an MCP client can start
    any server through mcpctl and no client file holds a token:
    {"command": "mcpctl", "args": ["run", "github"]}. mcpctl writes nothing to stdout;
    errors go to stderr. Workspace servers must be trusted at their current
    fingerprint (see: mcpctl trust).

    Example: mcpctl run github
    """
_VALUED = {"-w": "workspace", "--workspace": "workspace", "--config": "config"}


@dataclass(frozen=True)
class RunLine:
    name: str
    print_remote: bool = False
    workspace: Path | None = None
    config: Path | None = None


def parse_fast(args: Sequence[str]) -> RunLine | None:
    """`run`'s arguments parsed without typer; None when the line needs typer's parser."""
    name: str | None = None
    found: dict[str, str] = {}
    print_remote = False
    items = iter(args)
    for arg in items:
        option, equals, value = arg.partition("=")
        if arg == "--print":
            print_remote = True
        elif option in _VALUED and _VALUED[option] not in found:
            value = value if equals else next(items, "")
            if not value or value.startswith("-"):
                return None
            found[_VALUED[option]] = value
        elif arg.startswith("-") or name is not None or not arg:
            return None
        else:
            name = arg
    workspace = Path(found["workspace"]) if "workspace" in found else None
    if name is None or (workspace is not None and not workspace.is_dir()):
        return None
    config = Path(found["config"]) if "config" in found else None
    return RunLine(name, print_remote, workspace, config)


def start_line(line: RunLine) -> int:
    return start(line.name, print_remote=line.print_remote, workspace=line.workspace,
                 config=line.config)


def start(name: str, *, print_remote: bool, workspace: Path | None, config: Path | None) -> int:
    """Resolve server `name` and exec it (or, with `print_remote`, print a URL server)."""
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
    # The resolved command and cwd may hold a secret: errors quote them redacted, as
    # `cost` and `doctor` do (issue 14).
    hidden = hidden_values(admission.definition.spec, launch)
    env = child_environment(machine.environ, launch)
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
