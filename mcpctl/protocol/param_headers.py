"""`x-mcp-header`: tool parameters a server wants mirrored into `Mcp-Param-{name}`
headers (2026-07-28 server/tools "x-mcp-header", streamable-http "Custom Headers from
Tool Parameters"). Pure: schemas and arguments in, paths and headers out.

An annotation is valid only on a property reached from the schema root through
`properties` keys alone, with a non-empty token name unique regardless of case, on a
parameter typed `string`, `integer` or `boolean`. A client on Streamable HTTP must drop
a tool whose schema breaks any of that from `tools/list`. Every walk is iterative and
visits each node once, so a hostile schema costs its size, never a deep recursion.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mcpctl.protocol.http_wire import encode_header_value

KEY = "x-mcp-header"
PREFIX = "Mcp-Param-"
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # RFC 9110 §5.1 tchar
_TYPES = frozenset({"string", "integer", "boolean"})
_SAFE_INTEGER = 2**53 - 1

Path = tuple[str, ...]


class InvalidAnnotation(ValueError):
    """The tool's `x-mcp-header` annotations break the spec; the message says how."""


def annotated_paths(schema: Any) -> dict[Path, str]:
    """Property path → header name part, for each annotated property of `schema`."""
    found: dict[Path, str] = {}
    seen: set[str] = set()
    stack: list[tuple[Path, Any]] = [((), schema)]
    while stack:
        path, node = stack.pop()
        if not isinstance(node, dict):
            continue
        if KEY in node and path:
            found[path] = _checked(node, path, seen)
        properties = node.get("properties")
        if isinstance(properties, dict):
            stack.extend(((*path, name), child) for name, child in properties.items())
    if _count(schema) != len(found):
        raise InvalidAnnotation(f"{KEY} is allowed only on properties reached through "
                                "`properties` from the schema root")
    return found


def _checked(node: Mapping[str, Any], path: Path, seen: set[str]) -> str:
    token = node[KEY]
    where = ".".join(path)
    if not isinstance(token, str) or not _TOKEN.fullmatch(token):
        raise InvalidAnnotation(f"{KEY} of {where} is not an HTTP header name token")
    if token.lower() in seen:
        raise InvalidAnnotation(f"{KEY} {token!r} is used twice (case-insensitively)")
    if node.get("type") not in _TYPES:
        raise InvalidAnnotation(f"{KEY} of {where} is on a parameter that is not a string, "
                                "integer or boolean")
    seen.add(token.lower())
    return token


def _count(schema: Any) -> int:
    """Annotations anywhere in `schema` (the keys of a `properties` map are names, not
    keywords, so a property called `x-mcp-header` is not one)."""
    count = 0
    stack: list[tuple[Any, bool]] = [(schema, False)]
    while stack:
        node, is_properties = stack.pop()
        if isinstance(node, dict):
            if not is_properties and KEY in node:
                count += 1
            stack.extend((value, key == "properties" and not is_properties)
                         for key, value in node.items())
        elif isinstance(node, list):
            stack.extend((item, False) for item in node)
    return count


def mirrored(paths: Mapping[Path, str], arguments: Any) -> dict[str, str]:
    """The `Mcp-Param-*` headers one call carries; a value absent (or null) at its path
    means no header ("Value Encoding" and the scenario table)."""
    headers: dict[str, str] = {}
    for path, token in paths.items():
        value = _at(arguments, path)
        text = _as_text(value)
        if text is not None:
            headers[PREFIX + token] = encode_header_value(text)
    return headers


def _at(arguments: Any, path: Path) -> Any:
    value = arguments
    for name in path:
        if not isinstance(value, dict):
            return None
        value = value.get(name)
    return value


def _as_text(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and abs(value) <= _SAFE_INTEGER:
        return str(value)
    if isinstance(value, str):
        return value
    return None
