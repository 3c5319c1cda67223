"""`mcpctl clients` lists a trusted Codex project's `.codex/config.toml` servers, as
Codex itself does, and not an untrusted project's (issue 26 item 8). Codex 0.171.0's
own `codex mcp list --json` is the oracle."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clients.real_clients import run_client

pytestmark = pytest.mark.timeout(600)


def codex_names(home: Path, project: Path) -> list[str]:
    listed = run_client("codex", ["mcp", "list", "--json"], home=home, cwd=project)
    assert listed.returncode == 0, listed.stderr
    return sorted(server["name"] for server in json.loads(listed.stdout))


def mcpctl_names(project: Path) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "mcpctl", "clients", "--client", "codex",
                           "--json"],
                          cwd=project, capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    (codex,) = json.loads(done.stdout)["clients"]
    return sorted(server["name"] for server in codex["servers"])


@pytest.mark.parametrize("trust", ["trusted", "untrusted"])
def test_clients_lists_what_codex_starts_in_a_project(
    trust: str, isolated_home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    (project / ".codex").mkdir(parents=True)
    (project / ".git").mkdir()
    (project / ".codex" / "config.toml").write_text('[mcp_servers.p]\ncommand = "pcmd"\n')
    (isolated_home / ".codex").mkdir()
    (isolated_home / ".codex" / "config.toml").write_text(
        f'[projects."{project}"]\ntrust_level = "{trust}"\n\n'
        '[mcp_servers.u]\ncommand = "ucmd"\n')
    expected = ["p", "u"] if trust == "trusted" else ["u"]
    assert codex_names(isolated_home, project) == expected
    assert mcpctl_names(project) == expected
