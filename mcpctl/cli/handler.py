"""The one error handler: McpctlError → a one-line message and its exit code.

Typer-free, so the `check` fast path (a pre-commit hook) shares it without paying
for typer's import.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from mcpctl.errors import ExitCode, McpctlError
from mcpctl.reports.printable import printable


def say_error(message: str) -> None:
    sys.stderr.write(f"mcpctl: error: {printable(message)}\n")
    sys.stderr.flush()


def guarded(command: Callable[[], int]) -> int:
    """Run `command`; no exception reaches the user as a traceback."""
    try:
        return command()
    except McpctlError as error:
        say_error(str(error))
        return int(error.exit_code)
    except KeyboardInterrupt:
        say_error("interrupted")
        return int(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        return int(ExitCode.OK)
    except Exception as error:  # noqa: BLE001 - the last line of defence: no traceback for users
        return unexpected(error)


def crash_header() -> str:
    """What a bug report needs before the traceback: versions and platform (never argv,
    which may hold a secret)."""
    import platform  # noqa: PLC0415
    from datetime import UTC, datetime  # noqa: PLC0415

    from mcpctl import __version__  # noqa: PLC0415

    when = datetime.now(UTC).isoformat(timespec="seconds")
    return (f"--- {when} mcpctl {__version__}, Python {platform.python_version()}, "
            f"{platform.platform()}\n")


def unexpected(error: BaseException) -> int:
    import traceback  # noqa: PLC0415

    from mcpctl.paths import Paths  # noqa: PLC0415

    log = Paths.from_environment(os.environ).log_file
    try:
        log.parent.mkdir(parents=True, exist_ok=True)
        # 0600: a traceback may quote what a server or config held.
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as handle:
            handle.write(crash_header() + "".join(traceback.format_exception(error)))
        where = f"details in {log}"
    except OSError:
        where = "no log could be written"
    say_error(f"unexpected {type(error).__name__}: {error} ({where})")
    return int(ExitCode.INTERNAL)
