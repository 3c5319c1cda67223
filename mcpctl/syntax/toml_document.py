"""A TOML file read like a JSON one: its value and where each key is written (pure).

`check` and the workspace tier handle every format through `jsonc.JsonDocument`; Codex's
`.codex/config.toml` joins them here. tomllib gives no positions, so one pass over the
lines records the line and column of each `key =` under the table its header opened
(`[mcp_servers.github.env]`, `env.TOKEN = ...` and inline tables' owners included); a
path with no key of its own (an item of `args`) is placed by its nearest ancestor.
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

from mcpctl.syntax.jsonc import JsonDocument, JsonPath, JsonSyntaxError

_BARE = r"[A-Za-z0-9_-]+"
_QUOTED = r'"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\''
_DOTTED_KEY = rf"(?:{_BARE}|{_QUOTED})(?:\s*\.\s*(?:{_BARE}|{_QUOTED}))*"
_HEADER = re.compile(rf"\s*\[\[?\s*({_DOTTED_KEY})\s*\]")
_ASSIGNMENT = re.compile(rf"(\s*)({_DOTTED_KEY})\s*=")
_PART = re.compile(rf"{_BARE}|{_QUOTED}")
_POSITION = re.compile(r"at line (\d+), column (\d+)")


def parse_toml(text: str) -> JsonDocument:
    """Parse TOML text; raise JsonSyntaxError with tomllib's position."""
    try:
        value: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        found = _POSITION.search(message)
        line, column = (int(found[1]), int(found[2])) if found else (1, 1)
        raise JsonSyntaxError(re.sub(r"\s*\(at .*\)$", "", message), line, column) from None
    document = JsonDocument(value)
    _index_keys(text, document)
    return document


def _index_keys(text: str, document: JsonDocument) -> None:
    table: JsonPath = ()
    # "\n" only: a string may hold U+2028 or U+0085, which splitlines() also splits at.
    for number, line in enumerate(text.split("\n"), start=1):
        header = _HEADER.match(line)
        if header is not None:
            table = _parts(header[1])
            _record(document, table, number, line.index("[") + 1)
            continue
        assignment = _ASSIGNMENT.match(line)
        if assignment is not None:
            _record(document, (*table, *_parts(assignment[2])), number,
                    len(assignment[1]) + 1)


def _record(document: JsonDocument, path: JsonPath, line: int, column: int) -> None:
    for length in range(1, len(path) + 1):  # `[a.b.c]` also says where `a.b` begins
        document.key_positions.setdefault(path[:length], (line, column))


def _parts(dotted: str) -> JsonPath:
    return tuple(_unquote(part) for part in _PART.findall(dotted))


def _unquote(key: str) -> str:
    if key[:1] == "'":
        return key[1:-1]
    if key[:1] == '"':
        value: str = tomllib.loads(f"k = {key}")["k"]
        return value
    return key
