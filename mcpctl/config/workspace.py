"""The workspace tier: a repo's MCP config files, read-only (DESIGN §2)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from mcpctl.config.entries import EntryError, spec_from_entry
from mcpctl.config.formats import (
    ALL_TOP_KEYS,
    WORKSPACE_FORMATS,
    ConfigFormat,
    Syntax,
    folders_read,
    format_by_id,
)
from mcpctl.config.tier_load import TierLoad, read_config_text
from mcpctl.model import Definition, Problem, Source, Tier
from mcpctl.syntax import jsonc


def find_workspace_root(start: Path) -> Path:
    """The nearest ancestor of `start` (itself included) holding `.git`, else `start`."""
    start = start.resolve()
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return candidate
    return start


def load_workspace(root: Path, here: Path | None = None) -> TierLoad:
    """Every workspace format's file under `root`; a bad file never hides the others.
    With `here` (the current folder, real: the root or inside it), each format's files as
    its client reads them from there (`Reach`, issue 22 item 2), nearest first.

    The home folder is never a workspace: `~/.cursor/mcp.json` is Cursor's global file
    and `~/.mcp.json` no repo's; from `~` (or a folder of a dotfiles repo at `~`) they
    would be listed as a repo's servers, to be approved (issue 15).
    """
    load = TierLoad()
    home = _real_home()
    # One stat per folder and file name (this runs at every `run`): `here` comes real
    # (`reading_from`), so are its parents and the root among them; only a root given
    # alone is resolved, once.
    skip = home if here is not None else root if _real(root) == home else None
    for rank, fmt in enumerate(WORKSPACE_FORMATS, start=1):
        if not fmt.workspace:
            continue
        folders = (root,) if here is None else folders_read(fmt.reach, here, root)
        # A dangling symlink is reported too: it is a config file that cannot be read.
        found = [(distance, path) for distance, path in
                 ((d, f / fmt.relative_path) for d, f in enumerate(folders) if f != skip)
                 if os.path.lexists(path)]
        if fmt.layered and len(found) > 1:
            load.extend(_load_layers(found, fmt, rank * FOLDERS))
            continue
        for distance, path in found:
            load.extend(load_workspace_file(path, fmt, rank * FOLDERS + distance))
    return load


# Precedence is the format's rank in the table, then the folder's distance from here
# (nearest wins): more folders than any path can hold (PATH_MAX is 4096 bytes).
FOLDERS = 4096


def _load_layers(found: list[tuple[int, Path]], fmt: ConfigFormat, rank: int) -> TierLoad:
    """A layered format's files (distance from here, file; nearest first) as one entry
    per name (`config/layers.py`): its nearest file is its source, and its folder the
    one it is gated for; the farther files it takes keys from are its `layers`."""
    from mcpctl.config.layers import merged  # noqa: PLC0415 - only Codex's, and rare

    load = TierLoad(files=[path for _, path in found])
    layers: list[tuple[int, Path, jsonc.JsonDocument, str, Mapping[str, Any]]] = []
    for distance, path in found:
        document = parsed_file(path, fmt)
        servers = [document] if isinstance(document, Problem) else \
            servers_in(document, fmt, path)
        if isinstance(servers, list):
            load.problems.extend(servers)
        elif not isinstance(document, Problem):
            layers.append((distance, path, document, *servers))
    if load.problems:
        return load  # the merged entries cannot be known; Codex starts none of them
    for name in dict.fromkeys(name for *_, servers in layers for name in servers):
        having = [layer for layer in layers if name in layer[4]]
        distance, path, document, key, _ = having[0]
        entry = merged([servers[name] for *_, servers in reversed(having)])
        farther = tuple((p, d.position((k, name))[0]) for _, p, d, k, _ in having[1:])
        definition = definition_from_entry(name, entry, fmt, path, document, key,
                                           rank + distance, farther)
        if isinstance(definition, Problem):
            load.problems.append(definition)
        else:
            load.definitions.append(definition)
    return load


def folder_of(source: Source, default: Path) -> Path:
    """The folder a workspace definition belongs to, as the gate sees it: the one its
    format's file is read for (`sub/.mcp.json` → `sub`, `.vscode/mcp.json` → the root).
    `default` for any other source (the user tier, a client's own file)."""
    fmt = format_by_id(source.format_id) if source.tier is Tier.WORKSPACE else None
    if fmt is None:
        return default
    depth = len(PurePosixPath(fmt.relative_path).parts)
    return source.path.parents[depth - 1] if len(source.path.parents) >= depth else default


def _real(folder: Path) -> Path | None:
    try:
        return folder.resolve()
    except (OSError, RuntimeError):
        return None


def _real_home() -> Path | None:
    try:
        return Path.home().resolve()
    except (OSError, RuntimeError):  # no home folder at all: nothing to confuse it with
        return None


def load_workspace_file(path: Path, fmt: ConfigFormat, precedence: int) -> TierLoad:
    load = TierLoad(files=[path])
    document = parsed_file(path, fmt)
    if isinstance(document, Problem):
        load.problems.append(document)
        return load
    definitions, problems = definitions_from_document(document, fmt, path, precedence)
    load.definitions.extend(definitions)
    load.problems.extend(problems)
    return load


def parsed_file(path: Path, fmt: ConfigFormat) -> jsonc.JsonDocument | Problem:
    """The file parsed with its positions, or the Problem that stops reading it."""
    text = read_config_text(path)
    if isinstance(text, Problem):
        return text
    try:
        return read_document(text, fmt)
    except jsonc.JsonSyntaxError as error:
        syntax = error.message.startswith(("Expecting", "Illegal trailing comma"))
        hint = "" if fmt.jsonc or not syntax else \
            " (comments and trailing commas are not allowed here)"
        return Problem(path, error.line, error.column, error.message + hint)


def read_document(text: str, fmt: ConfigFormat) -> jsonc.JsonDocument:
    """The parsed file with its positions, whatever its syntax (raises JsonSyntaxError)."""
    if fmt.syntax is Syntax.TOML:
        from mcpctl.syntax.toml_document import parse_toml  # noqa: PLC0415 - tomllib

        return parse_toml(text)
    return jsonc.parse(text, jsonc=fmt.jsonc)


def definitions_from_document(
    document: jsonc.JsonDocument, fmt: ConfigFormat, path: Path, precedence: int
) -> tuple[list[Definition], list[Problem]]:
    """Pure: interpret a parsed file of format `fmt`."""
    found = servers_in(document, fmt, path)
    if isinstance(found, list):
        return [], found
    key, servers = found
    definitions: list[Definition] = []
    problems: list[Problem] = []
    for name, entry in servers.items():
        definition = definition_from_entry(name, entry, fmt, path, document, key, precedence)
        if isinstance(definition, Problem):
            problems.append(definition)
        else:
            definitions.append(definition)
    return definitions, problems


def servers_in(document: jsonc.JsonDocument, fmt: ConfigFormat, path: Path
               ) -> tuple[str, Mapping[str, Any]] | list[Problem]:
    """Pure: the key a file's servers are under and its servers, or why none can be read."""
    if document.duplicates:
        # Two parsers that disagree about which duplicate wins is an attack: refuse the file.
        refused = [
            Problem(path, d.line, d.column,
                    f"duplicate key {_dotted(d.path)} (first at line {d.first_line})")
            for d in document.duplicates
        ]
        if document.more_duplicates:
            last = document.duplicates[-1]
            refused.append(Problem(path, last.line, last.column,
                                   f"… and {document.more_duplicates:,} more duplicate keys"))
        return refused
    top = document.value
    if not isinstance(top, dict):
        return [Problem(path, 1, 1, "top level must be a JSON object")]
    servers = _servers_object(top, fmt, path, document)
    if isinstance(servers, Problem):
        return [servers]
    return fmt.servers_key(top), servers


def definition_from_entry(
    name: str, entry: Any, fmt: ConfigFormat, path: Path, document: jsonc.JsonDocument,
    key: str, precedence: int, layers: tuple[tuple[Path, int], ...] = (),
) -> Definition | Problem:
    """Pure: one entry of `document` (at `path`), or where and why it is no server."""
    line, column = document.position((key, name))
    try:
        spec = spec_from_entry(name, in_seconds(entry, fmt), fmt.aliases)
    except EntryError as error:
        if error.field is not None:
            line, column = _field_position(document, (key, name), error.field,
                                           fmt) or (line, column)
        return Problem(path, line, column, str(error))
    return Definition(spec, Source(Tier.WORKSPACE, path, line, precedence, fmt.id, layers))


def in_seconds(entry: Any, fmt: ConfigFormat) -> Any:
    """The entry with its `timeout` in seconds (Kiro and Gemini write milliseconds)."""
    if fmt.timeout_seconds == 1 or not isinstance(entry, Mapping):
        return entry
    timeout = entry.get("timeout")
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        return entry
    return {**entry, "timeout": timeout * fmt.timeout_seconds}


def _servers_object(
    top: Mapping[str, Any], fmt: ConfigFormat, path: Path, document: jsonc.JsonDocument
) -> Mapping[str, Any] | Problem:
    key = fmt.servers_key(top)
    if key not in top:
        if fmt.generic or fmt.companion_keys is None:
            return {}  # another tool's file, or a client's settings without servers
        wrong = sorted((ALL_TOP_KEYS - {fmt.top_key}) & top.keys())
        unexpected = sorted(set(top) - fmt.companion_keys)
        if wrong or unexpected:
            found = wrong or unexpected
            line, column = document.position((found[0],))
            return Problem(path, line, column,
                           f"expected top-level key {fmt.top_key!r} for {fmt.relative_path}, "
                           f"found {found[0]!r}")
        return {}
    servers = top[key]
    if not isinstance(servers, dict):
        line, column = document.position((key,))
        return Problem(path, line, column, f"{key!r} must be an object of servers")
    return servers


def _field_position(
    document: jsonc.JsonDocument, entry: jsonc.JsonPath, field: str, fmt: ConfigFormat
) -> tuple[int, int] | None:
    """Where a field is written, under its own name or an alias (`serverUrl` for `url`)."""
    for key in (field, *(raw for raw, canonical in fmt.aliases.items() if canonical == field)):
        if (*entry, key) in document.key_positions:
            return document.key_positions[(*entry, key)]
    return None


def _dotted(path: jsonc.JsonPath) -> str:
    return ".".join(str(part) for part in path)
