"""Write or remove Codex's `[mcp_servers.NAME]` tables in place (pure; DESIGN §11).

Each table is spliced as lines, the way config.toml's `[servers.NAME]` are (the
helpers are shared with `user_config_edit.py`), so comments and order stay; when an
entry is written another way (dotted keys, an inline table) the whole document goes
through tomlkit instead. A BOM and CRLF newlines stay.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from typing import Any

from mcpctl.user_config_edit import (
    insert_table,
    render_table,
    replace_block,
    rewrite_tables,
    table_block,
    table_lines,
)


def toml_edit(text: str, top_key: str, edits: Mapping[str, dict[str, Any] | None],
              expected: dict[str, Any]) -> str | None:
    """`text` with the edits made; None when tomlkit refuses the document."""
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body = text.removeprefix("\ufeff")
    newline = "\r\n" if "\r\n" in body else "\n"
    spliced: str | None = body
    for name, entry in edits.items():
        spliced = _splice_table(spliced, top_key, name, entry, newline) if spliced is not None \
            else None
    if spliced is not None and _parses_to(spliced, expected):
        return bom + spliced
    rewritten = rewrite_tables(body, top_key, edits)
    return None if rewritten is None else bom + rewritten


def _parses_to(text: str, expected: dict[str, Any]) -> bool:
    try:
        return tomllib.loads(text) == expected
    except tomllib.TOMLDecodeError:
        return False


def _splice_table(text: str, top_key: str, name: str, entry: dict[str, Any] | None,
                  newline: str) -> str | None:
    """Replace, cut or add the `[top_key.NAME]` table as lines; None when the entry is
    written another way (dotted keys, inline table)."""
    lines, headers = table_lines(text, newline)
    block = table_block(lines, headers, (top_key, name))
    if block is not None:
        return replace_block(lines, block, None if entry is None else
                             _rendered(top_key, name, entry, newline))
    if _mentions(text, top_key, name):
        return None
    if entry is None:
        return "".join(lines)
    return insert_table(lines, headers, top_key, _rendered(top_key, name, entry, newline),
                        newline)


def _rendered(top_key: str, name: str, entry: dict[str, Any], newline: str) -> str:
    return render_table(top_key, name, entry).replace("\n", newline)


def _mentions(text: str, top_key: str, name: str) -> bool:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return True
    servers = data.get(top_key)
    return isinstance(servers, dict) and name in servers
