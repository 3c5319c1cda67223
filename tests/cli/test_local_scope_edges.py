"""Edges of a server for one project (`workspace = …`, Claude Code's local scope) and of
Claude Code's own approvals file (issue 26 item 8)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_mcpctl
from tests.secret_service import SecretService


def test_a_local_servers_secret_is_referenced_from_any_folder(
    tmp_path: Path, secret_service: SecretService
) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    added = run_mcpctl(["add", "loc", "-s", "local", "-w", str(project), "--secret-env",
                        "API_KEY", "--stdin", "--", "srv"], stdin="k-0123456789abcdef")
    assert added.code == 0, added.err
    for folder in (project, elsewhere):
        listed = run_mcpctl(["secret", "list", "--json", "-w", str(folder)])
        assert listed.code == 0, listed.err
        assert json.loads(listed.out)["secrets"] == [
            {"name": "loc-API_KEY", "stored": True, "referenced_by": ["loc"],
             "unreferenced": False}], folder
        shown = run_mcpctl(["show", "loc", "-w", str(project)])
        assert "unknown key" not in shown.err


def test_the_users_own_settings_local_json_is_no_committed_approval(tmp_path: Path) -> None:
    claude = tmp_path / ".claude"
    claude.mkdir()
    approvals = json.dumps({"enabledMcpjsonServers": ["tasks"],
                            "enableAllProjectMcpServers": True})
    (claude / "settings.local.json").write_text(approvals)
    (claude / "settings.json").write_text(approvals)
    own = run_mcpctl(["check", str(claude / "settings.local.json")])
    assert (own.code, own.out) == (0, ""), own.out
    committed = run_mcpctl(["check", str(claude / "settings.json")])
    assert committed.out.count("MCP060") == 2, committed.out
