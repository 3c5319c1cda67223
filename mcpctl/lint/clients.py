"""MCP006-MCP008: entries the client that reads the file will not load as written.

Each finding names the client (from the format's row), since what loads depends on
who reads the path: Claude Code needs `type` beside a `url` and knows only `stdio`,
`sse` and `http`; Claude Desktop's file starts local programs only. A misspelled field
or a whole command line in `command` fails in every client.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from mcpctl.config.formats import TRANSPORT_ALIASES, ConfigFormat
from mcpctl.lint.rules import Hit, shown, where
from mcpctl.syntax.jsonc import JsonPath

# Misspellings seen in committed files, each with the field meant. Only names no client
# uses for something else, so a client's own extra fields are never reported.
_MISSPELLED: Mapping[str, str] = {
    "arg": "args", "argv": "args", "arguments": "args", "argument": "args",
    "envs": "env", "environment": "env", "environments": "env", "enviroment": "env",
    "envirnoment": "env", "commands": "command", "comand": "command", "commmand": "command",
    "header": "headers", "urls": "url", "uri": "url",
}
_CLAUDE_CODE_TYPES = frozenset({"stdio", "sse", "http"})
# `docker run --rm img`, `npx -y pkg`: a program name, then words. A first word with a
# path separator may be a path with spaces (`C:\\Program Files\\...`), so is left alone.
_COMMAND_LINE = re.compile(r"\s*[^\s/\\]+\s+\S")


def client_hits(server: JsonPath, entry: Mapping[str, Any], fmt: ConfigFormat) -> Iterator[Hit]:
    yield from _misspelled_hits(server, entry)
    yield from _command_line_hits(server, entry)
    if fmt.id == "claude":
        yield from _claude_code_hits(server, entry)
    elif fmt.id == "claude-desktop" and "command" not in entry and any(
            key in entry for key in ("url", "serverUrl", "httpUrl")):
        yield Hit("MCP006", server, f"{where(server)}: Claude Desktop starts only local "
                                    "programs from this file ('command'); a 'url' entry "
                                    "is not loaded")


def _misspelled_hits(server: JsonPath, entry: Mapping[str, Any]) -> Iterator[Hit]:
    for key in entry:
        meant = _MISSPELLED.get(key)
        if meant is not None and meant not in entry:
            path = (*server, key)
            yield Hit("MCP007", path, f"{where(path)}: {key!r} is not a field; {meant!r} "
                                      "was meant, so this value is ignored")


def _command_line_hits(server: JsonPath, entry: Mapping[str, Any]) -> Iterator[Hit]:
    command = entry.get("command")
    if isinstance(command, str) and _COMMAND_LINE.match(command):
        path = (*server, "command")
        program = command.split()[0]
        yield Hit("MCP008", path, f"{where(path)}: {shown(command)} is a whole command line; "
                                  f"no program is named that (the program is {shown(program)})")


def _claude_code_hits(server: JsonPath, entry: Mapping[str, Any]) -> Iterator[Hit]:
    kind = entry.get("type")
    # A type no client knows is MCP002 already; these are other clients' spellings.
    if isinstance(kind, str) and kind in TRANSPORT_ALIASES and kind not in _CLAUDE_CODE_TYPES:
        path = (*server, "type")
        yield Hit("MCP006", path, f"{where(path)}: Claude Code rejects type {shown(kind)} "
                                  "(it knows 'stdio', 'sse' and 'http')")
    elif kind is None and "command" not in entry and "url" in entry:
        yield Hit("MCP006", server, f"{where(server)}: Claude Code does not load a 'url' "
                                    "entry without 'type': 'http' or 'sse'")
