"""The one renderer: a command's `Report` as rich tables on a terminal, plain aligned
text otherwise, or its JSON document on request (issue 10 item 3).

`emit` is the only way a command's answer reaches stdout: JSON mode prints
`report.document()`; text mode runs the command's own text view over `report.data`
and lists the problems on stderr. Warnings go to stderr in both modes.
"""

from __future__ import annotations

import json
import os
import shutil
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
    return shutil.get_terminal_size((100, 24)).columns if is_terminal() else 10_000


def middle_truncate(text: str, limit: int) -> str:
    if len(text) <= limit or limit < 5:
        return text
    keep = limit - 1
    head = (keep + 1) // 2
    return text[:head] + "…" + text[len(text) - (keep - head):]


def print_json(document: Any) -> None:
    # `default=str`: unknown fields of a TOML entry may hold dates and times.
    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False, default=str) + "\n")


def print_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    rows = [[printable(cell) for cell in row] for row in rows]
    if is_terminal():
        from rich.console import Console  # noqa: PLC0415 - rich costs ~70 ms; terminal only
        from rich.table import Table  # noqa: PLC0415
        from rich.text import Text  # noqa: PLC0415 - cells are data, never markup

        table = Table(*headers, box=None, pad_edge=False, highlight=False)
        for row in rows:
            table.add_row(*(Text(cell) for cell in row))
        # NO_COLOR counts when set and not empty (no-color.org); rich reads it so.
        Console().print(table)
        return
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]
    for row in (headers, *rows):
        line = "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row))
        sys.stdout.write(line.rstrip() + "\n")


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
    """Relative to the current folder when inside it, else with the home folder as `~`."""
    # Plain string prefixes: this runs once per row, and Path.relative_to is slow.
    text = str(path)
    for base, shown in ((os.getcwd(), ""), (os.path.expanduser("~"), "~/")):
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
