"""The pure core of `mcpctl check`: the bytes of one file in, its findings out.

No file, environment or clock is read here: the caller passes the bytes, the format
and the format's JSON Schema, which is what lets the fuzz test throw anything at it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from mcpctl.config.formats import ALL_TOP_KEYS, ConfigFormat, Syntax, format_by_id
from mcpctl.lint.argv import command_line_hits
from mcpctl.lint.clients import agent_settings_hits, client_hits, codex_entry_hits
from mcpctl.lint.fields import entry_hits, server_name_hits
from mcpctl.lint.leaks import argv_secret_hits, carried_secret_hits, leak_hits
from mcpctl.lint.rules import Finding, Hit, where
from mcpctl.lint.schema import schema_problems
from mcpctl.syntax import jsonc
from mcpctl.syntax.jsonc import JsonPath

# Claude Code's project settings: not a server list, but where a repo can approve its
# own servers (DESIGN §11). Recognised by path like the formats of mcpctl.config.formats.
CLAUDE_SETTINGS = "claude-settings"


def lint_bytes(
    data: bytes, kind: str, path: str, schema: Mapping[str, Any] | None = None,
    *, plugin: bool = False,
) -> list[Finding]:
    """Findings for one file; `kind` is a workspace format id or CLAUDE_SETTINGS.
    `plugin`: the file is a plugin's `.mcp.json` (a `.claude-plugin/plugin.json` stands
    beside it), which may list its servers without the `mcpServers` key."""
    fmt = format_by_id(kind)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line, column = _byte_position(data, error.start)
        return [Finding(path, line, column, "MCP001", "not UTF-8 text")]
    if _ARCHIVED.search(path.replace("\\", "/")) and not jsonc.blank_jsonc(text).strip():
        return [Finding(path, 1, 1, "MCP009", "only comments, in an archived or deprecated "
                                              "folder: no client loads it")]
    try:
        if fmt is not None and fmt.syntax is Syntax.TOML:
            from mcpctl.syntax.toml_document import parse_toml  # noqa: PLC0415 - tomllib

            document = parse_toml(text)
        else:
            document = jsonc.parse(text, jsonc=fmt is not None and fmt.jsonc)
    except jsonc.JsonSyntaxError as error:
        if _TEMPLATE.search(text):
            return [Finding(path, 1, 1, "MCP009", "a template's source (template markers "
                                                  "outside strings), not a config: lint the "
                                                  "file it generates")]
        # json's own wording ends some messages with "at", meant to precede a position.
        message = error.message.removesuffix(" at") + _syntax_hint(text, error, fmt)
        return [Finding(path, error.line, error.column, "MCP001", message)]
    bare = fmt is not None and fmt.variables is not None and "$VAR" in fmt.variables
    hits = [*_duplicate_hits(document), *leak_hits(document.value, bare_references=bare)]
    if fmt is None:
        # settings.local.json is the user's own, uncommitted file: its approvals are the
        # user's choice, not the repo approving itself (issue 26).
        own = path.replace("\\", "/").endswith("settings.local.json")
        hits += _claude_settings_hits(document.value, approvals_checked=not own)
    elif plugin and fmt.id == "claude" and _flat_servers(document.value):
        # The plugin format's flat form: `{"name": {entry}}`, judged as the entries
        # of `mcpServers` and reported at their own place.
        hits += [_unwrapped(hit) for hit in
                 _server_file_hits({fmt.top_key: document.value}, fmt, schema)]
    else:
        hits += _server_file_hits(document.value, fmt, schema)
    if fmt is not None and fmt.id == "codex":
        hits += agent_settings_hits(document.value)
    return sorted({_locate(document, path, hit) for hit in hits})


# Markers of a template's source (Handlebars/Mustache, Jinja, ERB, Go templates): such a
# file is generated from, not read by a client.
# Possessive, and each alternative stops at the next brace or percent sign: linear.
_TEMPLATE = re.compile(r"\{\{[#/>^!]?\s*+[\w.@-]++[^{}\n]*+\}\}|\{%-?\s*+\w++[^%\n]*+%\}"
                       r"|<%=?[^%\n]*+%>")
_ARCHIVED = re.compile(r"(?i)(?:^|/)(?:archived?|deprecated|old|obsolete)(?:/|$)|deprecated")


def _flat_servers(value: Any) -> bool:
    return isinstance(value, dict) and bool(value) and "mcpServers" not in value and all(
        isinstance(entry, dict) for entry in value.values())


def _unwrapped(hit: Hit) -> Hit:
    message = hit.message.removeprefix("mcpServers").removeprefix(".")
    return hit._replace(path=hit.path[1:], message=message)


def _locate(document: jsonc.JsonDocument, path: str, hit: Hit) -> Finding:
    line, column = hit.at or document.nearest(hit.path)
    return Finding(path, line, column, hit.code, hit.message)


def _byte_position(data: bytes, offset: int) -> tuple[int, int]:
    start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[start:offset].decode("utf-8", errors="replace")) + 1
    return data.count(b"\n", 0, offset) + 1, column


def _syntax_hint(text: str, error: jsonc.JsonSyntaxError, fmt: ConfigFormat | None) -> str:
    """Name the usual culprit: JSONC syntax in a file whose client reads plain JSON."""
    lines = text.split("\n")
    if error.line > len(lines):
        return ""
    before = "\n".join([*lines[: error.line - 1], lines[error.line - 1][: error.column - 1]])
    here = lines[error.line - 1][error.column - 1:]
    if error.message.startswith("Invalid control character") and not here.strip():
        return " (a string is not closed before the end of its line)"
    if fmt is not None and fmt.jsonc:
        return ""
    if here.startswith(("//", "/*")):
        return " (comments are not allowed in this plain JSON file)"
    if here[:1] in {"}", "]"} and before.rstrip().endswith(","):
        return " (trailing commas are not allowed in this plain JSON file)"
    return ""


def _duplicate_hits(document: jsonc.JsonDocument) -> Iterator[Hit]:
    for duplicate in document.duplicates:
        yield Hit("MCP004", duplicate.path,
                  f"{where(duplicate.path)}: duplicate key (first at line {duplicate.first_line})",
                  at=(duplicate.line, duplicate.column))


def _server_file_hits(
    value: Any, fmt: ConfigFormat, schema: Mapping[str, Any] | None
) -> Iterator[Hit]:
    if not isinstance(value, dict):
        yield Hit("MCP003", (), f"the top level must be an object with {fmt.top_key!r}")
        return
    key = fmt.servers_key(value)
    if key not in value and (fmt.generic or fmt.companion_keys is None):
        return  # another tool's `mcp.json`, or a client's settings without servers
    yield from _top_key_hits(value, fmt, key)
    overrides = _codex_overrides(value, fmt, key)
    if schema is not None:
        # An override is MCP006's (below), and left out here: judging it would cost the
        # slow schema path for nothing.
        seen = {**value, key: {name: entry for name, entry in value[key].items()
                               if (key, name) not in overrides}} if overrides else value
        for problem in schema_problems(_as_schema_sees(seen, fmt, key), schema):
            real = _real_path(problem.path, fmt, key)
            yield Hit("MCP002", real, f"{where(real)}: {problem.message}")
    servers = value.get(key)
    if not isinstance(servers, dict):
        return
    input_ids = _input_ids(value.get("inputs"))
    users: set[str] = set()
    for name, entry in servers.items():
        server = (key, name)
        yield from server_name_hits(server, name, fmt)
        if isinstance(entry, dict):
            yield from command_line_hits(server, entry)
            yield from argv_secret_hits(server, entry)
            yield from carried_secret_hits(server, entry)
            yield from entry_hits(server, entry, fmt, input_ids, users)
            yield from client_hits(server, entry, fmt)
            if fmt.id == "codex":
                yield from codex_entry_hits(server, entry)


def _codex_overrides(value: dict[str, Any], fmt: ConfigFormat, key: str) -> set[JsonPath]:
    """Codex entries with neither `command` nor `url`: an override of the user's own
    entry of that name (`enabled = false`), which MCP006 explains instead of MCP002."""
    servers = value.get(key)
    if fmt.id != "codex" or not isinstance(servers, dict):
        return set()
    return {(key, name) for name, entry in servers.items()
            if isinstance(entry, dict) and "command" not in entry and "url" not in entry}


def _as_schema_sees(value: dict[str, Any], fmt: ConfigFormat, key: str) -> dict[str, Any]:
    """A generic file's `servers` is validated as the `mcpServers` its schema knows."""
    if key == fmt.top_key:
        return value
    return {fmt.top_key: value[key]}


