"""`mcpctl add` and `mcpctl remove`: the user tier, and only the user tier."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from mcpctl.cli import render
from mcpctl.cli.options import ConfigOption, WorkspaceOption, context
from mcpctl.cli.secret_cmd import read_secret_value
from mcpctl.config.server_entry import EntryOptions, build_entry, check_name
from mcpctl.errors import ExitCode, UsageError

_NO_WORKSPACE_WRITES = (
    "mcpctl writes only the user tier (config.toml); a repo's MCP files belong to the "
    "repo and are never edited."
)

OutputOption = Annotated[
    str, typer.Option("--output", help="text or json.", metavar="text|json")
]


def register(app: typer.Typer) -> None:
    app.command(
        "add",
        help=(
            "Add a server to the user tier (config.toml).\n\n"
            "Everything after -- is the command line, taken literally. "
            + _NO_WORKSPACE_WRITES
            + "\n\nExamples:\n\n"
            "  mcpctl add github -- docker run -i --rm ghcr.io/github/github-mcp-server\n\n"
            "  mcpctl add docs https://docs.example.com/mcp -H 'X-Team: core'\n\n"
            "  mcpctl add --transport sse events https://events.example.com/sse\n\n"
            "  mcpctl add fs --command-line \"npx -y @scope/server '/Users/me/My Documents'\""
        ),
    )(add_command)
    app.command(
        "remove",
        help="Remove a server from the user tier.\n\n" + _NO_WORKSPACE_WRITES
        + "\n\nExample: mcpctl remove github",
    )(remove_command)


def add_command(
    name: Annotated[str, typer.Argument(help="Server name: letters, digits, _ and -.")],
    command: Annotated[
        list[str] | None, typer.Argument(help="The command and its arguments, after --; "
                                         "or a remote server's URL.")
    ] = None,
    env: Annotated[
        list[str] | None, typer.Option("--env", "-e", help="KEY=VALUE (repeatable).")
    ] = None,
    cwd: Annotated[str | None, typer.Option("--cwd", help="Working directory.")] = None,
    url: Annotated[str | None, typer.Option("--url", help="A remote server's URL.")] = None,
    header: Annotated[
        list[str] | None, typer.Option("--header", "-H", help="'Name: value' or Name=value for "
                                       "a remote server (repeatable).")
    ] = None,
    transport: Annotated[
        str | None, typer.Option("--transport", "-t", help="http or sse for a URL; stdio "
                                 "(the default) for a command.")
    ] = None,
    entry_json: Annotated[
        str | None, typer.Option("--json", help="A whole entry in the usual mcpServers shape.")
    ] = None,
    command_line: Annotated[
        str | None,
        typer.Option("--command-line", help="The command as one string, split like a shell "
                     "would split it, with no expansion."),
    ] = None,
    replace: Annotated[
        bool, typer.Option("--replace", help="Overwrite a different definition of NAME.")
    ] = False,
    secret_env: Annotated[
        list[str] | None,
        typer.Option("--secret-env", help="KEY whose value is asked for (hidden) or read from "
                     "--stdin, stored in the keyring and referenced as ${secret:NAME-KEY}."),
    ] = None,
    from_stdin: Annotated[
        bool, typer.Option("--stdin", help="With --secret-env: read the value from stdin.")
    ] = False,
    plain: Annotated[
        bool, typer.Option("--plain", help="Write secret-looking values as given (they are not "
                           "moved to the keyring).")
    ] = False,
    config: ConfigOption = None,
    workspace: WorkspaceOption = None,
    output: OutputOption = "text",
) -> int:
    from mcpctl.config.user_config_edit import add_server  # noqa: PLC0415 - tomlkit behind it

    _check_output(output)  # before anything is written
    check_name(name)
    entry = build_entry(name, EntryOptions(
        argv=command or [], env=env or [], cwd=cwd, url=url, headers=header or [],
        transport=transport, entry_json=entry_json, command_line=command_line,
    ))
    ctx = context(workspace, config)
    entry, found = _secrets_to_move(name, entry, secret_env or [], from_stdin, plain)
    index = ctx.paths.secrets_index
    result = add_server(ctx.config_file, name, entry, replace=replace,
                        before_write=(lambda: _store(index, found)) if found else None)
    stored = list(found) if result.status != "unchanged" else _restore_missing(index, found)
    for secret in stored:
        render.warn(f"stored a secret-looking value in the OS keyring as {secret!r}; "
                    f"config.toml references it as ${{secret:{secret}}}")
    _report(output, {"name": name, "status": result.status, "path": str(ctx.config_file),
                     "entry": entry if result.status != "unchanged" else result.previous})
    if output == "text":
        verb = {"added": "added", "replaced": "replaced", "unchanged": "unchanged:"}
        render.say(f"{verb[result.status]} {name} in {render.display_path(ctx.config_file)}"
                   + (" (already defined like this)" if result.status == "unchanged" else ""))
    return ExitCode.OK


def remove_command(
    name: Annotated[str, typer.Argument(help="Server name.")],
    missing_ok: Annotated[
        bool, typer.Option("--missing-ok", help="Exit 0 when NAME is not in the user tier.")
    ] = False,
    config: ConfigOption = None,
    workspace: WorkspaceOption = None,
    output: OutputOption = "text",
) -> int:
    from mcpctl.config.user_config_edit import remove_server  # noqa: PLC0415
    from mcpctl.config.workspace import load_workspace  # noqa: PLC0415

    _check_output(output)
    ctx = context(workspace, config)
    result = remove_server(ctx.config_file, name)
    if result.status == "absent":
        in_workspace = [d for d in load_workspace(ctx.root).definitions if d.name == name]
        if in_workspace:
            where = in_workspace[0].source
            raise UsageError(
                f"server {name!r} is defined by the workspace ({render.display_path(where.path)}"
                f":{where.line}), not the user tier; the repo owns that file and mcpctl never "
                f"edits it; to withdraw an approval use: mcpctl revoke {name}"
            )
        if not missing_ok:
            raise UsageError(f"no server named {name!r} in the user tier "
                             f"({render.display_path(ctx.config_file)})")
    _report(output, {"name": name, "status": result.status, "path": str(ctx.config_file)})
    if output == "text":
        said = "removed" if result.status == "removed" else "not present:"
        render.say(f"{said} {name} in {render.display_path(ctx.config_file)}")
    return ExitCode.OK


def _secrets_to_move(
    name: str, entry: dict[str, Any], secret_env: list[str], from_stdin: bool, plain: bool,
) -> tuple[dict[str, Any], dict[str, str]]:
    """The entry with secret values replaced by references, and the values by name.

    They are stored only when config.toml is about to change (under its lock), so a
    refused add never overwrites a secret, and config never names a missing one.
    """
    from mcpctl.credentials.extraction import extract_secrets, reference, secret_name_for  # noqa: PLC0415

    if secret_env and "command" not in entry:
        raise UsageError("--secret-env is for servers started by command")
    if len(secret_env) > 1 and from_stdin:
        raise UsageError("--stdin reads one value: give one --secret-env per command")
    found: dict[str, str] = {}
    if not plain:
        entry, found = extract_secrets(name, entry)
    for key in secret_env:
        secret = secret_name_for(name, key)
        found[secret] = read_secret_value(from_stdin, f"Value for {key}: ")
        entry = {**entry, "env": {**entry.get("env", {}), key: reference(secret)}}
    return entry, found


def _store(index: Path, found: dict[str, str]) -> None:
    from mcpctl.credentials.keyring_store import set_secret  # noqa: PLC0415

    for secret, value in found.items():
        set_secret(index, secret, value)


def _restore_missing(index: Path, found: dict[str, str]) -> list[str]:
    """For an unchanged definition: store a referenced secret only if the keyring lacks
    it (a rerun onboarding script restores it); never replace a different value."""
    from mcpctl.credentials.keyring_store import get_secret  # noqa: PLC0415

    missing = {}
    for secret, value in found.items():
        current = get_secret(secret)
        if current is None:
            missing[secret] = value
        elif current != value:
            render.warn(f"kept the keyring's current value of {secret!r}, which differs from "
                        f"the one given; to replace it: mcpctl secret set {secret}")
    _store(index, missing)
    return list(missing)


def _check_output(output: str) -> None:
    if output not in ("text", "json"):
        raise UsageError(f"--output must be text or json, not {output!r}")


def _report(output: str, document: dict[str, Any]) -> None:
    _check_output(output)
    if output == "json":
        render.print_json(document)
