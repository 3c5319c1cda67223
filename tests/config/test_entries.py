"""One raw entry → ServerSpec: every field checked, unknown fields kept, formats as data."""

from __future__ import annotations

from typing import Any

import pytest

from mcpctl.config.entries import EntryError, entry_from_spec, spec_from_entry
from mcpctl.config.formats import WORKSPACE_FORMATS, format_by_id, format_for_path
from mcpctl.model import ServerSpec, Transport

ALIASES = WORKSPACE_FORMATS[0].aliases


def test_stdio_entry_keeps_every_field_as_written() -> None:
    spec = spec_from_entry("tasks", {
        "command": "bash", "args": ["scripts/server.sh", "${workspaceFolder}"],
        "env": {"B": "2", "A": "${env:HOME}"}, "cwd": "sub", "envFile": ".env", "timeout": 30,
    })
    assert spec == ServerSpec(
        name="tasks", transport=Transport.STDIO, command="bash",
        args=("scripts/server.sh", "${workspaceFolder}"), env={"B": "2", "A": "${env:HOME}"},
        cwd="sub", env_file=".env", timeout=30.0,
    )


def test_remote_entry_defaults_to_http() -> None:
    spec = spec_from_entry("docs", {"url": "https://d/mcp", "headers": {"X-Team": "core"}})
    assert (spec.transport, spec.url, dict(spec.headers)) == (
        Transport.HTTP, "https://d/mcp", {"X-Team": "core"})
    assert spec.is_remote


@pytest.mark.parametrize(("declared", "transport"), [
    ("stdio", Transport.STDIO), ("local", Transport.STDIO),
])
def test_stdio_type_aliases(declared: str, transport: Transport) -> None:
    assert spec_from_entry("x", {"command": "c", "type": declared}).transport is transport


@pytest.mark.parametrize(("declared", "transport"), [
    ("http", Transport.HTTP), ("streamable-http", Transport.HTTP),
    ("streamableHttp", Transport.HTTP), ("remote", Transport.HTTP), ("sse", Transport.SSE),
])
def test_remote_type_aliases(declared: str, transport: Transport) -> None:
    assert spec_from_entry("x", {"url": "u", "type": declared}).transport is transport


@pytest.mark.parametrize("key", ["serverUrl", "httpUrl"])
def test_url_aliases_of_other_clients(key: str) -> None:
    spec = spec_from_entry("x", {key: "https://h/mcp"}, ALIASES)
    assert spec.url == "https://h/mcp"
    assert spec.extra == {}


def test_unknown_fields_are_kept_not_dropped() -> None:
    spec = spec_from_entry("x", {"command": "c", "disabled": True, "alwaysAllow": ["t"],
                                 "meta": {"a": 1}})
    assert spec.extra == {"disabled": True, "alwaysAllow": ["t"], "meta": {"a": 1}}


ERRORS: list[tuple[Any, str, str | None]] = [
    (5, "server 'x': entry must be an object, not a number", None),
    (["c"], "server 'x': entry must be an object, not a list", None),
    (None, "server 'x': entry must be an object, not null", None),
    ({}, "server 'x' has neither 'command' nor 'url'; it needs exactly one", None),
    ({"args": ["a"]}, "server 'x' has neither 'command' nor 'url'; it needs exactly one", None),
    ({"command": "c", "url": "u"}, "server 'x' has both 'command' and 'url'; it needs exactly one",
     None),
    ({"command": "c", "serverUrl": "u"},
     "server 'x' has both 'command' and 'url'; it needs exactly one", None),
    ({"url": "u", "serverUrl": "v"}, "server 'x' has both 'url' and 'serverUrl'; keep one",
     "serverUrl"),
    ({"command": "c", "type": "http"},
     "server 'x': 'type' 'http' does not fit an entry with 'command'", "type"),
    ({"url": "u", "type": "stdio"},
     "server 'x': 'type' 'stdio' does not fit an entry with 'url'", "type"),
    ({"url": "u", "type": "ws"},
     "server 'x': unknown 'type' (known: http, local, remote, sse, stdio, "
     "streamable-http, streamableHttp)", "type"),
    ({"command": "c", "type": 1},
     "server 'x': unknown 'type' (known: http, local, remote, sse, stdio, "
     "streamable-http, streamableHttp)", "type"),
    ({"command": "c", "timeout": 0}, "server 'x': 'timeout' must be a positive number",
     "timeout"),
    ({"command": "c", "timeout": True}, "server 'x': 'timeout' must be a positive number",
     "timeout"),
    ({"command": "c", "timeout": "5"}, "server 'x': 'timeout' must be a positive number",
     "timeout"),
    # TOML and Python's JSON both read these; a wait of 1e300 s is a hang.
    ({"command": "c", "timeout": float("nan")},
     "server 'x': 'timeout' must be a positive number", "timeout"),
    ({"command": "c", "timeout": float("inf")},
     "server 'x': 'timeout' must be at most 600 seconds", "timeout"),
    ({"command": "c", "timeout": 1e300}, "server 'x': 'timeout' must be at most 600 seconds",
     "timeout"),
    ({"command": "c", "timeout": 10**400},
     "server 'x': 'timeout' must be at most 600 seconds", "timeout"),
    ({"command": "c", "timeout": 600.5},
     "server 'x': 'timeout' must be at most 600 seconds", "timeout"),
    ({"command": 5}, "server 'x': 'command' must be a string, not a number", "command"),
    ({"command": "c", "args": "a b"}, "server 'x': 'args' must be a list of strings", "args"),
    ({"command": "c", "args": ["a", 1]}, "server 'x': 'args' must be a list of strings", "args"),
    ({"command": "c", "env": {"A": 1}}, "server 'x': 'env' must map names to strings", "env"),
    ({"command": "c", "env": ["A=1"]}, "server 'x': 'env' must map names to strings", "env"),
    ({"command": "c", "cwd": ["d"]}, "server 'x': 'cwd' must be a string, not a list", "cwd"),
    ({"command": "c", "envFile": False},
     "server 'x': 'envFile' must be a string, not a boolean", "envFile"),
    ({"url": "u", "headers": []}, "server 'x': 'headers' must map names to strings", "headers"),
]


