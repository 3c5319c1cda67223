"""The user tier, write side: surgical edits of config.toml (DESIGN §10, STYLE 5).

Only the lines of the `[servers.NAME]` table change; the user's comments, blank lines
and order stay (tomlkit renders the new table, and edits the whole document only when
an entry is not written as its own table). Every edit holds the lock for the whole
read-modify-write, re-reads the new text with tomllib and refuses to save unless it
means exactly what was intended, then replaces the file atomically. A file that does
not parse is never overwritten.

That read-modify-write is `edit_config`, shared by every edit of config.toml (`[clients]`
too); the line-level table splicing is `toml_tables.py`, which also writes Codex's
`[mcp_servers.NAME]`.
"""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from mcpctl.config.entries import (
    MAX_NESTING,
    EntryError,
    entry_from_spec,
    nests_past,
    spec_from_entry,
)
from mcpctl.config.tier_load import read_config_text, read_file_text
from mcpctl.config.user_config import server_lines, toml_problem
from mcpctl.credentials.masking import masked_entry
from mcpctl.errors import ConfigError, UsageError
from mcpctl.files.atomic import atomic_write_text, file_lock
from mcpctl.model import Problem
from mcpctl.syntax.toml_loads import load_toml
from mcpctl.syntax.toml_tables import rewrite_tables, splice_table


class EditResult(NamedTuple):
    """What an edit of config.toml did to one server, and what was there before."""

    status: str  # added | unchanged | replaced | removed | absent
    previous: dict[str, Any] | None = None


def add_server(path: Path, name: str, entry: dict[str, Any], *, replace: bool,
               before_write: Callable[[], None] | None = None) -> EditResult:
    """Add or replace `name`; `before_write` runs under the lock only when the file is
    about to change (e.g. storing the entry's secrets, so a refused add stores none)."""
    if nests_past(entry):
        raise UsageError(f"server {name!r}: the entry nests tables and arrays more than "
                         f"{MAX_NESTING} levels deep; mcpctl writes at most {MAX_NESTING}")

    def change(data: dict[str, Any], text: str) -> tuple[EditResult, dict[str, Any] | None]:
        previous = data.get("servers", {}).get(name)
        if previous is not None and _same(name, previous, entry):
            return EditResult("unchanged", previous), None
        if previous is not None and not replace:
            line = server_lines(text).get(name, 1)
            raise UsageError(
                f"server {name!r} already exists at {path}:{line} with a different definition"
                f" (old: {_describe(previous)}; new: {_describe(entry)}); "
                "use --replace to overwrite it"
            )
        if before_write is not None:
            before_write()
        return EditResult("added" if previous is None else "replaced", previous), entry

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
                   entry: dict[str, Any]) -> "ConfigChange":
    import copy  # noqa: PLC0415 - exports and edits only, not list's start

    expected = copy.deepcopy(data)
    servers = expected.setdefault("servers", {})
    if entry:
        servers[name] = entry
    else:
        del servers[name]
    # Splice the text first (keeps every comment); tomlkit when the entry is not
    # written as its own table.
    return ConfigChange(
        expected, (lambda text: splice_table(text, "servers", name, entry or None),
                   lambda text: rewrite_tables(text, "servers", {name: entry or None})),
        f"{path}: mcpctl cannot change {name!r} here without changing what the rest of the "
        "file means (it edits [servers.NAME] tables; write servers that way); the file was "
        "not changed")


# ---- the one read-modify-write of config.toml ------------------------------------------

T = TypeVar("T")


class ConfigChange(NamedTuple):
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
        raw = config_text(path, keep_newlines=True)
        # Edits work on "\n" lines; a CRLF file is written back as CRLF, so only the
        # server's own lines change.
        newline = "\r\n" if "\r\n" in raw else "\n"
        text = raw.replace("\r\n", "\n")
        outcome, change = edit(text, parse_config(path, text))
        if change is None:
            return outcome
        for rewrite in change.rewrites:
            new_text = rewrite(text)
            if new_text is None:
                continue
            new_text = new_text.replace("\n", newline) if newline != "\n" else new_text
            if _means(new_text, change.expected):
                atomic_write_text(path, new_text)
                return outcome
        raise ConfigError(change.refusal)


def _means(text: str, expected: dict[str, Any]) -> bool:
    try:
        actual = load_toml(text)
    except ValueError:
        return False
    # Compared as canonical JSON: `nan` (valid TOML) never equals itself as a float.
    return _canonical(_without_empty_servers(actual)) == _canonical(
        _without_empty_servers(expected))


def _canonical(data: dict[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, default=str)


def _without_empty_servers(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if not (k == "servers" and v == {})}


def config_text(path: Path, *, keep_newlines: bool = False) -> str:
    """config.toml's text ("" when there is none); ConfigError when it cannot be read."""
    if not path.exists() and not path.is_symlink():
        return ""
    text = read_file_text(path) if keep_newlines else read_config_text(path)
    if isinstance(text, Problem):
        raise ConfigError(f"{text}; the file was not changed")
    return text


def parse_config(path: Path, text: str) -> dict[str, Any]:
    try:
        return load_toml(text)
    except ValueError as error:
        raise ConfigError(f"{toml_problem(path, error, text)}; the file was not changed") from None


def _same(name: str, old: Any, new: dict[str, Any]) -> bool:
    try:
        return entry_from_spec(spec_from_entry(name, old)) == entry_from_spec(
            spec_from_entry(name, new))
    except EntryError:
        return bool(old == new)


def _describe(entry: Any) -> str:
    """An entry for a message, with secret-looking values masked."""
    return json.dumps(masked_entry(entry), ensure_ascii=False, separators=(", ", ": "),
                      sort_keys=False, default=str)
