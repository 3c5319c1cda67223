"""The `mcpctl` entry point.

`mcpctl check` (a pre-commit hook, run on every commit) goes straight to its own
argparse front end and never imports typer; so do a plain `mcpctl run NAME` (every
client start of every server), the common lines of `list` and `show` (scripts,
hooks, editors) and `--help` at 80 columns or more. Every other command line goes
through the typer app.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Callable, Sequence

from mcpctl.cli.handler import guarded, json_requested


def run(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    fast = _fast_path(args)
    return fast() if fast is not None else _through_typer(args)


def _through_typer(args: list[str]) -> int:
    from mcpctl.cli import app  # noqa: PLC0415

    return app.run(args)


def _fast_path(args: list[str]) -> Callable[[], int] | None:
    """The guarded command of a line that needs no typer, or None."""
    if args[:1] == ["check"]:
        from mcpctl.cli.check_cmd import run_check  # noqa: PLC0415

        return lambda: guarded(lambda: run_check(args[1:]), as_json=json_requested(args))
    if args[:1] == ["run"]:
        from mcpctl.cli.run_start import parse_fast, start_line  # noqa: PLC0415

        line = parse_fast(args[1:])
        if line is not None:
            return lambda: guarded(lambda: start_line(line))
    if args[:1] in (["list"], ["show"]) and not _completing():
        from mcpctl.cli import list_start  # noqa: PLC0415

        listed = list_start.parse_fast(args[0], args[1:])
        if listed is not None:
            return lambda: guarded(lambda: list_start.run_line(listed), as_json=listed.as_json)
    if args in (["--help"], ["-h"]):
        from mcpctl.cli.top_help import stored_help  # noqa: PLC0415

        text = stored_help()
        if text is not None:
            return lambda: guarded(lambda: _say(text))
    return None


def _say(text: str) -> int:
    sys.stdout.write(text)
    sys.stdout.flush()  # a closed pipe is met here, inside the guard
    return 0


def _completing() -> bool:
    """Shell completion runs through typer (click's completion machinery)."""
    from mcpctl.cli.completion import requested  # noqa: PLC0415

    return requested()


def _exit_now(code: int) -> None:  # never returns; not `NoReturn`, which costs typing
    """End a fast path without the interpreter's teardown, which frees every module and
    object one by one (a tenth of `list`). These paths register nothing to run at exit,
    and their one thread (the reader of `run`'s bridge) is a daemon, which the teardown
    would not wait for either; what they wrote is flushed first, as the teardown would."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BrokenPipeError, ValueError):  # a reader left; closed
            stream.flush()
    os._exit(code)


def main() -> None:
    args = sys.argv[1:]
    # What a fast path imports (modules, classes, functions) lives as long as the
    # process: a collection while it is made would find nothing to free, and so would
    # one after, which `freeze` spares by setting it all aside.
    gc.disable()
    try:
        fast = _fast_path(args)
    finally:
        gc.freeze()
        gc.enable()
    if fast is None:
        sys.exit(_through_typer(args))
    _exit_now(fast())
