"""What `sync` writes starts in the real clients, and what their own `mcp add` wrote
imports: Claude Code, Gemini CLI and Codex, at the versions pinned in real_clients.py.

`claude mcp list` and `gemini mcp list` start every server and say whether it
connected. Each server here refuses to start unless its token arrived (the
`--require-sha256` of the token server), so "connected" proves that a variable named
like a token (which Gemini CLI strips) and a keyring secret reached it through
`mcpctl run`. Codex's `mcp get --json` shows what it will pass to the server.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.clients import TOKEN_SERVER, write_config
from tests.clients.real_clients import (
    VERSIONS,
    claude_statuses,
    gemini_statuses,
    run_client,
)
from tests.conftest import run_mcpctl

# The clients start every server in turn; Gemini CLI alone takes seconds per call.
pytestmark = [pytest.mark.usefixtures("secret_service"), pytest.mark.timeout(600)]

CONSOLE_SCRIPT = Path(sys.executable).with_name("mcpctl")
ENV_TOKEN = "svc-token-from-the-shell-0123456789"
KEYRING_TOKEN = "kr-token-from-the-keyring-9876543210"


def sha(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def server(name: str, token: str, required: str) -> str:
    return (f'[servers.{name}]\ncommand = "{sys.executable}"\n'
            f'args = ["{TOKEN_SERVER}", "--require-sha256", "{sha(required)}"]\n'
            f'env = {{ API_TOKEN = "{token}" }}\ntimeout = 60\n\n')


@pytest.fixture
def synced(user_config: Path, isolated_home: Path, tmp_path: Path) -> Path:
    """A user tier of three servers, synced to the three clients by the installed mcpctl."""
    write_config(user_config, server("plain", "plain-value", "plain-value")
                 + server("envtok", "${env:MY_SVC_TOKEN}", ENV_TOKEN)
                 + server("vault", "${secret:vault-token}", KEYRING_TOKEN)
                 + '[clients]\nsync = ["claude-code", "gemini", "codex"]\n')
    stored = run_mcpctl(["secret", "set", "vault-token", "--stdin"], stdin=KEYRING_TOKEN)
    assert stored.code == 0, stored.err
    synced = subprocess.run([str(CONSOLE_SCRIPT), "sync"], capture_output=True, text=True,
                            timeout=120, check=False)
    assert synced.returncode == 0, synced.stdout + synced.stderr
    project = tmp_path / "project"
    project.mkdir()
    for path in isolated_home.rglob("*"):
        if path.is_file():
            assert KEYRING_TOKEN not in path.read_text(errors="replace"), path
            assert ENV_TOKEN not in path.read_text(errors="replace"), path
    return project


def test_the_pinned_versions_are_the_ones_installed(isolated_home: Path, tmp_path: Path) -> None:
    for name, version in VERSIONS.items():
        printed = run_client(name, ["--version"], home=isolated_home, cwd=tmp_path)
        assert printed.stdout.strip() == version, (name, printed.stdout, printed.stderr)


def test_claude_code_connects_every_synced_server(synced: Path, isolated_home: Path) -> None:
    listed = run_client("claude", ["mcp", "list"], home=isolated_home, cwd=synced,
                        env={"MY_SVC_TOKEN": ENV_TOKEN})
    assert claude_statuses(listed.stdout) == dict.fromkeys(
        ("plain", "envtok", "vault"), "✔ Connected"), listed.stdout + listed.stderr


def test_gemini_connects_every_synced_server(synced: Path, isolated_home: Path) -> None:
    """Gemini CLI drops MY_SVC_TOKEN from what it passes on (its name holds TOKEN) unless
    the entry's env names it: the exported entry does, with no value in the file."""
    listed = run_client("gemini", ["mcp", "list"], home=isolated_home, cwd=synced,
                        env={"MY_SVC_TOKEN": ENV_TOKEN, "GEMINI_CLI_TRUST_WORKSPACE": "true"})
    output = listed.stdout + listed.stderr
    assert gemini_statuses(output) == dict.fromkeys(("plain", "envtok", "vault"),
                                                    "connected"), output
    entry = json.loads((isolated_home / ".gemini" / "settings.json").read_text())[
        "mcpServers"]["envtok"]
    assert entry == {"command": str(CONSOLE_SCRIPT), "args": ["run", "envtok"],
                     "env": {"MY_SVC_TOKEN": "${MY_SVC_TOKEN}"}, "timeout": 60000}


def test_codex_forwards_what_the_server_reads(synced: Path, isolated_home: Path) -> None:
    got = run_client("codex", ["mcp", "get", "envtok", "--json"], home=isolated_home,
                     cwd=synced)
    assert got.returncode == 0, got.stderr
    entry = json.loads(got.stdout)
    transport = entry["transport"]
    assert (transport["type"], transport["command"], transport["args"]) == (
        "stdio", str(CONSOLE_SCRIPT), ["run", "envtok"])
    # Codex passes a stdio server only its allow-list plus these names.
    assert "MY_SVC_TOKEN" in transport["env_vars"]
    assert {"MCPCTL_HOME", "DBUS_SESSION_BUS_ADDRESS"} <= set(transport["env_vars"])
    assert entry["startup_timeout_sec"] == 60.0
    plain = json.loads(run_client("codex", ["mcp", "get", "plain", "--json"],
                                  home=isolated_home, cwd=synced).stdout)
    assert "MY_SVC_TOKEN" not in plain["transport"]["env_vars"]


