"""`mcpctl add` and `mcpctl remove`: the user tier, and only the user tier."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from mcpctl.cli import render
from mcpctl.cli.options import (
    ConfigOption,
    JsonOption,
    OutputOption,
    WorkspaceOption,
    context,
    json_output,
)
from mcpctl.errors import UsageError

if TYPE_CHECKING:
    from mcpctl.machine import Machine
    from mcpctl.reports.report import Report
    from mcpctl.reports.user_tier import Edited

NoSyncOption = Annotated[
    bool, typer.Option("--no-sync", help="Leave the clients in [clients] sync as they are "
                       "(by default they are synced at once).")
]

_NO_WORKSPACE_WRITES = (
    "mcpctl writes only the user tier (config.toml); a repo's MCP files belong to the "
    "repo and are never edited."
)

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
            "  mcpctl add fs --command-line \"npx -y @scope/server '/Users/me/My Documents'\"\n\n"
            "  mcpctl add mem --entry '{\"command\": \"npx\", \"args\": [\"-y\", \"mem\"]}' "
            "--json\n\n"
            "  mcpctl add everything --from-registry "
            "io.github.modelcontextprotocol/server-everything@2.0.0"
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
        str | None, typer.Option("--entry", help="A whole entry in the usual mcpServers shape "
                                 "(also accepted as --json '{...}').")
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
    from_registry: Annotated[
        str | None, typer.Option("--from-registry", help="A registry server, SERVER[@VERSION] "
                                 "(latest by default), or a server.json file: written as one "
                                 "pinned entry, its secrets asked for and kept in the keyring.")
    ] = None,
    registry: Annotated[
        str | None, typer.Option("--registry", help="With --from-registry: the registry's "
                                 "base URL (default: [registry] url in config.toml, else the "
                                 "official MCP Registry).")
    ] = None,
    use: Annotated[
        str | None, typer.Option("--use", help="With --from-registry: npm, pypi, oci or "
                                 "remote (default: the first package mcpctl can run, else "
                                 "the remote).")
    ] = None,
    secret_from_env: Annotated[
        list[str] | None, typer.Option("--secret-from-env", help="With --from-registry: "
                                       "KEY=VAR, the declared secret KEY read from mcpctl's "
                                       "environment variable VAR (for scripts).")
    ] = None,
    scope: Annotated[
        str | None, typer.Option("--scope", "-s", metavar="user|local",
                                 help="user (the default): every folder; local: this "
                                 "workspace only (claude mcp's local scope).")
    ] = None,
    no_sync: NoSyncOption = False,
    config: ConfigOption = None,
    workspace: WorkspaceOption = None,
    output: OutputOption = "text",
    as_json: JsonOption = False,
) -> int:
    from mcpctl.config.server_entry import EntryOptions, build_entry, check_name  # noqa: PLC0415
    from mcpctl.reports.user_tier import add_report  # noqa: PLC0415

    as_json = json_output(as_json, output)  # before anything is written
    check_name(name)
    if from_registry is not None:  # issue 28: all of it in add_registry.py
        from mcpctl.cli import add_registry  # noqa: PLC0415

        others = {"-- COMMAND": command, "--url": url, "--cwd": cwd, "--transport": transport,
                  "--entry": entry_json, "--command-line": command_line,
                  "--secret-env": secret_env, "--plain": plain}
        return add_registry.run(name, add_registry.RegistryAdd(
            from_registry, registry, use, env or [], header or [], secret_from_env or [],
            from_stdin, replace), [flag for flag, value in others.items() if value],
            context(workspace, config, creates_config=True), as_json, no_sync=no_sync)
    if registry or use or secret_from_env:
        raise UsageError("--registry, --use and --secret-from-env go with --from-registry")
    entry = build_entry(name, EntryOptions(
        argv=command or [], env=env or [], cwd=cwd, url=url, headers=header or [],
        transport=transport, entry_json=entry_json, command_line=command_line,
    ))
    machine = context(workspace, config, creates_config=True)
    entry = _scoped(entry, scope, machine)
    entry, found = _secrets_to_move(name, entry, secret_env or [], from_stdin, plain)
    report = add_report(machine, name, entry, found, replace=replace)
    return _emit_then_sync(machine, report, as_json, no_sync)


def _scoped(entry: dict[str, Any], scope: str | None, machine: Machine) -> dict[str, Any]:
    """`--scope` as claude mcp and gemini mcp spell it, where the meaning is the same."""
    if scope in (None, "user"):
        return entry
    if scope == "local":
        import os  # noqa: PLC0415

        return {**entry, "workspace": os.path.realpath(machine.root)}
    if scope == "project":
        raise UsageError("--scope project would write the repo's own file, which mcpctl "
                         "never edits; add the entry to the repo's .mcp.json, then approve "
                         "it with: mcpctl trust NAME")
    raise UsageError(f"--scope must be user or local, not {scope!r}")


def _emit_then_sync(machine: Machine, report: Report[Edited], as_json: bool,
                    no_sync: bool) -> int:
    """Say what changed, then bring the enabled clients up to date with it."""
    from mcpctl.cli.syncing import sync_after_edit  # noqa: PLC0415

    code = render.emit(report, as_json, _print_edit)
    sync_after_edit(machine, report.data.status, no_sync=no_sync)
    return code


def _print_edit(edit: Edited) -> None:
    said = {"added": "added", "replaced": "replaced", "unchanged": "unchanged:",
            "removed": "removed", "absent": "not present:"}[edit.status]
    render.say(f"{said} {edit.name} in {render.display_path(edit.config_file)}"
               + (" (already defined like this)" if edit.status == "unchanged" else ""))


def remove_command(
    name: Annotated[str, typer.Argument(help="Server name.")],
    missing_ok: Annotated[
        bool, typer.Option("--missing-ok", help="Exit 0 when NAME is not in the user tier.")
    ] = False,
    keep_secrets: Annotated[
        bool, typer.Option("--keep-secrets", help="Keep the secrets NAME referenced in the "
                           "OS keyring (by default those no other server uses are removed).")
    ] = False,
    no_sync: NoSyncOption = False,
    config: ConfigOption = None,
    workspace: WorkspaceOption = None,
    output: OutputOption = "text",
    as_json: JsonOption = False,
) -> int:
    from mcpctl.reports.user_tier import remove_report  # noqa: PLC0415

    as_json = json_output(as_json, output)
    machine = context(workspace, config)
    report = remove_report(machine, name, missing_ok=missing_ok,
                           keep_secrets=keep_secrets, shown=render.display_path)
    return _emit_then_sync(machine, report, as_json, no_sync)


def _secrets_to_move(
    name: str, entry: dict[str, Any], secret_env: list[str], from_stdin: bool, plain: bool,
) -> tuple[dict[str, Any], dict[str, str]]:
    """The entry with secret values replaced by references, and the values by name.

    They are stored only when config.toml is about to change (under its lock), so a
    refused add never overwrites a secret, and config never names a missing one.
    """
    from mcpctl.cli.secret_cmd import read_secret_value  # noqa: PLC0415
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
