"""The user tier, read side: `config.toml` parsed with tomllib (fast, read-only).

A server with `workspace = "/abs/project"` is the user's own server for that one
project (like Claude Code's local scope): it is part of the user tier only when the
workspace root is that folder (both compared as real paths).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from mcpctl.config.entries import EntryError, spec_from_entry
from mcpctl.config.tier_load import TierLoad, read_config_text
from mcpctl.model import Definition, Problem, ServerSpec, Source, Tier
from mcpctl.syntax.toml_loads import load_toml
from mcpctl.syntax.toml_tables import name_lines

_TOMLLIB_POSITION = r"\s*\(at line (\d+), column (\d+)\)$"  # compiled on first use
_AT_END = " (at end of document)"
# The key of a per-workspace server. Names stay unique in config.toml, so
# `mcpctl run NAME` never has to guess which project's server is meant.
WORKSPACE_KEY = "workspace"


def load_user_tier(path: Path, root: Path | None = None) -> TierLoad:
    """The user tier; with `root`, only the servers that apply there (a per-workspace
    server of another folder is left out). Without it, every server."""
    load = _load_all(path)
    if root is not None:
        here = os.path.realpath(root)
        load.definitions = [d for d in load.definitions
                            if workspace_key_of(d.spec) in (None, here)]
    return load


def workspace_of(spec: ServerSpec) -> str | None:
    """The folder a per-workspace server belongs to, as written; None: every folder."""
    value = spec.extra.get(WORKSPACE_KEY)
    return value if isinstance(value, str) else None


def workspace_key_of(spec: ServerSpec) -> str | None:
    """The real path of a per-workspace server's folder (`~` expanded); None: every
    folder. Clients key their per-project sections by this path."""
    written = workspace_of(spec)
    return None if written is None else os.path.realpath(os.path.expanduser(written))


def _load_all(path: Path) -> TierLoad:
    load = TierLoad()
    if not path.exists():
        return load
    load.files.append(path)
    text = read_config_text(path)
    if isinstance(text, Problem):
        load.problems.append(text)
        return load
    try:
        data = load_toml(text)
    except ValueError as error:  # tomllib's own, or its nesting limit
        load.problems.append(toml_problem(path, error, text))
        return load
    definitions, problems = definitions_from_toml(data, text, path)
    load.definitions.extend(definitions)
    load.problems.extend(problems)
    return load


def toml_problem(path: Path, error: ValueError, text: str) -> Problem:
    message = str(error)
    match = re.search(_TOMLLIB_POSITION, message)
    if match is not None:
        return Problem(path, int(match[1]), int(match[2]), message[: match.start()])
    if message.endswith(_AT_END):
        lines = text.split("\n")
        return Problem(path, len(lines), len(lines[-1]) + 1, message[: -len(_AT_END)])
    return Problem(path, 1, 1, message)


def definitions_from_toml(
    data: dict[str, Any], text: str, path: Path
) -> tuple[list[Definition], list[Problem]]:
    """Pure: the `[servers.NAME]` tables of a parsed config.toml."""
    servers = data.get("servers", {})
    lines = server_lines(text)
    if not isinstance(servers, dict):
        return [], [Problem(path, 1, 1, "'servers' must be a table of [servers.NAME] tables")]
    definitions: list[Definition] = []
    problems: list[Problem] = _misnamed_tables(data, text, path)
    for name, entry in servers.items():
        line = lines.get(name, 1)
        try:
            spec = spec_from_entry(name, entry)
            _check_workspace(name, spec)
        except EntryError as error:
            problems.append(Problem(path, line, 1, str(error)))
            continue
        definitions.append(Definition(spec, Source(Tier.USER, path, line, 0, "config.toml")))
    return definitions, problems


# Near misses of `servers` (other clients' spellings among them): their servers would be
# silently absent, so they are a problem with the fix; other unknown tables are left be.
_MISNAMED = ("server", "Servers", "mcpServers", "mcp_servers", "mcp-servers", "mcpservers")


def _misnamed_tables(data: dict[str, Any], text: str, path: Path) -> list[Problem]:
    problems = []
    for key in _MISNAMED:
        if isinstance(data.get(key), dict):
            line = min(name_lines(text, key).values(), default=1)
            names = list(data[key])
            example = f"[servers.{names[0]}]" if names else "[servers.NAME]"
            problems.append(Problem(path, line, 1, (
                f"unknown table {key!r}: mcpctl reads servers from [servers.NAME] tables "
                f"(rename it: {example}); {len(names)} server{'s' if len(names) != 1 else ''} "
                "ignored")))
    return problems


def server_lines(text: str) -> dict[str, int]:
    """Line of each server's name: `[servers.NAME]`, `servers.NAME = …` or `NAME = …`
    inside `[servers]`; the first mention wins."""
    return name_lines(text, "servers")


def _check_workspace(name: str, spec: ServerSpec) -> None:
    if WORKSPACE_KEY not in spec.extra:
        return
    value = spec.extra[WORKSPACE_KEY]
    # Relative to what? mcpctl runs from many folders; only an absolute path (or one
    # from the home folder) names one project.
    if not isinstance(value, str) or not (value.startswith(("/", "~/")) or value[1:3] in
                                          (":\\", ":/")):
        raise EntryError(f"server {name!r}: {WORKSPACE_KEY!r} must be the absolute path of "
                         "the project folder it belongs to", WORKSPACE_KEY)