def test_a_users_off_switch_in_codex_survives_sync(synced: Path, isolated_home: Path) -> None:
    codex = isolated_home / ".codex" / "config.toml"
    codex.write_text(codex.read_text().replace(
        "[mcp_servers.plain]\n", "[mcp_servers.plain]\nenabled = false\ntool_timeout_sec = 45\n"))
    again = subprocess.run([str(CONSOLE_SCRIPT), "sync", "--replace"], capture_output=True,
                           text=True, timeout=120, check=False)
    assert again.returncode == 0, again.stderr
    entry = tomllib.loads(codex.read_text())["mcp_servers"]["plain"]
    assert (entry["enabled"], entry["tool_timeout_sec"]) == (False, 45)
    got = json.loads(run_client("codex", ["mcp", "get", "plain", "--json"], home=isolated_home,
                                cwd=synced).stdout)
    assert got["enabled"] is False


def imported(client: str, names: list[str], project: Path) -> dict[str, str]:
    result = run_mcpctl(["import", "--from", client, *names, "--json", "-w", str(project)])
    assert result.code == 0, result.out + result.err
    return {s["name"]: s["status"] for s in json.loads(result.out)["servers"]}


def test_import_what_claude_codes_own_add_wrote(isolated_home: Path, tmp_path: Path,
                                                user_config: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    token = "sk-live-claudeheader0123456789abcdefABC"
    for args in (["-s", "user", "tool", "-e", "MODE=fast", "--", sys.executable, "srv.py"],
                 ["-s", "user", "-t", "http", "web", "http://127.0.0.1:9/mcp", "-H",
                  f"Authorization: Bearer {token}"],
                 ["-s", "user", "-t", "sse", "events", "http://127.0.0.1:9/sse"]):
        added = run_client("claude", ["mcp", "add", *args], home=isolated_home, cwd=project)
        assert added.returncode == 0, added.stdout + added.stderr
    assert imported("claude-code", ["tool", "web", "events"], project) == dict.fromkeys(
        ("tool", "web", "events"), "added")
    config = tomllib.loads(user_config.read_text())["servers"]
    assert config["tool"] == {"command": sys.executable, "args": ["srv.py"],
                              "env": {"MODE": "fast"}}
    assert config["web"] == {"type": "http", "url": "http://127.0.0.1:9/mcp",
                             "headers": {"Authorization": "Bearer ${secret:web-Authorization}"}}
    assert config["events"] == {"type": "sse", "url": "http://127.0.0.1:9/sse"}
    assert token not in user_config.read_text()
    shown = run_mcpctl(["secret", "get", "web-Authorization", "--reveal"])
    assert shown.out.strip() == token


def test_import_what_geminis_own_add_wrote(isolated_home: Path, tmp_path: Path,
                                           user_config: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for args in (["-s", "user", "tool", sys.executable, "srv.py", "-e", "MODE=fast",
                  "--timeout", "15000"],
                 ["-s", "user", "-t", "http", "web", "http://127.0.0.1:9/mcp", "-H",
                  "X-Team: core"],
                 ["-s", "user", "-t", "sse", "events", "http://127.0.0.1:9/sse"]):
        added = run_client("gemini", ["mcp", "add", *args], home=isolated_home, cwd=project)
        assert added.returncode == 0, added.stdout + added.stderr
    assert imported("gemini", ["tool", "web", "events"], project) == dict.fromkeys(
        ("tool", "web", "events"), "added")
    config = tomllib.loads(user_config.read_text())["servers"]
    assert config["tool"] == {"command": sys.executable, "args": ["srv.py"],
                              "env": {"MODE": "fast"}, "timeout": 15.0}
    assert config["web"] == {"type": "http", "url": "http://127.0.0.1:9/mcp",
                             "headers": {"X-Team": "core"}}
    assert config["events"] == {"type": "sse", "url": "http://127.0.0.1:9/sse"}


def test_import_what_codexs_own_add_wrote(isolated_home: Path, tmp_path: Path,
                                          user_config: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for args in (["tool", "--env", "MODE=fast", "--", sys.executable, "srv.py"],
                 ["web", "--url", "http://127.0.0.1:9/mcp", "--bearer-token-env-var",
                  "WEB_TOKEN"]):
        added = run_client("codex", ["mcp", "add", *args], home=isolated_home, cwd=project)
        assert added.returncode == 0, added.stdout + added.stderr
    assert imported("codex", ["tool", "web"], project) == {"tool": "added", "web": "added"}
    config = tomllib.loads(user_config.read_text())["servers"]
    assert config["tool"] == {"command": sys.executable, "args": ["srv.py"],
                              "env": {"MODE": "fast"}}
    assert config["web"] == {"type": "http", "url": "http://127.0.0.1:9/mcp",
                             "headers": {"Authorization": "Bearer ${env:WEB_TOKEN}"}}
