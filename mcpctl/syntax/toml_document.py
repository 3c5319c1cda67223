"""A TOML file read like a JSON one: its value and where each key is written (pure).

`check` and the workspace tier handle every format through `jsonc.JsonDocument`; Codex's
`.codex/config.toml` joins them here. tomllib gives no positions, so `toml_keys` reads
the text once more, as TOML and not as lines, for the line and column of every key and
header (`[mcp_servers.github.env]`, `env.TOKEN = ...`, the keys of inline tables); a path
with no key of its own (an item of `args`) is placed by its nearest ancestor.
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

from mcpctl.syntax.jsonc import JsonDocument, JsonSyntaxError
from mcpctl.syntax.toml_keys import MAX_KEY_PARTS, KeyTooLong, key_positions

_POSITION = re.compile(r"at line (\d+), column (\d+)")


def parse_toml(text: str) -> JsonDocument:
    """Parse TOML text; raise JsonSyntaxError with tomllib's position."""
    try:
        # First: it refuses a key that would exhaust tomllib.
        positions = key_positions(text, max_parts=MAX_KEY_PARTS)
    except KeyTooLong as error:
        raise JsonSyntaxError(str(error), error.line, error.column) from None
    try:
        value: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        found = _POSITION.search(message)
        line, column = (int(found[1]), int(found[2])) if found else (1, 1)
        raise JsonSyntaxError(re.sub(r"\s*\(at .*\)$", "", message), line, column) from None
    except RecursionError:
        # tomllib recurses once per nested array or inline table: a few hundred `[` in a
        # repo's file would otherwise stop `list` and `check` with an internal error.
        raise JsonSyntaxError("nested too deeply", 1, 1) from None
    except ValueError:  # a number longer than Python converts
        from mcpctl.syntax.long_numbers import long_number  # noqa: PLC0415

        raise JsonSyntaxError(*long_number(text)) from None
    return JsonDocument(value, key_positions=positions)
