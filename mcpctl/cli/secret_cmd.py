"""`mcpctl secret set|get|rm|list`: secrets in the OS keyring, names in an index."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from mcpctl.cli import render
from mcpctl.cli.options import ConfigOption, JsonOption, WorkspaceOption, context
from mcpctl.errors import ExitCode, UsageError

if TYPE_CHECKING:
    from mcpctl.reports.secrets import SecretNames

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
    as_json: JsonOption = False,
) -> int:
    """Store a secret in the OS keyring (hidden prompt, or --stdin for scripts).

    Example: mcpctl secret set github-pat
    """
    from mcpctl.credentials.keyring_store import check_secret_name  # noqa: PLC0415
    from mcpctl.reports.secrets import set_report  # noqa: PLC0415

    check_secret_name(name)
    machine = context(None, None)
    report = set_report(machine, name, read_secret_value(from_stdin, f"Value for {name}: "))
    return render.emit(report, as_json, lambda stored: render.say(
        f"stored secret {stored} in the OS keyring (reference it as ${{secret:{stored}}})"))


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
    as_json: JsonOption = False,
) -> int:
    """Delete a secret from the keyring (warns when a server still references it).

    Example: mcpctl secret rm github-pat
    """
    from mcpctl.reports.secrets import rm_report  # noqa: PLC0415

    return render.emit(rm_report(context(workspace, config), name), as_json,
                       lambda removed: render.say(f"removed secret {removed}"))


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
    from mcpctl.reports.secrets import list_report  # noqa: PLC0415

    return render.emit(list_report(context(workspace, config)), as_json, _print_names)


def _print_names(secrets: SecretNames) -> None:
    if not secrets.names:
        render.say("no secrets")
        return
    rows = [[n, _status(n in secrets.stored, bool(secrets.references.get(n))),
             ", ".join(secrets.references.get(n, [])) or "-"] for n in secrets.names]
    render.print_table(["NAME", "STATUS", "REFERENCED BY"], rows)


def _status(stored: bool, referenced: bool) -> str:
    if not stored:
        return "not stored (referenced)"
    return "stored" if referenced else "stored, unreferenced"


@secret_app.command("check")
def check_command(as_json: JsonOption = False) -> int:
    """Check that the OS keyring can keep secrets here, storing nothing: the backend,
    and ok, missing, locked or refused (a backend that keeps secrets in a file). Exit 0
    when ok, 5 otherwise with the fix: put it first in an onboarding script.

    Example: mcpctl secret check || exit
    """
    from mcpctl.reports.secrets import check_report  # noqa: PLC0415

    return render.emit(check_report(), as_json, lambda checked: render.say(
        f"keyring: {checked['state']} ({checked['backend'] or 'no backend'})"))
