"""The user tier, write side: surgical edits of config.toml (DESIGN §10, STYLE 5).

Only the lines of the `[servers.NAME]` table change; the user's comments, blank lines
and order stay (tomlkit renders the new table, and edits the whole document only when
an entry is not written as its own table). Every edit holds the lock for the whole
read-modify-write, re-reads the new text with tomllib and refuses to save unless it
means exactly what was intended, then replaces the file atomically. A file that does
not parse is never overwritten.
"""

from __future__ import annotations

import copy
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpctl.atomic import atomic_write_text, file_lock
from mcpctl.entries import EntryError, entry_from_spec, spec_from_entry
from mcpctl.errors import ConfigError, UsageError
from mcpctl.model import Problem
from mcpctl.tier_load import read_config_text
from mcpctl.user_config import server_lines, toml_problem

_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]*?)\s*\]")


@dataclass(frozen=True)
class EditResult:
    status: str  # added | unchanged | replaced | removed | absent
    previous: dict[str, Any] | None = None


def add_server(path: Path, name: str, entry: dict[str, Any], *, replace: bool) -> EditResult:
    def change(data: dict[str, Any], text: str) -> tuple[EditResult, dict[str, Any] | None]:
        previous = data.get("servers", {}).get(name)
        if previous is None:
            return EditResult("added"), entry
        if _same(name, previous, entry):
            return EditResult("unchanged", previous), None
        if not replace:
            line = server_lines(text).get(name, 1)
            raise UsageError(
                f"server {name!r} already exists at {path}:{line} with a different definition"
                f" (old: {_describe(previous)}; new: {_describe(entry)}); "
                "use --replace to overwrite it"
            )
        return EditResult("replaced", previous), entry

    return _edit(path, name, change)


def remove_server(path: Path, name: str) -> EditResult:
    def change(data: dict[str, Any], _: str) -> tuple[EditResult, dict[str, Any] | None]:
        previous = data.get("servers", {}).get(name)
        if previous is None:
            return EditResult("absent"), None
        return EditResult("removed", previous), {}

    return _edit(path, name, change)


Change = Callable[[dict[str, Any], str], tuple[EditResult, "dict[str, Any] | None"]]


def _edit(path: Path, name: str, change: Change) -> EditResult:
    """`change` returns the result and the new entry: None = no write, {} = delete."""
    with file_lock(path):
        text = _current_text(path)
        data = _parse(path, text)
        if not isinstance(data.get("servers", {}), dict):
            raise ConfigError(f"{path}: 'servers' is not a table; the file was not changed")
        result, new_entry = change(data, text)
        if new_entry is None:
            return result
        expected = copy.deepcopy(data)
        servers = expected.setdefault("servers", {})
        if new_entry:
            servers[name] = new_entry
        else:
            del servers[name]
        # Splice the text first (keeps every comment); tomlkit when the entry is not
        # written as its own table. Whatever is saved must mean exactly `expected`.
        for rewrite in (_splice, _rewrite_with_tomlkit):
            new_text = rewrite(text, name, new_entry)
            if new_text is not None and _means(new_text, expected):
                atomic_write_text(path, new_text)
                return result
        raise ConfigError(f"{path}: mcpctl cannot change {name!r} here without changing what "
                          "the rest of the file means (it edits [servers.NAME] tables; write "
                          "servers that way); the file was not changed")


def _means(text: str, expected: dict[str, Any]) -> bool:
    try:
        actual = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    return _without_empty_servers(actual) == _without_empty_servers(expected)


def _without_empty_servers(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if not (k == "servers" and v == {})}


def _current_text(path: Path) -> str:
    if not path.exists() and not path.is_symlink():
        return ""
    text = read_config_text(path)
    if isinstance(text, Problem):
        raise ConfigError(f"{text}; the file was not changed")
    return text


