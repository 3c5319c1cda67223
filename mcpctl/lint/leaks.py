"""MCP010/MCP011: credentials written literally anywhere in a file.

The whole document is walked, not just `env` and `headers`: a token in `args`, in a
URL's userinfo or query, in a VS Code input's default or in a field some client
invented leaks just the same. Messages show at most the first 4 characters.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from mcpctl.credentials.argv import argv_exposure, secrets_in_argv
from mcpctl.credentials.secretlike import SecretMatch, find_secret, mask, without_references
from mcpctl.lint.rules import Hit, where
from mcpctl.syntax.jsonc import JsonPath

_ASSIGNED_NAME = re.compile(r"-{0,2}[A-Za-z_][A-Za-z0-9_.-]*")


def leak_hits(value: Any) -> Iterator[Hit]:
    # Iterative on purpose: a hostile file may nest a thousand levels deep.
    stack: list[tuple[JsonPath, Any, str | None]] = [((), value, None)]
    while stack:
        path, item, name = stack.pop()
        if isinstance(item, str):
            yield from _string_hits(path, item, name)
        elif isinstance(item, dict):
            stack.extend(((*path, key), child, key) for key, child in item.items())
        elif isinstance(item, list):
            # In an argument list, `--token VALUE` names VALUE.
            stack.extend(
                ((*path, index), child, _option_name(item[index - 1]) if index else None)
                for index, child in enumerate(item)
            )


def argv_secret_hits(path: JsonPath, entry: dict[str, Any]) -> Iterator[Hit]:
    """MCP012: a `${secret:…}` that `mcpctl run` would expand into argv (issue 14)."""
    fields: list[tuple[str | int, Any]] = [("command", entry.get("command"))]
    if isinstance(entry.get("args"), list):
        fields += [(index, arg) for index, arg in enumerate(entry["args"])]
    for key, text in fields:
        if not isinstance(text, str) or "${secret:" not in text:
            continue
        field = (*path, "command") if key == "command" else (*path, "args", key)
        for secret in secrets_in_argv({"command": text}):
            yield Hit("MCP012", field, f"{where(field)}: {argv_exposure(path[-1], secret)}")


def _option_name(previous: Any) -> str | None:
    return previous if isinstance(previous, str) and previous.startswith("-") else None


def _string_hits(path: JsonPath, text: str, name: str | None) -> Iterator[Hit]:
    if "://" in text:
        yield from _url_hits(path, text)
        return
    option, equals, value = text.partition("=")
    match = None
    if equals and _ASSIGNED_NAME.fullmatch(option):  # --api-key=VALUE, GITHUB_TOKEN=VALUE
        match = find_secret(value, name=option)
    match = match or find_secret(text, name=name)
    if match is not None:
        yield _hit(path, match)


def _url_hits(path: JsonPath, url: str) -> Iterator[Hit]:
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        password, parts = None, None
    if parts is None:
        match = find_secret(url)
        if match is not None:
            yield _hit(path, match)
        return
    if password and without_references(password).strip():
        yield Hit("MCP010", path, f"{where(path)}: literal password in the URL's userinfo "
                                  f"{json.dumps(mask(password))}")
        return
    candidates: list[tuple[str, str | None]] = [(parts.username or "", None), (parts.path, None)]
    candidates += [(value, key) for key, value in parse_qsl(parts.query)]
    for text, name in candidates:
        match = find_secret(text, name=name)
        if match is not None:
            yield _hit(path, match)
            return


def _hit(path: JsonPath, match: SecretMatch) -> Hit:
    shown = json.dumps(mask(match.text))
    if match.certain:
        return Hit("MCP010", path, f"{where(path)}: literal {match.kind} {shown}")
    return Hit("MCP011", path, f"{where(path)}: {match.kind} {shown} may be a credential")
