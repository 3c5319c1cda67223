"""`[section.NAME]` tables of a TOML document as lines (pure: text in, text out).

config.toml's `[servers.NAME]` and Codex's `[mcp_servers.NAME]` are found, replaced,
cut and inserted as text, so every other byte of the user's file stays: tomlkit files
the comment block above the next table under the table before it, so editing through
it loses or moves comments about neighbours (DESIGN §10, STYLE 5). tomlkit renders a
new table, and rewrites the whole document only for entries not written as their own
table (`splice_table` first, `rewrite_tables` when it cannot; the caller checks the
result with tomllib). tomllib gives no positions, so `name_lines` finds where each NAME
is written.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from typing import Any

from mcpctl.syntax.toml_keys import key_positions

_HEADER = r"^\s*\[\[?\s*([^\]]*?)\s*\]"  # compiled on first use (writes)

Headers = list[tuple[int, tuple[str, ...]]]


# ---- where each NAME is written, for messages ---------------------------------------------

def name_lines(text: str, section: str) -> dict[str, int]:
    """Line of each NAME of `section`: `[section.NAME]` (or `[section.NAME.sub]`),
    `section.NAME… = …` at the top level, or `NAME… = …` inside `[section]`. The first
    mention wins; a line inside a multi-line string mentions nothing (`toml_keys`)."""
    return {str(path[1]): line for path, (line, _) in key_positions(text).items()
            if len(path) == 2 and path[0] == section}


# ---- tables as lines -------------------------------------------------------------------------

def splice_table(text: str, section: str, name: str, entry: dict[str, Any] | None,
                 newline: str = "\n") -> str | None:
    """`text` with the `[section.NAME]` table replaced by `entry`, cut (None) or added, as
    lines (a last line without one gets `newline`). None when there is no such table but
    NAME is written another way (dotted keys, `NAME = {…}` inside `[section]`), or the
    text does not parse."""
    lines, headers = _table_lines(text, newline)
    block = _table_block(lines, headers, (section, name))
    if block is not None:
        return _replace_block(lines, block, None if entry is None else
                              _rendered(section, name, entry, newline))
    if _mentions(text, section, name):
        return None
    if entry is None:
        return "".join(lines)
    return _insert_table(lines, headers, section, _rendered(section, name, entry, newline),
                         newline)


def _mentions(text: str, section: str, name: str) -> bool:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return True
    tables = data.get(section)
    return isinstance(tables, dict) and name in tables


def _table_lines(text: str, newline: str) -> tuple[list[str], Headers]:
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
        match = re.match(_HEADER, line)
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


def _table_block(lines: list[str], headers: Headers,
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


def _replace_block(lines: list[str], block: tuple[int, int], rendered: str | None) -> str:
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


def _insert_table(lines: list[str], headers: Headers, section: str, rendered: str,
                  newline: str) -> str:
    """The text with `rendered` after the last table of `section`, else at the end."""
    owned = [path for _, path in headers if path[:1] == (section,)]
    at = len(lines)
    if owned:
        last = _table_block(lines, headers, owned[-1])
        at = last[1] if last else len(lines)
    gap = [newline] if at and lines[at - 1].strip() else []
    return "".join([*lines[:at], *gap, rendered, *lines[at:]])


def _is_comment(line: str) -> bool:
    return line.lstrip().startswith("#")


# ---- tables through tomlkit ------------------------------------------------------------------

def _rendered(section: str, name: str, entry: dict[str, Any], newline: str) -> str:
    """`[section.NAME]` with `entry`'s keys (tables written inline), as TOML text."""
    import tomlkit  # noqa: PLC0415 - only writes need it

    document = tomlkit.document()
    parent = tomlkit.table(is_super_table=True)
    parent[name] = _table(entry)
    document[section] = parent
    return tomlkit.dumps(document).replace("\n", newline)


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
