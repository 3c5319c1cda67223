"""`mcpctl secret set|get|rm|list`: secrets in the OS keyring, names in an index."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from mcpctl.cli import render
from mcpctl.cli.options import ConfigOption, JsonOption, WorkspaceOption, context
from mcpctl.config.secret_refs import secret_references
from mcpctl.config.view import load_view
from mcpctl.errors import ExitCode, UsageError

secret_app = typer.Typer(
    help="Secrets in the OS keyring, referenced from config as ${secret:NAME}.\n\n"
    "Example: printf %s \"$TOKEN\" | mcpctl secret set github-pat --stdin",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    app.add_typer(secret_app, name="secret")


def read_secret_value(from_stdin: bool, prompt: str) -> str:
    """One value: a hidden prompt on a terminal, else stdin with `--stdin`."""
    if from_stdin:
        # All of stdin, so multi-line values (PEM keys) work; `echo` adds one newline.
        value = sys.stdin.read()
        return value.removesuffix("\n").removesuffix("\r")
    if not sys.stdin.isatty():
        raise UsageError("no terminal to prompt on; pass the value on stdin with --stdin")
    import getpass  # noqa: PLC0415

    return getpass.getpass(prompt)


@secret_app.command("set")
def set_command(
    name: Annotated[str, typer.Argument(help="Secret name: 1-128 of A-Z a-z 0-9 _ . -")],
    from_stdin: Annotated[
        bool, typer.Option("--stdin", help="Read one value from stdin (one trailing newline "
                           "is stripped).")
    ] = False,
) -> int:
    """Store a secret in the OS keyring (hidden prompt, or --stdin for scripts).

    Example: mcpctl secret set github-pat
    """
    from mcpctl.credentials.keyring_store import check_secret_name, set_secret  # noqa: PLC0415

    check_secret_name(name)
    paths = context(None, None).paths
    set_secret(paths.secrets_index, name, read_secret_value(from_stdin, f"Value for {name}: "))
    render.say(f"stored secret {name} in the OS keyring (reference it as ${{secret:{name}}})")
    return ExitCode.OK


@secret_app.command("get")
def get_command(
    name: Annotated[str, typer.Argument(help="Secret name.")],
    reveal: Annotated[bool, typer.Option("--reveal", help="Really print the value.")] = False,
) -> int:
    """Print a secret's value — only with --reveal.

    Example: mcpctl secret get github-pat --reveal | pbcopy
    """
    from mcpctl.credentials.keyring_store import check_secret_name, get_secret  # noqa: PLC0415

    check_secret_name(name)
    if not reveal:
        raise UsageError("mcpctl prints a secret's value only with --reveal")
    value = get_secret(name)
    if value is None:
        raise UsageError(f"no secret named {name!r} in the keyring")
    sys.stdout.write(value + "\n")
    return ExitCode.OK


@secret_app.command("rm")
def rm_command(
    name: Annotated[str, typer.Argument(help="Secret name.")],
    workspace: WorkspaceOption = None,
    config: ConfigOption = None,
) -> int:
    """Delete a secret from the keyring (warns when a server still references it).

    Example: mcpctl secret rm github-pat
    """
    from mcpctl.credentials.keyring_store import delete_secret  # noqa: PLC0415

    ctx = context(workspace, config)
    if not delete_secret(ctx.paths.secrets_index, name):
        raise UsageError(f"no secret named {name!r} in the keyring")
    render.say(f"removed secret {name}")
    users = secret_references(load_view(ctx.root, ctx.config_file).servers).get(name, [])
    if users:
        render.warn(f"warning: still referenced by {', '.join(users)}; those servers will "
                    f"not start until it is set again (mcpctl secret set {name})")
    return ExitCode.OK


@secret_app.command("list")
def list_command(
    workspace: WorkspaceOption = None,
    config: ConfigOption = None,
    as_json: JsonOption = False,
) -> int:
    """List secret names (never values) and the servers here that reference each;
    a stored secret no server here references is marked "unreferenced" (a server in
    another workspace may still use it).

    Example: mcpctl secret list --json
    """
    from mcpctl.credentials.keyring_store import indexed_names  # noqa: PLC0415

    ctx = context(workspace, config)
    stored = indexed_names(ctx.paths.secrets_index)
    references = secret_references(load_view(ctx.root, ctx.config_file).servers)
    names = sorted(set(stored) | set(references))
    entries = [{"name": n, "stored": n in stored, "referenced_by": references.get(n, []),
                "unreferenced": n in stored and not references.get(n)} for n in names]
    if as_json:
        render.print_json({"secrets": entries})
        return ExitCode.OK
    if not entries:
        render.say("no secrets")
    rows = [[n, _status(n in stored, bool(references.get(n))),
             ", ".join(references.get(n, [])) or "-"] for n in names]
    if rows:
        render.print_table(["NAME", "STATUS", "REFERENCED BY"], rows)
    return ExitCode.OK


def _status(stored: bool, referenced: bool) -> str:
    if not stored:
        return "not stored (referenced)"
    return "stored" if referenced else "stored, unreferenced"