def _parse(path: Path, text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{toml_problem(path, error, text)}; the file was not changed") from None


def _splice(text: str, name: str, entry: dict[str, Any]) -> str | None:
    """Edit as text: replace, cut or insert the `[servers.NAME]` table's own lines.

    tomlkit files the comment block above the next table under the table before it, so
    editing through it loses or moves comments about neighbours. Returns None when the
    server exists but is not written as its own table (`[servers]` + `NAME = {...}`, or
    dotted keys).
    """
    # Lines end at "\n" only: TOML strings may hold U+2028, which splitlines splits at.
    lines = [part + "\n" for part in text.split("\n")]
    if not text or text.endswith("\n"):
        lines.pop()
    headers = _headers(lines)
    block = _table_block(lines, headers, ("servers", name))
    if block is None:
        if not entry or name in server_lines(text):
            return None
        at = _insertion_point(lines, headers)
        gap = ["\n"] if at and lines[at - 1].strip() else []
        return "".join([*lines[:at], *gap, _render_table(name, entry), *lines[at:]])
    begin, end = block
    if entry:
        return "".join([*lines[:begin], _render_table(name, entry), *lines[end:]])
    while begin > 0 and _is_comment(lines[begin - 1]):
        begin -= 1  # the comment written directly above the table is about it
    while end < len(lines) and not lines[end].strip():
        end += 1
    if end == len(lines):
        while begin > 0 and not lines[begin - 1].strip():
            begin -= 1
    return "".join(lines[:begin] + lines[end:])


def _headers(lines: list[str]) -> list[tuple[int, tuple[str, ...]]]:
    """(line index, key path) of every table header, `[a.b]` and `[[a.b]]`."""
    found = []
    for index, line in enumerate(lines):
        match = _HEADER.match(line)
        if match is None:
            continue
        try:
            data: Any = tomllib.loads(f"[{match[1]}]")
        except tomllib.TOMLDecodeError:
            continue  # a line inside a multi-line array or string, not a header
        path: list[str] = []
        while isinstance(data, dict) and len(data) == 1:
            key = next(iter(data))
            path.append(key)
            data = data[key]
        found.append((index, tuple(path)))
    return found


def _table_block(lines: list[str], headers: list[tuple[int, tuple[str, ...]]],
                 key: tuple[str, ...]) -> tuple[int, int] | None:
    """Lines of the table `key` and the sub-tables right after it, without trailing
    blank lines and comments (they are about what follows)."""
    begin = next((index for index, path in headers if path == key), None)
    if begin is None:
        return None
    end = next((index for index, path in headers
                if index > begin and path[:len(key)] != key), len(lines))
    while end - 1 > begin and (not lines[end - 1].strip() or _is_comment(lines[end - 1])):
        end -= 1
    return begin, end


def _insertion_point(lines: list[str], headers: list[tuple[int, tuple[str, ...]]]) -> int:
    """After the last table of the `servers` section, else at the end of the file."""
    last = [path for _, path in headers if path[:1] == ("servers",)]
    if not last:
        return len(lines)
    block = _table_block(lines, headers, last[-1])
    return block[1] if block else len(lines)


def _is_comment(line: str) -> bool:
    return line.lstrip().startswith("#")


def _render_table(name: str, entry: dict[str, Any]) -> str:
    import tomlkit  # noqa: PLC0415 - only writes need it

    document = tomlkit.document()
    servers = tomlkit.table(is_super_table=True)
    servers[name] = _table(entry)
    document["servers"] = servers
    return tomlkit.dumps(document)


def _table(entry: dict[str, Any]) -> Any:
    import tomlkit  # noqa: PLC0415

    table = tomlkit.table()
    for key, value in entry.items():
        if isinstance(value, dict):
            inline = tomlkit.inline_table()
            inline.update(value)
            table[key] = inline
        else:
            table[key] = value
    return table


def _rewrite_with_tomlkit(text: str, name: str, entry: dict[str, Any]) -> str | None:
    import tomlkit  # noqa: PLC0415 - only writes need it (~0.5 s per 2,000 tables to parse)

    try:
        document = tomlkit.parse(text)
        servers = document.get("servers")
        if entry:
            if servers is None:
                servers = tomlkit.table(is_super_table=True)
                document["servers"] = servers
            servers[name] = _table(entry)
        elif servers is not None:
            del servers[name]
        return tomlkit.dumps(document)
    except Exception:  # noqa: BLE001 - tomlkit refuses some layouts (an inline `servers`)
        return None


def _same(name: str, old: Any, new: dict[str, Any]) -> bool:
    try:
        return entry_from_spec(spec_from_entry(name, old)) == entry_from_spec(
            spec_from_entry(name, new))
    except EntryError:
        return bool(old == new)


def _describe(entry: Any) -> str:
    import json  # noqa: PLC0415

    return json.dumps(entry, ensure_ascii=False, separators=(", ", ": "), sort_keys=False)
