"""The one renderer: a command's `Report` as rich tables on a terminal, plain aligned
text otherwise, or its JSON document on request (issue 10 item 3).

`emit` is the only way a command's answer reaches stdout: JSON mode prints
`report.document()`; text mode runs the command's own text view over `report.data`
and lists the problems on stderr. Warnings go to stderr in both modes.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from mcpctl.cli.messages import say_error
from mcpctl.model import Problem
from mcpctl.reports.printable import printable, printable_lines
from mcpctl.reports.report import Report

T = TypeVar("T")


def emit(report: Report[T], as_json: bool, text: Callable[[T], None]) -> int:
    """Write `report` as JSON or as text (with `text`); return its exit code."""
    if as_json:
        print_json(report.document())
    else:
        text(report.data)
        warn_problems(report.problems or ())
    for line in report.warnings:
        warn(line)
    for line in report.errors:
        say_error(line)
    return int(report.exit_code)


def is_terminal() -> bool:
    return sys.stdout.isatty()


def width() -> int:
    if not is_terminal():
        return 10_000
    import shutil  # noqa: PLC0415 - a terminal only: it brings the compression modules

    return shutil.get_terminal_size((100, 24)).columns


def print_json(document: Any) -> None:
    # `default=str`: unknown fields of a TOML entry may hold dates and times.
    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False, default=str) + "\n")


def print_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Aligned columns. On a terminal: fitted to its width (NAME and SOURCE never cut,
    stacked when too narrow) with states in colour; elsewhere every cell in full."""
    from mcpctl.cli.table_layout import table_lines  # noqa: PLC0415

    rows = [[printable(cell) for cell in row] for row in rows]
    if not is_terminal():
        lines = table_lines(headers, rows, 10**9)
    else:
        states = {i for i, h in enumerate(headers) if h.strip() in ("STATE", "STATUS")}
        colour = colours_on()

        def paint(column: int, cell: str, shown: str) -> str:
            return state_colour(cell, shown) if colour and column in states else shown

        lines = table_lines(headers, rows, width(), paint)
    sys.stdout.write("".join(line + "\n" for line in lines))


# The first word of a state or status → an ANSI colour: what needs a look stands out.
_STATE_COLOURS = {"changed": "31", "unpinnable": "31", "failed": "31", "refused": "31",
                  "untrusted": "33", "declined": "33", "missing": "33",
                  "trusted": "32", "ok": "32", "stored": "32", "shadowed": "2"}


def colours_on() -> bool:
    """Colour on a terminal, unless NO_COLOR is set and not empty (no-color.org) or the
    terminal says it cannot show it."""
    return is_terminal() and not os.environ.get("NO_COLOR") \
        and os.environ.get("TERM", "") != "dumb"


def state_colour(state: str, shown: str) -> str:
    code = _STATE_COLOURS.get(state.split(" ", 1)[0].split(":", 1)[0])
    return f"\x1b[{code}m{shown}\x1b[0m" if code else shown


def say(text: str = "") -> None:
    """One line for a person: control characters in it are shown escaped."""
    sys.stdout.write(printable(text) + "\n")


def say_block(text: str) -> None:
    """Several lines (a diff), each made printable."""
    sys.stdout.write(printable_lines(text) + "\n")


def warn(text: str) -> None:
    sys.stderr.write(printable(text) + "\n")


def warn_problems(problems: Iterable[Problem]) -> None:
    """Each problem as `path:line:col: error: message` on stderr."""
    for problem in problems:
        warn(f"{display_path(problem.path)}:{problem.line}:{problem.column}: "
             f"error: {problem.message}")


def display_path(path: Path) -> str:
    """Relative to the current folder when inside it, else with the home folder as `~`,
    else absolute. From `/` or from home itself a relative path reads as a different
    file (`tmp/x/config.toml`, `.cursor/mcp.json`), so there it is never relative."""
    # Plain string prefixes: this runs once per row, and Path.relative_to is slow.
    text = str(path)
    home, cwd = os.path.expanduser("~"), os.getcwd()
    bases = [(home, "~/")] if cwd in (os.sep, home) else [(cwd, ""), (home, "~/")]
    for base, shown in bases:
        if text == base:
            return shown.rstrip("/") or "."
        if text.startswith(base.rstrip(os.sep) + os.sep):
            return shown + text[len(base.rstrip(os.sep)) + 1:]
    return text


def age(seconds: float) -> str:
    """A short human age: 45 s, 12 min, 3 h, 2 d."""
    for unit, size in (("d", 86_400), ("h", 3_600), ("min", 60)):
        if seconds >= size:
            return f"{int(seconds // size)} {unit}"
    return f"{int(max(seconds, 0))} s"
