"""`mcpctl clients` says what the real clients do: Gemini CLI's folder trust and Claude
Code's pending/approved state of `.mcp.json` servers, each checked against the CLI."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.clients import TOKEN_SERVER
from tests.clients.real_clients import (
    claude_statuses,
    gemini_statuses,
    run_client,
    run_mcpctl_as_client,
)

SERVER = {"command": sys.executable, "args": [str(TOKEN_SERVER)]}


def _states(home: Path, root: Path, client: str,
            env: dict[str, str] | None = None) -> tuple[dict[str, str], Any]:
    result = run_mcpctl_as_client(["clients", "--client", client, "--json"], home=home,
                                  cwd=root, env=env)
    assert result.returncode == 0, result.stderr
    [report] = json.loads(result.stdout)["clients"]
    return {s["name"]: s["state"] for s in report["servers"]}, report.get("folder_trust")


@pytest.mark.parametrize(("rules", "env_trust", "trusted"), [
    (None, None, False),
    ({"{parent}/sibling": "TRUST_PARENT"}, None, True),
    ({"{parent}": "TRUST_FOLDER", "{root}": "DO_NOT_TRUST"}, None, False),
    ({"{root}": "DO_NOT_TRUST"}, "true", True),
])
def test_gemini_folder_trust_matches_gemini(tmp_path: Path, rules: dict[str, str] | None,
                                            env_trust: str | None, trusted: bool) -> None:
    home, root = tmp_path / "client-home", tmp_path / "work" / "proj"
    (home / ".gemini").mkdir(parents=True)
    root.mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps({"mcpServers": {"srv": SERVER}}))
    if rules is not None:
        filled = {k.format(parent=root.parent, root=root): v for k, v in rules.items()}
        (home / ".gemini" / "trustedFolders.json").write_text(json.dumps(filled))
    env = {} if env_trust is None else {"GEMINI_CLI_TRUST_WORKSPACE": env_trust}

    states, folder = _states(home, root, "gemini", env)
    listed = run_client("gemini", ["mcp", "list"], home=home, cwd=root, env=env)

    gemini = gemini_statuses(listed.stdout + listed.stderr)
    assert gemini == {"srv": "connected" if trusted else "disabled"}, listed.stderr
    assert folder["trusted"] is trusted
    assert states["srv"] == ("starts" if trusted else
                             f"not started: folder not trusted ({folder['reason']})")


@pytest.mark.parametrize(("claude_json", "expected"), [
    ({}, "⏸ Pending approval (run `claude` to approve)"),
    ({"hasTrustDialogAccepted": False, "enabledMcpjsonServers": ["pj"]},
     "⏸ Pending approval (run `claude` to approve)"),
    ({"hasTrustDialogAccepted": True, "enabledMcpjsonServers": ["pj"]}, "✔ Connected"),
])
def test_claude_code_pending_state_matches_claude(tmp_path: Path, claude_json: dict[str, Any],
                                                  expected: str) -> None:
    home, root = tmp_path / "client-home", tmp_path / "proj"
    home.mkdir()
    root.mkdir()
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"pj": SERVER}}))
    (home / ".claude.json").write_text(json.dumps({"projects": {str(root): claude_json}}))
    states, _ = _states(home, root, "claude-code")
    listed = run_client("claude", ["mcp", "list"], home=home, cwd=root)

    assert claude_statuses(listed.stdout) == {"pj": expected}, listed.stdout
    ours = {"⏸ Pending approval (run `claude` to approve)": "needs approval",
            "✔ Connected": "approved by name"}[expected]
    if claude_json.get("enabledMcpjsonServers") and expected.startswith("⏸"):
        ours += (" (approved by name in a project setting, which counts only once Claude "
                 "Code's trust dialog for this folder is accepted)")
    assert states == {"pj": ours}
