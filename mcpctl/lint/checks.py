"""The pure core of `mcpctl check`: the bytes of one file in, its findings out.

No file, environment or clock is read here: the caller passes the bytes, the format
and the format's JSON Schema, which is what lets the fuzz test throw anything at it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from mcpctl.config.formats import ALL_TOP_KEYS, ConfigFormat, format_by_id
from mcpctl.lint.argv import command_line_hits
from mcpctl.lint.fields import entry_hits, server_name_hits
from mcpctl.lint.leaks import argv_secret_hits, leak_hits
from mcpctl.lint.rules import Finding, Hit, where
from mcpctl.lint.schema import schema_problems
from mcpctl.syntax import jsonc

# Claude Code's project settings: not a server list, but where a repo can approve its
# own servers (DESIGN §11). Recognised by path like the formats of mcpctl.config.formats.
CLAUDE_SETTINGS = "claude-settings"


def lint_bytes(
    data: bytes, kind: str, path: str, schema: Mapping[str, Any] | None = None
) -> list[Finding]:
    """Findings for one file; `kind` is a workspace format id or CLAUDE_SETTINGS."""
    fmt = format_by_id(kind)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line, column = _byte_position(data, error.start)
        return [Finding(path, line, column, "MCP001", "not UTF-8 text")]
    try:
        document = jsonc.parse(text, jsonc=fmt is not None and fmt.jsonc)
    except jsonc.JsonSyntaxError as error:
        # json's own wording ends some messages with "at", meant to precede a position.
        message = error.message.removesuffix(" at") + _syntax_hint(text, error, fmt)
        return [Finding(path, error.line, error.column, "MCP001", message)]
    hits = [*_duplicate_hits(document), *leak_hits(document.value)]
    if fmt is None:
        hits += _claude_settings_hits(document.value)
    else:
        hits += _server_file_hits(document.value, fmt, schema)
    return sorted({_locate(document, path, hit) for hit in hits})


def _locate(document: jsonc.JsonDocument, path: str, hit: Hit) -> Finding:
    line, column = hit.at or document.position(hit.path)
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
    yield from _top_key_hits(value, fmt)
    if schema is not None:
        for problem in schema_problems(value, schema):
            yield Hit("MCP002", problem.path, f"{where(problem.path)}: {problem.message}")
    servers = value.get(fmt.top_key)
    if not isinstance(servers, dict):
        return
    input_ids = _input_ids(value.get("inputs"))
    for name, entry in servers.items():
        server = (fmt.top_key, name)
        yield from server_name_hits(server, name)
        if isinstance(entry, dict):
            yield from command_line_hits(server, entry)
            yield from argv_secret_hits(server, entry)
            yield from entry_hits(server, entry, fmt.id, input_ids)


def _top_key_hits(value: Mapping[str, Any], fmt: ConfigFormat) -> Iterator[Hit]:
    for key in value:
        if key == fmt.top_key or key in fmt.companion_keys:
            continue
        if key in ALL_TOP_KEYS:
            why = f"{fmt.relative_path} reads its servers from {fmt.top_key!r}"
        else:
            allowed = ", ".join(repr(k) for k in sorted({fmt.top_key, *fmt.companion_keys}))
            why = f"{fmt.relative_path} allows only {allowed}"
        yield Hit("MCP003", (key,), f"{where((key,))}: unknown top-level key; {why}")


def _input_ids(inputs: Any) -> frozenset[str]:
    if not isinstance(inputs, list):
        return frozenset()
    return frozenset(item["id"] for item in inputs
                     if isinstance(item, dict) and isinstance(item.get("id"), str))


def _claude_settings_hits(value: Any) -> Iterator[Hit]:
    if not isinstance(value, dict):
        return
    if value.get("enableAllProjectMcpServers") is True:
        path = ("enableAllProjectMcpServers",)
        yield Hit("MCP060", path, f"{where(path)}: approves every server of this repo's "
                                  ".mcp.json, present and future")
    approved = value.get("enabledMcpjsonServers")
    if isinstance(approved, list) and approved:
        path = ("enabledMcpjsonServers",)
        yield Hit("MCP060", path, f"{where(path)}: approves {len(approved)} server(s) of "
                                  "this repo's .mcp.json by name")
