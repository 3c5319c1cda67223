"""The one error handler: McpctlError → a one-line message and its exit code.

In JSON mode (`--json`, or `--output json`) the error is also a JSON object on stdout
(`{"error": {"message", "type"}, "exit_code"}`, schemas/error.schema.json), so a
script reading stdout never has to parse prose. Typer-free, so the `check` fast path
(a pre-commit hook) shares it without paying for typer's import.
"""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Callable, Sequence

from mcpctl.cli.messages import say_error
from mcpctl.errors import ExitCode, McpctlError

__all__ = ["fail", "guarded", "json_requested", "say_error", "unexpected"]


def json_requested(argv: Sequence[str]) -> bool:
    """`--json`, `--output json` or `--output=json` before a `--` (after it is a server's
    own command line)."""
    words = list(argv)
    words = words[:words.index("--")] if "--" in words else words
    return "--json" in words or "--output=json" in words or any(
        word == "--output" and following == "json" for word, following in itertools.pairwise(words))


def fail(message: str, code: int, *, as_json: bool) -> int:
    """Report a failure that ends the command: stderr always, stdout too in JSON mode."""
    say_error(message)
    if as_json:
        import json  # noqa: PLC0415 - JSON mode only

        from mcpctl.reports.report import error_document  # noqa: PLC0415

        kind = ExitCode(code).name.lower() if code in ExitCode._value2member_map_ else "error"
        try:
            sys.stdout.write(json.dumps(error_document(message, kind, code)) + "\n")
            sys.stdout.flush()
        except BrokenPipeError:
            pass
    return code


def _problems_behind(error: McpctlError) -> None:
    """The config problems an error says may explain it, listed first (on stderr)."""
    problems = getattr(error, "problems", ())
    if problems:
        from mcpctl.cli.render import warn_problems  # noqa: PLC0415 - only then

        warn_problems(problems)


def guarded(command: Callable[[], int], *, as_json: bool = False) -> int:
    """Run `command`; no exception reaches the user as a traceback."""
    try:
        return command()
    except McpctlError as error:
        _problems_behind(error)
        return fail(str(error), int(error.exit_code), as_json=as_json)
    except KeyboardInterrupt:
        return fail("interrupted", int(ExitCode.INTERRUPTED), as_json=as_json)
    except BrokenPipeError:
        return int(ExitCode.OK)
    except Exception as error:  # noqa: BLE001 - the last line of defence: no traceback for users
        return unexpected(error, as_json=as_json)


def crash_header() -> str:
    """What a bug report needs before the traceback: versions and platform (never argv,
    which may hold a secret)."""
    import platform  # noqa: PLC0415
    from datetime import UTC, datetime  # noqa: PLC0415

    from mcpctl import __version__  # noqa: PLC0415

    when = datetime.now(UTC).isoformat(timespec="seconds")
    return (f"--- {when} mcpctl {__version__}, Python {platform.python_version()}, "
            f"{platform.platform()}\n")


def unexpected(error: BaseException, *, as_json: bool = False) -> int:
    """Log the traceback (0600) and say where, in one line."""
    import traceback  # noqa: PLC0415

    from mcpctl.paths import Paths  # noqa: PLC0415

    try:
        log = Paths.from_environment(os.environ).log_file
        log.parent.mkdir(parents=True, exist_ok=True)
        # 0600: a traceback may quote what a server or config held.
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as handle:
            handle.write(crash_header() + "".join(traceback.format_exception(error)))
        where = f"details in {log}"
    except (OSError, McpctlError):  # no folder for it, or none MCPCTL_HOME can name
        where = "no log could be written"
    return fail(f"unexpected {type(error).__name__}: {error} ({where})",
                int(ExitCode.INTERNAL), as_json=as_json)