@pytest.mark.parametrize(("entry", "message", "field"), ERRORS)
def test_entry_errors_name_the_server_and_the_field(
    entry: Any, message: str, field: str | None
) -> None:
    with pytest.raises(EntryError) as raised:
        spec_from_entry("x", entry, ALIASES)
    assert str(raised.value) == message
    assert raised.value.field == field


def test_timeout_up_to_600_seconds_is_accepted() -> None:
    assert spec_from_entry("x", {"command": "c", "timeout": 600}).timeout == 600.0
    assert spec_from_entry("x", {"command": "c", "timeout": 0.5}).timeout == 0.5


def test_null_fields_count_as_absent() -> None:
    spec = spec_from_entry("x", {"command": "c", "args": None, "url": None, "env": None})
    assert (spec.command, spec.args, dict(spec.env), spec.url) == ("c", (), {}, None)


def test_entry_from_spec_is_the_canonical_shape() -> None:
    stdio = spec_from_entry("x", {"type": "local", "cwd": "d", "command": "c", "args": ["a"],
                                  "env": {"K": "v"}, "envFile": ".env", "timeout": 5,
                                  "disabled": False})
    assert entry_from_spec(stdio) == {"command": "c", "args": ["a"], "env": {"K": "v"},
                                      "cwd": "d", "envFile": ".env", "timeout": 5.0,
                                      "disabled": False}
    remote = spec_from_entry("y", {"serverUrl": "u", "type": "streamable-http",
                                   "headers": {"H": "v"}}, ALIASES)
    assert entry_from_spec(remote) == {"type": "http", "url": "u", "headers": {"H": "v"}}


def test_entry_from_spec_drops_nothing_that_was_given() -> None:
    odd = spec_from_entry("x", {"url": "u", "env": {"K": "v"}, "args": ["a"], "cwd": "d"})
    assert entry_from_spec(odd) == {"type": "http", "url": "u", "args": ["a"],
                                    "env": {"K": "v"}, "cwd": "d"}
    assert spec_from_entry("x", entry_from_spec(odd)) == odd


def test_workspace_formats_are_one_row_each() -> None:
    rows = [(f.id, f.relative_path, f.top_key, f.jsonc) for f in WORKSPACE_FORMATS]
    assert rows == [
        ("claude", ".mcp.json", "mcpServers", False),
        ("mcp.json", "mcp.json", "mcpServers", False),
        ("vscode", ".vscode/mcp.json", "servers", True),
        ("cursor", ".cursor/mcp.json", "mcpServers", False),
        ("kiro", ".kiro/settings/mcp.json", "mcpServers", False),
        ("roo", ".roo/mcp.json", "mcpServers", False),
        ("gemini", ".gemini/settings.json", "mcpServers", False),
        ("codex", ".codex/config.toml", "mcp_servers", False),
        ("claude-desktop", "claude_desktop_config.json", "mcpServers", False),
    ]
    vscode = format_by_id("vscode")
    assert vscode is not None
    assert vscode.companion_keys == frozenset({"$schema", "inputs"})
    assert format_by_id("nope") is None


@pytest.mark.parametrize(("path", "format_id"), [
    ("repo/.mcp.json", "claude"), ("repo/mcp.json", "mcp.json"),
    ("repo/.vscode/mcp.json", "vscode"), ("C:\\repo\\.cursor\\mcp.json", "cursor"),
    ("repo/other.json", None), ("repo/.kiro/settings/mcp.json", "kiro"),
    ("repo/.roo/mcp.json", "roo"), ("examples/claude_desktop_config.json", "claude-desktop"),
    (".gemini/settings.json", "gemini"), (".codex/config.toml", "codex"),
])
def test_format_for_path(path: str, format_id: str | None) -> None:
    found = format_for_path(path)
    assert (found.id if found else None) == format_id
