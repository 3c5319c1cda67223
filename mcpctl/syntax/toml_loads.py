"""`tomllib.loads` with its recursion limit and Python's bound on a number's digits as
ordinary errors (pure, and light: the user tier is read on every `mcpctl run`).

tomllib recurses once per nested array or inline table, so a few hundred `[` raise
RecursionError, which no caller expects. Every TOML reader comes here: a repo's files
through `toml_document.parse_toml` and `check`'s settings, which first bound how long a
dotted key may be (tomllib's memory grows with its square), and the user's own files.
"""

from __future__ import annotations

import tomllib
from typing import Any


class TomlLimit(ValueError):
    """Nesting too deep for tomllib, or a number too long for Python, worded as tomllib
    words its errors (position included), so code that reports a `TOMLDecodeError` (a
    ValueError) reports it too."""


def load_toml(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise TomlLimit("nested too deeply (at line 1, column 1)") from None
    except tomllib.TOMLDecodeError:
        raise
    except ValueError:  # a number longer than Python converts
        from mcpctl.syntax.long_numbers import long_number  # noqa: PLC0415

        message, line, column = long_number(text)
        raise TomlLimit(f"{message} (at line {line}, column {column})") from None
