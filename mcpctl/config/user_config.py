"""The user tier, read side: `config.toml` parsed with tomllib (fast, read-only)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from mcpctl.config.entries import EntryError, spec_from_entry
from mcpctl.config.tier_load import TierLoad, read_config_text
from mcpctl.model import Definition, Problem, Source, Tier
from mcpctl.syntax.toml_tables import name_lines

_TOMLLIB_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")
_AT_END = " (at end of document)"


def load_user_tier(path: Path) -> TierLoad:
    load = TierLoad()
    if not path.exists():
        return load
    load.files.append(path)
    text = read_config_text(path)
    if isinstance(text, Problem):
        load.problems.append(text)
        return load
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        load.problems.append(toml_problem(path, error, text))
        return load
    definitions, problems = definitions_from_toml(data, text, path)
    load.definitions.extend(definitions)
    load.problems.extend(problems)
    return load


def toml_problem(path: Path, error: tomllib.TOMLDecodeError, text: str) -> Problem:
    message = str(error)
    match = _TOMLLIB_POSITION.search(message)
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
    problems: list[Problem] = []
    for name, entry in servers.items():
        line = lines.get(name, 1)
        try:
            spec = spec_from_entry(name, entry)
        except EntryError as error:
            problems.append(Problem(path, line, 1, str(error)))
            continue
        definitions.append(Definition(spec, Source(Tier.USER, path, line, 0, "config.toml")))
    return definitions, problems


def server_lines(text: str) -> dict[str, int]:
    """Line of each server's name: `[servers.NAME]`, `servers.NAME = …` or `NAME = …`
    inside `[servers]`; the first mention wins."""
    return name_lines(text, "servers")
