"""The `mcpctl` entry point and the one handler that turns errors into exit codes."""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Sequence

import typer

from mcpctl.errors import ExitCode, McpctlError

app = typer.Typer(
    name="mcpctl",
    help=(
        "Manage the MCP servers your AI clients start: see where each comes from, "
        "approve a repo's servers by fingerprint, keep tokens in the OS keyring, "
        "and measure what each server's tools cost in context tokens.\n\n"
        "Example: mcpctl list --workspace ."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _register_commands() -> None:
    from mcpctl.cli import commands  # noqa: PLC0415 - keeps the import graph one-way

    commands.register_all(app)


def run(argv: Sequence[str] | None = None) -> int:
    """Run one command line and return its exit code; never raises for user errors."""
    # typer 0.27 carries its own copy of click; its exceptions are the ones raised.
    from typer._click.exceptions import ClickException  # noqa: PLC0415

    _register_commands()
    command = typer.main.get_command(app)
    try:
        result = command.main(
            args=list(argv) if argv is not None else sys.argv[1:],
            prog_name="mcpctl",
            standalone_mode=False,
        )
    except McpctlError as error:
        _say_error(str(error))
        return int(error.exit_code)
    except typer.Abort:
        _say_error("interrupted")
        return int(ExitCode.INTERRUPTED)
    except ClickException as error:
        error.show()
        return int(ExitCode.USAGE if error.exit_code == 2 else error.exit_code)
    except KeyboardInterrupt:
        _say_error("interrupted")
        return int(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        return int(ExitCode.OK)
    except Exception as error:  # noqa: BLE001 - the last line of defence: no traceback for users
        return _unexpected(error)
    return int(result or 0)


def _say_error(message: str) -> None:
    sys.stderr.write(f"mcpctl: error: {message}\n")
    sys.stderr.flush()


def _unexpected(error: BaseException) -> int:
    from mcpctl.paths import Paths  # noqa: PLC0415

    log = Paths.from_environment(os.environ).log_file
    try:
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("a", encoding="utf-8") as handle:
            handle.write("".join(traceback.format_exception(error)))
        where = f"details in {log}"
    except OSError:
        where = "no log could be written"
    _say_error(f"unexpected {type(error).__name__}: {error} ({where})")
    return int(ExitCode.INTERNAL)


def main() -> None:
    sys.exit(run())
