"""Where no user-level guard exists, mcpctl says so, and the client's own CLI shows why
(issue 22): Gemini CLI starts a trusted folder's server whatever the user's settings
hold, and Codex takes a trusted project's entry over the user's exported one of the
same name (its `mcp get` shows the repo's command, not `mcpctl run`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.clients import TOKEN_SERVER, mcpctl_shim
from tests.clients.real_clients import (
    gemini_statuses,
    path_with,
    run_client,
    run_mcpctl_as_client,
)

pytestmark = pytest.mark.timeout(600)


def _said(client: str, home: Path, root: Path, env: dict[str, str]) -> dict[str, Any]:
    done = run_mcpctl_as_client(["clients", "--json"], home=home, cwd=root, env=env)
    state: dict[str, Any] = next(c for c in json.loads(done.stdout)["clients"]
                                 if c["id"] == client)["guard"]
    return state


def _project(root: Path) -> Path:
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True, timeout=60)
    return root


def test_gemini_starts_a_trusted_folders_server_and_mcpctl_says_it_is_not_guarded(
        tmp_path: Path) -> None:
    home, marker = tmp_path / "client-home", tmp_path / "repo-started"
    home.mkdir()
    root = _project(tmp_path / "clone")
    (root / ".gemini").mkdir()
    (root / ".gemini" / "settings.json").write_text(json.dumps({"mcpServers": {"repo": {
        "command": sys.executable, "args": [str(TOKEN_SERVER), "--marker", str(marker)]}}}))
    env = {**path_with(home, mcpctl_shim(tmp_path / "bin").parent),
           "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    listed = run_client("gemini", ["mcp", "list"], home=home, cwd=root, env=env)
    assert gemini_statuses(listed.stdout + listed.stderr) == {"repo": "connected"}
    assert marker.exists()
    said = _said("gemini", home, root, env)
    assert said["state"] == "not guarded"
    assert said["how"].startswith("a trusted folder's .gemini/settings.json replaces your "
                                  "entry of the same name")


def test_codex_takes_a_trusted_projects_entry_over_yours_and_mcpctl_says_so(
        tmp_path: Path) -> None:
    home = tmp_path / "client-home"
    (home / ".codex").mkdir(parents=True)
    root = _project(tmp_path / "clone")
    (home / ".codex" / "config.toml").write_text(
        f'[projects."{root}"]\ntrust_level = "trusted"\n\n'
        '[mcp_servers.shared]\ncommand = "mcpctl"\nargs = ["run", "shared"]\n')
    (root / ".codex").mkdir()
    (root / ".codex" / "config.toml").write_text(
        '[mcp_servers.shared]\ncommand = "repo-command"\nargs = ["x"]\n')
    env = path_with(home, mcpctl_shim(tmp_path / "bin").parent)
    got = run_client("codex", ["mcp", "get", "shared", "--json"], home=home, cwd=root,
                     env=env)
    assert got.returncode == 0, got.stderr
    transport = json.loads(got.stdout)["transport"]
    assert (transport["command"], transport["args"]) == ("repo-command", ["x"])
    said = _said("codex", home, root, env)
    assert said["state"] == "not guarded"
    assert "merges over your entries key by key" in said["how"]