def _real_path(path: jsonc.JsonPath, fmt: ConfigFormat, key: str) -> jsonc.JsonPath:
    return (key, *path[1:]) if path[:1] == (fmt.top_key,) and key != fmt.top_key else path


def _top_key_hits(value: Mapping[str, Any], fmt: ConfigFormat, key: str) -> Iterator[Hit]:
    """MCP003 where servers are lost (under another format's key, or no servers key at
    all); MCP005 for a key the client ignores beside servers it does read."""
    has_servers = isinstance(value.get(key), dict)
    for other in value:
        if other == key or fmt.companion_keys is None or other in fmt.companion_keys:
            continue
        if other in ALL_TOP_KEYS or _holds_servers(value[other]):
            yield Hit("MCP003", (other,), f"{where((other,))}: {fmt.client} reads the servers "
                                          f"of {fmt.relative_path} from {key!r}, not from "
                                          f"{other!r}")
        elif has_servers:
            yield Hit("MCP005", (other,), f"{where((other,))}: top-level key {fmt.client} "
                                          "ignores")
        else:
            yield Hit("MCP003", (other,), f"{where((other,))}: unknown top-level key and no "
                                          f"{key!r}: {fmt.client} starts no server from this "
                                          "file")
            return


def _holds_servers(value: Any) -> bool:
    """An object of entries that start or reach something: servers under a wrong key."""
    return isinstance(value, dict) and bool(value) and all(
        isinstance(entry, dict) and ("command" in entry or "url" in entry)
        for entry in value.values())


def _input_ids(inputs: Any) -> frozenset[str]:
    if not isinstance(inputs, list):
        return frozenset()
    return frozenset(item["id"] for item in inputs
                     if isinstance(item, dict) and isinstance(item.get("id"), str))


def _claude_settings_hits(value: Any, *, approvals_checked: bool = True) -> Iterator[Hit]:
    if not isinstance(value, dict):
        return
    if "mcpServers" in value:
        path = ("mcpServers",)
        yield Hit("MCP006", path, f"{where(path)}: Claude Code ignores servers in a settings "
                                  "file, so none of them starts; they belong in .mcp.json")
    if not approvals_checked:
        return
    if value.get("enableAllProjectMcpServers") is True:
        path = ("enableAllProjectMcpServers",)
        yield Hit("MCP060", path, f"{where(path)}: approves every server of this repo's "
                                  ".mcp.json, present and future")
    approved = value.get("enabledMcpjsonServers")
    if isinstance(approved, list) and approved:
        path = ("enabledMcpjsonServers",)
        names = ", ".join(repr(name) for name in approved[:3]) + (
            ", ..." if len(approved) > 3 else "")
        yield Hit("MCP060", path, f"{where(path)}: approves by name whatever server this "
                                  f"repo's .mcp.json defines as {names}, now or later")
