"""The client table: paths per OS, env overrides, the exported entry and its marker."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpctl.clients.table import (
    CLIENT_IDS,
    CLIENTS,
    client_by_id,
    client_file,
    exported_entry,
    is_managed,
    os_name,
)

HOME = Path("/home/ann")
WIN_HOME = Path("C:/Users/ann")


@pytest.mark.parametrize(("client", "os_key", "environ", "expected"), [
    ("claude-code", "linux", {}, "/home/ann/.claude.json"),
    ("claude-code", "macos", {}, "/home/ann/.claude.json"),
    ("claude-code", "linux", {"CLAUDE_CONFIG_DIR": "/cfg/claude"}, "/cfg/claude/.claude.json"),
    ("claude-desktop", "linux", {}, "/home/ann/.config/Claude/claude_desktop_config.json"),
    ("claude-desktop", "linux", {"XDG_CONFIG_HOME": "/xdg"},
     "/xdg/Claude/claude_desktop_config.json"),
    ("claude-desktop", "macos", {},
     "/home/ann/Library/Application Support/Claude/claude_desktop_config.json"),
    ("cursor", "macos", {}, "/home/ann/.cursor/mcp.json"),
    ("vscode", "linux", {}, "/home/ann/.config/Code/User/mcp.json"),
    ("vscode", "macos", {}, "/home/ann/Library/Application Support/Code/User/mcp.json"),
    ("vscode", "linux", {"VSCODE_APPDATA": "/appdata"}, "/appdata/Code/User/mcp.json"),
    ("vscode", "linux", {"VSCODE_PORTABLE": "/usb/code", "VSCODE_APPDATA": "/appdata"},
     "/usb/code/user-data/User/mcp.json"),
    ("codex", "linux", {}, "/home/ann/.codex/config.toml"),
    ("codex", "linux", {"CODEX_HOME": "/srv/codex"}, "/srv/codex/config.toml"),
    ("gemini", "linux", {}, "/home/ann/.gemini/settings.json"),
    ("gemini", "linux", {"GEMINI_CLI_HOME": "/alt"}, "/alt/.gemini/settings.json"),
    ("windsurf", "macos", {}, "/home/ann/.codeium/windsurf/mcp_config.json"),
])
def test_posix_locations(client: str, os_key: str, environ: dict[str, str],
                         expected: str) -> None:
    row = client_by_id(client)
    assert row is not None
    assert client_file(row, os_key, environ, HOME) == Path(expected)


@pytest.mark.parametrize(("client", "environ", "expected"), [
    ("claude-code", {}, "C:\\Users\\ann\\.claude.json"),
    ("claude-desktop", {"APPDATA": "C:/Users/ann/AppData/Roaming"},
     "C:\\Users\\ann\\AppData\\Roaming\\Claude\\claude_desktop_config.json"),
    ("vscode", {}, "C:\\Users\\ann\\AppData\\Roaming\\Code\\User\\mcp.json"),
    ("codex", {}, "C:\\Users\\ann\\.codex\\config.toml"),
    ("windsurf", {}, "C:\\Users\\ann\\.codeium\\windsurf\\mcp_config.json"),
])
def test_windows_locations(client: str, environ: dict[str, str], expected: str) -> None:
    row = client_by_id(client)
    assert row is not None
    assert str(client_file(row, "windows", environ, WIN_HOME)).replace("/", "\\") == expected


def test_every_client_has_a_location_per_os_and_a_fixture() -> None:
    fixtures = Path(__file__).parent / "fixtures"
    assert CLIENT_IDS == ("claude-code", "claude-desktop", "cursor", "vscode", "codex",
                          "gemini", "windsurf")
    for client in CLIENTS:
        assert set(client.locations) == {"linux", "macos", "windows"}, client.id
        assert (fixtures / client.id / "home").is_dir(), client.id


def test_os_names() -> None:
    assert [os_name(p) for p in ("linux", "darwin", "win32", "freebsd14")] == \
        ["linux", "macos", "windows", "linux"]


def test_exported_entries_and_their_marker() -> None:
    codex, vscode, cursor = (client_by_id(i) for i in ("codex", "vscode", "cursor"))
    assert codex is not None
    assert vscode is not None
    assert cursor is not None
    assert exported_entry(cursor, "gh", "mcpctl") == {"command": "mcpctl", "args": ["run", "gh"]}
    assert exported_entry(vscode, "gh", "/opt/bin/mcpctl") == {
        "type": "stdio", "command": "/opt/bin/mcpctl", "args": ["run", "gh"]}
    entry = exported_entry(codex, "gh", "mcpctl")
    assert entry["env_vars"] == ["MCPCTL_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
                                 "XDG_CACHE_HOME", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS"]
    entry["env_vars"].append("MUTATED")
    assert "MUTATED" not in exported_entry(codex, "gh", "mcpctl")["env_vars"]
    assert is_managed(codex, "gh", exported_entry(codex, "gh", "mcpctl"))
    assert is_managed(cursor, "gh", {"command": "C:\\tools\\mcpctl.exe", "args": ["run", "gh"]})
    # The user's own keys on mcpctl's entry (an off switch, a timeout) keep it mcpctl's.
    assert is_managed(cursor, "gh", {"command": "mcpctl", "args": ["run", "gh"],
                                     "disabled": True, "timeout": 9})
    # Not ours: another name, more arguments, another program, a url.
    assert not is_managed(cursor, "gh", {"command": "mcpctl", "args": ["run", "other"]})
    assert not is_managed(cursor, "gh", {"command": "mcpctl", "args": ["run", "gh", "-x"]})
    assert not is_managed(cursor, "gh", {"command": "mcpctl", "args": ["run", "gh"],
                                         "url": "https://h/mcp"})
    assert not is_managed(cursor, "gh", {"command": "notmcpctl", "args": ["run", "gh"]})
    assert not is_managed(vscode, "gh", {"type": "http", "command": "mcpctl",
                                         "args": ["run", "gh"]})
    assert not is_managed(cursor, "gh", ["mcpctl", "run", "gh"])
