"""A client's file parsed strictly, before mcpctl writes it (pure; DESIGN §11).

Reading for display is forgiving (`client_document.py`); before a write it is not:
mcpctl does not touch a file it cannot read unambiguously (a syntax error, a repeated
key, servers that are not a table), and says where the trouble is.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcpctl.clients.table import ClientFormat, Syntax
from mcpctl.errors import ConfigError
from mcpctl.syntax import jsonc
from mcpctl.syntax.jsonc import blank_jsonc
from mcpctl.syntax.toml_loads import load_toml


def read_servers(client: ClientFormat, text: str | None, path: Path) -> dict[str, Any]:
    """The client's top-level servers (raw entries), or ConfigError."""
    return servers_of(client, read_document(client, text, path), path)


def servers_of(client: ClientFormat, data: dict[str, Any], path: Path) -> dict[str, Any]:
    servers = data.get(client.top_key, {})
    if not isinstance(servers, dict):
        raise ConfigError(f"{path}: {client.top_key!r} is not a table of servers; "
                          "the file was not changed")
    return servers


def project_servers(client: ClientFormat, data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per project folder, the client's servers there (Claude Code's
    `projects[<folder>].mcpServers`); sections that hold no servers object are skipped
    (mcpctl writes into one only after checking its shape: `edit.py`)."""
    sections = data.get(client.project_key) if client.project_key else None
    if not isinstance(sections, dict):
        return {}
    found = {}
    for folder, section in sections.items():
        servers = section.get(client.top_key) if isinstance(section, dict) else None
        if isinstance(servers, dict):
            found[folder] = servers
    return found


def read_document(client: ClientFormat, text: str | None, path: Path) -> dict[str, Any]:
    """The whole parsed file ({} for none), or ConfigError."""
    return _parse(client, text, path) if text is not None and text.strip() else {}


def _parse(client: ClientFormat, text: str, path: Path) -> dict[str, Any]:
    if client.syntax is Syntax.TOML:
        try:
            return load_toml(text.removeprefix("\ufeff"))
        except ValueError as error:  # tomllib's own, or its nesting limit
            from mcpctl.config.user_config import toml_problem  # noqa: PLC0415

            raise ConfigError(f"{toml_problem(path, error, text)}; the file was not changed") \
                from None
    value = fast_json(text, jsonc=client.syntax is Syntax.JSONC)
    if value is None:  # not valid, or a duplicate key: parse again for the position
        _explain(client, text, path)
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: the top level is not an object; the file was not changed")
    return value


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _DuplicateKey
    return result


def fast_json(text: str, *, jsonc: bool) -> Any:
    """The value, or None when the text is not valid or repeats a key (~/.claude.json
    can be tens of MB: this skips the position index until a message needs it)."""
    source = " " + text[1:] if text.startswith("\ufeff") else text  # the BOM, not any U+FEFF
    if jsonc:
        source = blank_jsonc(source)
    try:
        return json.loads(source, object_pairs_hook=_no_duplicates)
    except (ValueError, RecursionError):
        return None


def _explain(client: ClientFormat, text: str, path: Path) -> None:
    try:
        document = jsonc.parse(text, jsonc=client.syntax is Syntax.JSONC)
    except jsonc.JsonSyntaxError as error:
        raise ConfigError(f"{path}:{error.line}:{error.column}: {error.message}; "
                          "the file was not changed") from None
    if document.duplicates:
        first = document.duplicates[0]
        dotted = ".".join(str(part) for part in first.path)
        raise ConfigError(f"{path}:{first.line}:{first.column}: duplicate key {dotted} "
                          f"(first at line {first.first_line}); which one {client.title} "
                          "uses is unclear, so the file was not changed")
    raise ConfigError(f"{path}: cannot be read as JSON; the file was not changed")
