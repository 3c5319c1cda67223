"""Every server of one client file, from its text (pure; DESIGN §11).

Reading is forgiving: a file that does not parse, or an entry that is not a server,
is a Problem with its position and the rest is still read (`mcpctl clients`, import).
Writing is strict instead (`client_edit.py`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcpctl.clients.server import ClientServer, servers_from_data
from mcpctl.clients.table import ClientFormat, Syntax
from mcpctl.model import Problem, Tier
from mcpctl.syntax import jsonc
from mcpctl.syntax.toml_loads import load_toml
from mcpctl.syntax.toml_tables import name_lines

Found = tuple[list[ClientServer], list[Problem]]


def read_client_document(client: ClientFormat, text: str, path: Path, root: Path, *,
                         scope: str, tier: Tier = Tier.CLIENT) -> Found:
    """Every server of one client file (all its sections)."""
    if client.syntax is Syntax.TOML:
        return _read_toml(client, text, path, scope=scope, tier=tier)
    document = _json_document(client, text, path)
    if isinstance(document, list):
        return [], document
    sections = _json_sections(client, root) if scope == "user" \
        else [(scope, (client.top_key,))]
    found: Found = ([], [])
    for section_scope, key_path in sections:
        servers, problems = _read_section(client, document, key_path, path,
                                          scope=section_scope, tier=tier)
        found[0].extend(servers)
        found[1].extend(problems)
    return found


def _json_document(client: ClientFormat, text: str,
                   path: Path) -> jsonc.JsonDocument | list[Problem]:
    """The parsed file, or why it cannot be read: it does not parse, repeats a key
    (which one the client uses is unclear) or is not an object."""
    try:
        document = jsonc.parse(text, jsonc=client.syntax is Syntax.JSONC)
    except jsonc.JsonSyntaxError as error:
        hint = "" if client.syntax is Syntax.JSONC else " (comments are not allowed here)"
        return [Problem(path, error.line, error.column, error.message + hint)]
    if document.duplicates:
        return [Problem(path, d.line, d.column, f"duplicate key {'.'.join(map(str, d.path))} "
                        f"(first at line {d.first_line})") for d in document.duplicates]
    if not isinstance(document.value, dict):
        return [Problem(path, 1, 1, "top level must be a JSON object")]
    return document


def _json_sections(client: ClientFormat, root: Path) -> list[tuple[str, tuple[str, ...]]]:
    sections: list[tuple[str, tuple[str, ...]]] = [("user", (client.top_key,))]
    if client.project_key is not None:
        sections.insert(0, ("local", (client.project_key, str(root), client.top_key)))
    return sections


def _read_section(client: ClientFormat, document: jsonc.JsonDocument,
                  key_path: tuple[str, ...], path: Path, *, scope: str, tier: Tier) -> Found:
    servers = _at(document.value, key_path)
    if servers is None:
        return [], []
    if not isinstance(servers, dict):
        line, column = document.position(key_path)
        return [], [Problem(path, line, column,
                            f"{client.top_key!r} must be an object of servers")]
    lines = {name: document.position((*key_path, name)) for name in servers}
    return servers_from_data(client, servers, scope=scope, path=path, lines=lines, tier=tier)


def _at(value: Any, key_path: tuple[str, ...]) -> Any:
    for key in key_path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _read_toml(client: ClientFormat, text: str, path: Path, *, scope: str,
               tier: Tier) -> Found:
    from mcpctl.config.user_config import toml_problem  # noqa: PLC0415

    try:
        data = load_toml(text.removeprefix("\ufeff"))
    except ValueError as error:  # tomllib's own, or its nesting limit
        return [], [toml_problem(path, error, text)]
    servers = data.get(client.top_key)
    if servers is None:
        return [], []
    if not isinstance(servers, dict):
        return [], [Problem(path, 1, 1, f"{client.top_key!r} must be a table of "
                                        f"[{client.top_key}.NAME] tables")]
    lines = {name: (line, 1) for name, line in name_lines(text, client.top_key).items()}
    return servers_from_data(client, servers, scope=scope, path=path, lines=lines, tier=tier)
