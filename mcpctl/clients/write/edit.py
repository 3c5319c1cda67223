"""A client's file with an export plan applied, as text (pure; DESIGN §11).

The writers change only mcpctl's entries' text (JSON and JSONC in
`client_json_edit.py`, Codex TOML in `client_toml_edit.py`); the result is parsed
again and must mean exactly the old document with those entries changed, or nothing
is written.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from mcpctl.clients.table import ClientFormat, Syntax
from mcpctl.clients.write.parse import fast_json, read_document
from mcpctl.clients.write.plan import ExportPlan
from mcpctl.clients.write.toml_edit import toml_edit, written_inline
from mcpctl.errors import ConfigError
from mcpctl.syntax.json_edit import json_edit


def apply_plan(client: ClientFormat, text: str | None, plan: ExportPlan, path: Path,
               data: dict[str, Any] | None = None) -> str:
    """The new file text: `text` with the plan's entries written or removed. `data` is
    the parsed `text` when the caller has it."""
    edits: dict[str, dict[str, Any] | None] = {
        change.name: change.entry for change in plan.changes if change.writes}
    old = text or ""
    if not edits:
        return old
    # Only the top level and the servers table change: copying just those keeps a deep
    # unrelated value (hundreds of levels) from exhausting the recursion limit.
    expected = dict(read_document(client, old, path) if data is None else data)
    servers = expected[client.top_key] = dict(expected.get(client.top_key) or {})
    for name, entry in edits.items():
        if entry is None:
            servers.pop(name, None)
        else:
            servers[name] = entry
    new = toml_edit(old, client.top_key, edits, expected) if client.syntax is Syntax.TOML \
        else json_edit(old, client.top_key, edits)
    if new is None or not _means(client, new, expected):
        if client.syntax is Syntax.TOML and written_inline(old, client.top_key):
            key = client.top_key
            raise ConfigError(f"{path}: {key!r} is written as one inline table ({key} = "
                              "{ ... }), which mcpctl cannot edit; write each server as a "
                              f"[{key}.NAME] table; the file was not changed")
        raise ConfigError(f"{path}: the edited file would not mean what was intended; "
                          "the file was not changed (please report this)")
    return new


def _means(client: ClientFormat, text: str, expected: dict[str, Any]) -> bool:
    if client.syntax is Syntax.TOML:
        try:
            return tomllib.loads(text.removeprefix("\ufeff")) == expected
        except tomllib.TOMLDecodeError:
            return False
    value = fast_json(text, jsonc=client.syntax is Syntax.JSONC)
    return value is not None and value == expected
