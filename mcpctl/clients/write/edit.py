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
from mcpctl.syntax.json_edit import json_edit_at


def apply_plan(client: ClientFormat, text: str | None, plan: ExportPlan, path: Path,
               data: dict[str, Any] | None = None) -> str:
    """The new file text: `text` with the plan's entries written or removed. `data` is
    the parsed `text` when the caller has it."""
    edits: dict[tuple[str, ...], dict[str, dict[str, Any] | None]] = {}
    for change in plan.changes:
        if change.writes:
            edits.setdefault(_section(client, change.workspace), {})[change.name] = \
                change.entry
    old = text or ""
    if not edits:
        return old
    expected = _expected(client, read_document(client, old, path) if data is None else data,
                         edits, path)
    if client.syntax is Syntax.TOML:
        new = toml_edit(old, client.top_key, edits[(client.top_key,)], expected)
    else:
        new = json_edit_at(old, edits)
    if new is None or not _means(client, new, expected):
        if client.syntax is Syntax.TOML and written_inline(old, client.top_key):
            key = client.top_key
            raise ConfigError(f"{path}: {key!r} is written as one inline table ({key} = "
                              "{ ... }), which mcpctl cannot edit; write each server as a "
                              f"[{key}.NAME] table; the file was not changed")
        raise ConfigError(f"{path}: the edited file would not mean what was intended; "
                          "the file was not changed (please report this)")
    return new


def _section(client: ClientFormat, workspace: str | None) -> tuple[str, ...]:
    """Where a change goes: the top-level servers, or a project's (Claude Code)."""
    if workspace is None or client.project_key is None:
        return (client.top_key,)
    return (client.project_key, workspace, client.top_key)


def _expected(client: ClientFormat, data: dict[str, Any],
              edits: dict[tuple[str, ...], dict[str, dict[str, Any] | None]],
              path: Path) -> dict[str, Any]:
    """What the edited file must mean. Only the objects on the edited paths are
    copied: a deep unrelated value (hundreds of levels) must not exhaust the recursion
    limit, and ~/.claude.json can be tens of MB."""
    expected = dict(data)
    for section, members in edits.items():
        level = expected
        for depth, key in enumerate(section):
            current = level.get(key)
            if current is not None and not isinstance(current, dict):
                where = ".".join(section[:depth + 1])
                raise ConfigError(f"{path}: {where} is not an object, so mcpctl cannot "
                                  f"write {client.title}'s servers there; the file was not "
                                  "changed")
            level[key] = dict(current or {})
            level = level[key]
        for name, entry in members.items():
            if entry is None:
                level.pop(name, None)
            else:
                level[name] = entry
    return expected


def _means(client: ClientFormat, text: str, expected: dict[str, Any]) -> bool:
    if client.syntax is Syntax.TOML:
        try:
            return tomllib.loads(text.removeprefix("\ufeff")) == expected
        except tomllib.TOMLDecodeError:
            return False
    value = fast_json(text, jsonc=client.syntax is Syntax.JSONC)
    return value is not None and value == expected
