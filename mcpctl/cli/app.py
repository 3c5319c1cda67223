"""The typer app: every command but the `check` fast path comes through here."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

import typer

from mcpctl.cli import completion
from mcpctl.cli.commands import normalised, register_for
from mcpctl.cli.handler import fail, guarded, json_requested
from mcpctl.errors import ExitCode

if TYPE_CHECKING:
    from typer._click.exceptions import ClickException

app = typer.Typer(
    name="mcpctl",
    help=(
        "Manage the MCP servers your AI clients start: see where each comes from, "
        "approve a repo's servers by fingerprint, keep tokens in the OS keyring, "
        "and measure what each server's tools cost in context tokens.\n\n"
        "Example: mcpctl list --workspace ."
    ),
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _show_version(value: bool) -> None:
    if value:
        from mcpctl import __version__  # noqa: PLC0415

        sys.stdout.write(f"mcpctl {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def _group(
    _version: Annotated[bool, typer.Option(
        "--version", help="Print mcpctl's version and exit.", is_eager=True,
        callback=_show_version)] = False,
) -> None:
    """A callback keeps mcpctl a group of commands even when only one is registered."""


def run(argv: Sequence[str] | None = None) -> int:
    """Run one command line and return its exit code; never raises for user errors."""
    args = normalised(list(sys.argv[1:] if argv is None else argv))
    as_json = json_requested(args)
    return guarded(lambda: _invoke(args, as_json=as_json), as_json=as_json)


def _invoke(args: list[str], *, as_json: bool) -> int:
    # typer 0.27 carries its own copy of click; its exceptions are the ones raised.
    from typer._click.exceptions import ClickException  # noqa: PLC0415

    register_for(app, args)
    completion.honour_named_shell(args)
    command = typer.main.get_command(app)
    if completion.requested():
        completion.attach(command)
    try:
        result = command.main(args=args, prog_name="mcpctl", standalone_mode=False)
    except typer.Abort:
        return fail("interrupted", int(ExitCode.INTERRUPTED), as_json=as_json)
    except ClickException as error:
        _add_hint(error, args)
        code = int(ExitCode.USAGE if error.exit_code == 2 else error.exit_code)
        if not as_json:
            error.show()
            return code
        return fail(error.format_message(), code, as_json=True)
    return int(result or 0)


def _add_hint(error: ClickException, args: list[str]) -> None:
    """`add NAME npx -y pkg`: click's "No such option: -y" says where the command goes;
    a neighbour's command word (`mcp`, `login`) gets mcpctl's way to do it."""
    from typer._click.exceptions import NoSuchOption, UsageError  # noqa: PLC0415

    from mcpctl.cli.spellings import command_hint, usage_hint  # noqa: PLC0415

    hint: str | None = None
    if isinstance(error, NoSuchOption):
        hint = usage_hint(args, error.option_name)
    elif isinstance(error, UsageError) and error.message.startswith("No such command"):
        hint = command_hint(next((a for a in args if not a.startswith("-")), ""))
    if hint is not None:
        error.message = f"{error.message.rstrip('.')}; {hint}"
