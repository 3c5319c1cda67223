"""A Claude Code local-scope server added with its own `claude mcp add -s local`,
imported, is adopted by the next `sync` (issue 26 item 8): exit 0, the plaintext token
leaves `~/.claude.json`, and Claude Code still connects it in that project.

With the `workspace` key left in the comparison in adoption.py, every `sync` exits 1
with "conflict … (in <project> only)" and the token stays in the file.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clients import TOKEN_SERVER, guard_key
from tests.clients.real_clients import claude_statuses, path_with, run_client
from tests.clients.test_add_reaches_clients import CONSOLE_SCRIPT
from tests.secret_service import SecretService

pytestmark = pytest.mark.timeout(600)
TOKEN = "tok-local-scope-0123456789abcdefXYZ"


def mcpctl(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CONSOLE_SCRIPT), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, check=False, stdin=subprocess.DEVNULL)


def test_an_imported_local_scope_server_is_adopted(
    tmp_path: Path, isolated_home: Path, secret_service: SecretService
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    required = hashlib.sha256(TOKEN.encode()).hexdigest()
    added = run_client("claude", ["mcp", "add", "-s", "local", "loc", "-e",
                                  f"API_TOKEN={TOKEN}", "--", sys.executable, str(TOKEN_SERVER),
                                  "--require-sha256", required],
                       home=isolated_home, cwd=project)
    assert added.returncode == 0, added.stdout + added.stderr
    claude_json = isolated_home / ".claude.json"
    assert TOKEN in claude_json.read_text()
    imported = mcpctl(project, "import", "--from", "claude-code")
    assert imported.returncode == 0, imported.stderr
    assert mcpctl(project, "clients", "enable", "claude-code").returncode == 0
    synced = mcpctl(project, "sync")
    assert synced.returncode == 0, synced.stdout + synced.stderr
    assert "  adopted   loc (in . only)" in synced.stdout, synced.stdout
    assert TOKEN not in claude_json.read_text()
    entry = json.loads(claude_json.read_text())["projects"][str(project)]["mcpServers"]["loc"]
    assert entry["args"] == ["run", "loc", "--key", guard_key()]
    assert mcpctl(project, "sync", "--check").returncode == 0
    listed = run_client("claude", ["mcp", "list"], home=isolated_home, cwd=project,
                        env=path_with(isolated_home, CONSOLE_SCRIPT.parent))
    assert claude_statuses(listed.stdout) == {"loc": "✔ Connected"}, listed.stdout
