"""Write or remove Codex's `[mcp_servers.NAME]` tables in place (pure; DESIGN §11).

Each table is spliced as lines with `toml_tables.py`, the way config.toml's
`[servers.NAME]` are, so comments and order stay; when an entry is written another way
(dotted keys, an inline table) the whole document goes through tomlkit instead. A BOM
and CRLF newlines stay.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from typing import Any

from mcpctl.syntax.toml_tables import rewrite_tables, splice_table


def toml_edit(text: str, top_key: str, edits: Mapping[str, dict[str, Any] | None],
              expected: dict[str, Any]) -> str | None:
    """`text` with the edits made; None when tomlkit refuses the document."""
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body = text.removeprefix("\ufeff")
    newline = "\r\n" if "\r\n" in body else "\n"
    spliced: str | None = body
    for name, entry in edits.items():
        spliced = splice_table(spliced, top_key, name, entry, newline) if spliced is not None \
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


def written_inline(text: str, top_key: str) -> bool:
    """Whether `top_key` is one inline table (`mcp_servers = { a = {...} }`): TOML
    lets nothing be added to an inline table from outside it."""
    import tomlkit  # noqa: PLC0415
    from tomlkit.items import InlineTable  # noqa: PLC0415

    try:
        return isinstance(tomlkit.parse(text.removeprefix("\ufeff")).get(top_key),
                          InlineTable)
    except tomlkit.exceptions.TOMLKitError:
        return False
