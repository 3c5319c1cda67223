"""The user tier, write side: surgical edits of config.toml (DESIGN §10, STYLE 5).

Only the lines of the `[servers.NAME]` table change; the user's comments, blank lines
and order stay (tomlkit renders the new table, and edits the whole document only when
an entry is not written as its own table). Every edit holds the lock for the whole
read-modify-write, re-reads the new text with tomllib and refuses to save unless it
means exactly what was intended, then replaces the file atomically. A file that does
not parse is never overwritten.

That read-modify-write is `edit_config`, shared by every edit of config.toml (`[clients]`
too), and the line-level table splicing also writes Codex's `[mcp_servers.NAME]`.
"""

from __future__ import annotations

import copy
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

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
    def edit(text: str, data: dict[str, Any]) -> tuple[EditResult, ConfigChange | None]:
        if not isinstance(data.get("servers", {}), dict):
            raise ConfigError(f"{path}: 'servers' is not a table; the file was not changed")
        result, new_entry = change(data, text)
        return result, None if new_entry is None else _server_change(path, name, data,
                                                                     new_entry)

    return edit_config(path, edit)


def _server_change(path: Path, name: str, data: dict[str, Any],
                   entry: dict[str, Any]) -> ConfigChange:
    expected = copy.deepcopy(data)
    servers = expected.setdefault("servers", {})
    if entry:
        servers[name] = entry
    else:
        del servers[name]
    # Splice the text first (keeps every comment); tomlkit when the entry is not
    # written as its own table.
    return ConfigChange(
        expected, (lambda text: _splice(text, name, entry),
                   lambda text: rewrite_tables(text, "servers", {name: entry or None})),
        f"{path}: mcpctl cannot change {name!r} here without changing what the rest of the "
        "file means (it edits [servers.NAME] tables; write servers that way); the file was "
        "not changed")


# ---- the one read-modify-write of config.toml ------------------------------------------

T = TypeVar("T")


@dataclass(frozen=True)
class ConfigChange:
    """What an edit saves: the first of `rewrites(old_text)` that means `expected`."""

    expected: dict[str, Any]
    rewrites: tuple[Callable[[str], str | None], ...]
    refusal: str  # the error when none does


def edit_config(path: Path,
                edit: Callable[[str, dict[str, Any]], tuple[T, ConfigChange | None]]) -> T:
    """Under the file's lock: read and parse config.toml, let `edit` decide (None: no
    write), re-read each candidate text with tomllib and save the first that means
    exactly what was intended, atomically. ConfigError when none does."""
    with file_lock(path):
        text = config_text(path)
        outcome, change = edit(text, parse_config(path, text))
        if change is None:
            return outcome
        for rewrite in change.rewrites:
            new_text = rewrite(text)
            if new_text is not None and _means(new_text, change.expected):
                atomic_write_text(path, new_text)
                return outcome
        raise ConfigError(change.refusal)


def _means(text: str, expected: dict[str, Any]) -> bool:
    try:
        actual = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    return _without_empty_servers(actual) == _without_empty_servers(expected)


def _without_empty_servers(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if not (k == "servers" and v == {})}


def config_text(path: Path) -> str:
    """config.toml's text ("" when there is none); ConfigError when it cannot be read."""
    if not path.exists() and not path.is_symlink():
        return ""
    text = read_config_text(path)
    if isinstance(text, Problem):
        raise ConfigError(f"{text}; the file was not changed")
    return text


def parse_config(path: Path, text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{toml_problem(path, error, text)}; the file was not changed") from None


# ---- TOML tables as lines (config.toml's [servers.NAME], Codex's [mcp_servers.NAME]) ----

def _splice(text: str, name: str, entry: dict[str, Any]) -> str | None:
    """Edit as text: replace, cut or insert the `[servers.NAME]` table's own lines.

    tomlkit files the comment block above the next table under the table before it, so
    editing through it loses or moves comments about neighbours. Returns None when the
    server exists but is not written as its own table (`[servers]` + `NAME = {...}`, or
    dotted keys).
    """
    lines, headers = table_lines(text)
    block = table_block(lines, headers, ("servers", name))
    if block is not None:
        return replace_block(lines, block, render_table("servers", name, entry) if entry
                             else None)
    if not entry or name in server_lines(text):
        return None
    return insert_table(lines, headers, "servers", render_table("servers", name, entry))


Headers = list[tuple[int, tuple[str, ...]]]


def table_lines(text: str, newline: str = "\n") -> tuple[list[str], Headers]:
    """The lines of `text` (the last one ended with `newline`) and its table headers."""
    # Lines end at "\n" only: TOML strings may hold U+2028, which splitlines splits at.
    lines = [part + "\n" for part in text.split("\n")]
    if not text or text.endswith("\n"):
        lines.pop()
    else:
        lines[-1] = lines[-1][:-1] + newline
    return lines, _headers(lines)


def _headers(lines: list[str]) -> Headers:
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


def table_block(lines: list[str], headers: Headers,
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


def replace_block(lines: list[str], block: tuple[int, int], rendered: str | None) -> str:
    """The text with the table at `block` replaced by `rendered`, or cut (None) with the
    comment written directly above it, which is about it."""
    begin, end = block
    if rendered is not None:
        return "".join([*lines[:begin], rendered, *lines[end:]])
    while begin > 0 and _is_comment(lines[begin - 1]):
        begin -= 1
    while end < len(lines) and not lines[end].strip():
        end += 1
    if end == len(lines):
        while begin > 0 and not lines[begin - 1].strip():
            begin -= 1
    return "".join(lines[:begin] + lines[end:])


def insert_table(lines: list[str], headers: Headers, section: str, rendered: str,
                 newline: str = "\n") -> str:
    """The text with `rendered` after the last table of `section`, else at the end."""
    owned = [path for _, path in headers if path[:1] == (section,)]
    at = len(lines)
    if owned:
        last = table_block(lines, headers, owned[-1])
        at = last[1] if last else len(lines)
    gap = [newline] if at and lines[at - 1].strip() else []
    return "".join([*lines[:at], *gap, rendered, *lines[at:]])


def _is_comment(line: str) -> bool:
    return line.lstrip().startswith("#")


def render_table(section: str, name: str, entry: dict[str, Any]) -> str:
    """`[section.NAME]` with `entry`'s keys (tables written inline), as TOML text."""
    import tomlkit  # noqa: PLC0415 - only writes need it

    document = tomlkit.document()
    parent = tomlkit.table(is_super_table=True)
    parent[name] = _table(entry)
    document[section] = parent
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


def rewrite_tables(text: str, section: str,
                   edits: Mapping[str, dict[str, Any] | None]) -> str | None:
    """Write (or remove, None) each `[section.NAME]` through tomlkit, for entries not
    written as their own table; None when tomlkit refuses the document."""
    import tomlkit  # noqa: PLC0415 - only writes need it (~0.5 s per 2,000 tables to parse)

    try:
        document = tomlkit.parse(text)
        tables = document.get(section)
        for name, entry in edits.items():
            if entry is None:
                if tables is not None and name in tables:
                    del tables[name]
                continue
            if tables is None:
                tables = tomlkit.table(is_super_table=True)
                document[section] = tables
            tables[name] = _table(entry)
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
