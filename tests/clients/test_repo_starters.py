"""`list` and `show` name the client that starts the repo's definition over the user's.

mcpctl lets the user tier win; Claude Code prefers an approved project server over a
user-scope one of the same name. The real `claude mcp get` is the oracle.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.clients import TOKEN_SERVER, write_config
from tests.clients.real_clients import run_client, run_mcpctl_as_client
from tests.conftest import Cli

APPROVED = ("Claude Code starts the repo's definition, not the user tier's: it is approved "
            "there by name, and project scope wins over user scope")
PENDING = ("Claude Code would start the repo's definition instead of the user tier's once "
           "its name is approved (project scope wins over user scope)")
GUARDED = ("Claude Code starts it through mcpctl's gate (the guard's local-scope entry), "
           "which runs the user tier's definition")


def _workspace(tmp_path: Path, user_config: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / ".git").mkdir()
    server = {"command": sys.executable, "args": [str(TOKEN_SERVER), "--token-var", "REPO"]}
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"dup": server}}))
    write_config(user_config, f'[servers.dup]\ncommand = "{sys.executable}"\n'
                              f'args = ["{TOKEN_SERVER}"]\n')
    return root


@pytest.mark.parametrize(("settings", "local", "starts", "why"), [
    (None, None, None, PENDING),
    ({"enabledMcpjsonServers": ["dup"]}, None, True, APPROVED),
    ({"enableAllProjectMcpServers": True}, {"type": "stdio", "command": "mcpctl",
                                            "args": ["run", "--workspace", "{root}", "dup"]},
     False, GUARDED),
])
def test_list_and_show_say_what_claude_code_starts(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path,
        settings: dict[str, Any] | None, local: dict[str, Any] | None, starts: bool | None,
        why: str) -> None:
    root = _workspace(tmp_path, user_config)
    if settings is not None:
        (isolated_home / ".claude").mkdir()
        (isolated_home / ".claude" / "settings.json").write_text(json.dumps(settings))
    if local is not None:
        local["args"][2] = str(root)
        (isolated_home / ".claude.json").write_text(json.dumps(
            {"projects": {str(root): {"mcpServers": {"dup": local}}}}))
    listed = cli("list", "-w", str(root))
    assert listed.code == 0
    note = f"note: {root}/.mcp.json:1: 'dup' is shadowed by the user tier here, but: {why}\n"
    assert listed.err.startswith(note)
    document = json.loads(cli("list", "-w", str(root), "--json").out)
    assert [s.get("started_instead_by") for s in document["servers"]] == [
        None, [{"client": "claude-code", "starts": starts, "why": why}]]
    shown = cli("show", "dup", "-w", str(root))
    assert f"  state:     shadowed by {user_config}:1\n  clients:   {why}\n" in shown.out
    definitions = json.loads(cli("show", "dup", "-w", str(root), "--json").out)["definitions"]
    assert definitions[1]["started_instead_by"][0]["starts"] is starts


@pytest.mark.parametrize("approved", [True, False])
def test_claude_code_itself_agrees(tmp_path: Path, user_config: Path, approved: bool) -> None:
    home = tmp_path / "client-home"
    (home / ".claude").mkdir(parents=True)
    root = _workspace(tmp_path, user_config)
    user_entry = {"type": "stdio", "command": sys.executable, "args": [str(TOKEN_SERVER)]}
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"dup": user_entry}}))
    if approved:
        (home / ".claude" / "settings.json").write_text('{"enabledMcpjsonServers": ["dup"]}')
    got = run_client("claude", ["mcp", "get", "dup"], home=home, cwd=root)
    shown = run_mcpctl_as_client(["show", "dup", "--json"], home=home, cwd=root)

    scope = "Project config (shared via .mcp.json)" if approved else \
        "User config (available in all your projects)"
    assert f"  Scope: {scope}\n" in got.stdout, got.stdout
    [starter] = json.loads(shown.stdout)["definitions"][1]["started_instead_by"]
    assert starter["starts"] is (True if approved else None)
