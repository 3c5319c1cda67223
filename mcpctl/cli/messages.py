"""The one writer of `mcpctl: error:` lines (typer- and rich-free, for the fast paths)."""

from __future__ import annotations

import sys

from mcpctl.reports.printable import printable


def say_error(message: str) -> None:
    sys.stderr.write(f"mcpctl: error: {printable(message)}\n")
    sys.stderr.flush()
