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
from mcpctl.lint.fields import plain_http_hits
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
# `<your path to server>`, `[path to node]`, `YOUR_PATH/server`: a blank to fill in, not a
# command line (issue 27).
_PLACEHOLDER_COMMAND = re.compile(r"^\s*[<\[{]|(?i:\byour\b|\bpath to\b)")


def client_hits(server: JsonPath, entry: Mapping[str, Any], fmt: ConfigFormat) -> Iterator[Hit]:
    yield from _misspelled_hits(server, entry)
    yield from _command_line_hits(server, entry)
    headers = "headers" if "headers" in entry else None
    if headers and "command" in entry and not any(k in entry for k in _URL_KEYS):
        path = (*server, headers)
        yield Hit("MCP046", path, f"{where(path)}: {fmt.client} sends headers only to a "
                                  "server it reaches by URL; this entry starts a program")
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
    if isinstance(command, str) and _COMMAND_LINE.match(command) \
            and not _PLACEHOLDER_COMMAND.search(command):
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


_URL_KEYS = ("url", "serverUrl", "httpUrl")
# What Codex 0.171 refuses in an entry, for the whole file ("failed to load
# configuration"), checked with its CLI (tests/lint/test_codex_oracle.py): fields of the
# other transport. Fields it does not know it ignores.
_CODEX_HTTP_ONLY = ("http_headers", "env_http_headers", "bearer_token_env_var")
_CODEX_STDIO_ONLY = ("args", "env", "cwd", "env_vars")


def codex_entry_hits(server: JsonPath, entry: Mapping[str, Any]) -> Iterator[Hit]:
    """MCP006 for a `.codex/config.toml` entry that makes Codex reject the whole file."""
    name = str(server[-1])
    if "command" not in entry and "url" not in entry:
        yield Hit("MCP006", server, f"{where(server)}: neither 'command' nor 'url': Codex "
                                    "refuses the whole file unless the user's own "
                                    f"~/.codex/config.toml defines {name!r} (this entry "
                                    "can only change that one)")
        return
    wrong = _CODEX_HTTP_ONLY if "command" in entry else _CODEX_STDIO_ONLY
    kind = "a program's ('command')" if "command" in entry else "a URL's"
    for key in wrong:
        if key in entry:
            path = (*server, key)
            yield Hit("MCP006", path, f"{where(path)}: Codex refuses the whole file: "
                                      f"{key!r} does not go with {kind} entry")


# A project's `.codex/config.toml` settings that switch the agent's safety off, and the
# values Codex knows for them (any other, or a table, and it refuses the whole file).
_UNSAFE_CODEX = {"approval_policy": frozenset({"never"}),
                 "sandbox_mode": frozenset({"danger-full-access"})}
_KNOWN_CODEX = {"approval_policy": frozenset({"untrusted", "on-failure", "on-request",
                                              "granular", "never"}),
                "sandbox_mode": frozenset({"read-only", "workspace-write",
                                           "danger-full-access"})}


def agent_settings_hits(value: Any) -> Iterator[Hit]:
    """MCP065: committed settings that run every command unasked or unsandboxed, at the
    top level and in each profile (a profile is one `-p` away); MCP006 for values Codex
    refuses; MCP042 for a model provider reached over plain http (its API key travels
    with every request)."""
    if not isinstance(value, dict):
        return
    providers = value.get("model_providers")
    if isinstance(providers, dict):
        for name, provider in providers.items():
            if isinstance(provider, dict):
                yield from plain_http_hits(("model_providers", name, "base_url"),
                                           provider.get("base_url"))
    tables: list[tuple[JsonPath, Any]] = [((), value)]
    profiles = value.get("profiles")
    if isinstance(profiles, dict):
        tables += [(("profiles", name), table) for name, table in profiles.items()]
    for prefix, table in tables:
        if not isinstance(table, dict):
            continue
        for key, unsafe in _UNSAFE_CODEX.items():
            setting = table.get(key)
            if key in table and not (isinstance(setting, str) and setting in _KNOWN_CODEX[key]):
                path = (*prefix, key)
                yield Hit("MCP006", path, f"{where(path)}: Codex refuses the whole file: "
                                          f"{key} is one of "
                                          f"{', '.join(sorted(_KNOWN_CODEX[key]))}")
            elif isinstance(setting, str) and setting in unsafe:
                path = (*prefix, key)
                yield Hit("MCP065", path, f"{where(path)}: {key} = {setting!r} in a committed "
                                          "project config: Codex then runs commands for "
                                          "everyone who trusts this repo "
                                          + ("without asking" if key == "approval_policy"
                                             else "outside any sandbox"))
