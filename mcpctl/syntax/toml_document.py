"""A TOML file read like a JSON one: its value and where each key is written (pure).

`check` and the workspace tier handle every format through `jsonc.JsonDocument`; Codex's
`.codex/config.toml` joins them here. tomllib gives no positions, so `toml_keys` reads
the text once more, as TOML and not as lines, for the line and column of every key and
header (`[mcp_servers.github.env]`, `env.TOKEN = ...`, the keys of inline tables); a path
with no key of its own (an item of `args`) is placed by its nearest ancestor.
"""

from __future__ import annotations

import re
from typing import Any

from mcpctl.syntax.jsonc import JsonDocument, JsonSyntaxError
from mcpctl.syntax.toml_keys import MAX_KEY_PARTS, KeyTooLong, key_positions
from mcpctl.syntax.toml_loads import load_toml

_POSITION = re.compile(r"at line (\d+), column (\d+)")


def parse_toml(text: str) -> JsonDocument:
    """Parse TOML text; raise JsonSyntaxError with tomllib's position."""
    try:
        # First: it refuses a key that would exhaust tomllib.
        positions = key_positions(text, max_parts=MAX_KEY_PARTS)
    except KeyTooLong as error:
        raise JsonSyntaxError(str(error), error.line, error.column) from None
    try:
        # tomllib's own errors, and the limits `load_toml` words as tomllib does: its
        # recursion (a few hundred `[` in a repo's file) and a number too long to convert.
        value: dict[str, Any] = load_toml(text)
    except ValueError as error:
        message = str(error)
        found = _POSITION.search(message)
        line, column = (int(found[1]), int(found[2])) if found else (1, 1)
        raise JsonSyntaxError(re.sub(r"\s*\(at .*\)$", "", message), line, column) from None
    return JsonDocument(value, key_positions=positions)
