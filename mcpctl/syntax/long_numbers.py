"""Numbers longer than Python converts (`sys.get_int_max_str_digits()`, 4,300 digits
by default). json and tomllib refuse one with a bare ValueError that names no place,
which no caller expects: a repo's `.mcp.json` holding one stopped `list` and `check`
with an internal error. The readers turn it into their syntax error, placed here."""

from __future__ import annotations

import re
import sys

_DIGITS = re.compile(r"[0-9][0-9_]*")  # TOML may group digits with `_`


def long_number(text: str) -> tuple[str, int, int]:
    """The message, line and column (1-based) of the first run of digits longer than
    Python converts; (1, 1) if none is found. One pass over the text."""
    limit = sys.get_int_max_str_digits()
    message = f"a number of more than {limit:,} digits"
    for found in _DIGITS.finditer(text):
        if found.end() - found.start() - found[0].count("_") > limit:
            start = found.start()
            return message, text.count("\n", 0, start) + 1, \
                start - text.rfind("\n", 0, start)
    return message, 1, 1
