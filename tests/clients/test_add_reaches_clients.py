"""`add` and `remove` reach the clients in `[clients] sync` at once, as `claude mcp add`
and `claude mcp remove` do (issue 26 item 4); `--no-sync` leaves them and says so.

The oracle is Claude Code's own `claude mcp list` (it starts each server), and what
stays in `~/.claude.json`. With `sync_after_edit` not called from `add_cmd.py`, the
added server is missing from `claude mcp list` and the test fails there.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clients import TOKEN_SERVER, write_config
from tests.clients.real_clients import claude_statuses, run_client

pytestmark = pytest.mark.timeout(600)
CONSOLE_SCRIPT = Path(sys.executable).with_name("mcpctl")
VALUE = "plain-value-for-the-test"


def mcpctl(*args: str) -> subprocess.CompletedProcess[str]:
    # The console script, so the entries sync writes run this checkout's mcpctl.
    return subprocess.run([str(CONSOLE_SCRIPT), *args], capture_output=True, text=True,
                          timeout=120, check=False, stdin=subprocess.DEVNULL)


def claude_servers(home: Path) -> list[str]:
    path = home / ".claude.json"
    return sorted(json.loads(path.read_text()).get("mcpServers", {})) if path.exists() else []


def test_add_and_remove_reach_claude_code_at_once(
    user_config: Path, isolated_home: Path, tmp_path: Path
) -> None:
    write_config(user_config, '[clients]\nsync = ["claude-code"]\n')
    required = hashlib.sha256(VALUE.encode()).hexdigest()
    added = mcpctl("add", "tok", "--plain", "--env", f"API_TOKEN={VALUE}", "--",
                   sys.executable, str(TOKEN_SERVER), "--require-sha256", required)
    assert added.returncode == 0, added.stderr
    assert added.stdout.startswith("added tok in ")
    assert "synced claude-code: ~/.claude.json (added tok)" in added.stderr
    listed = run_client("claude", ["mcp", "list"], home=isolated_home, cwd=tmp_path)
    assert claude_statuses(listed.stdout) == {"tok": "✔ Connected"}, listed.stdout

    # Unchanged: nothing to sync, nothing said.
    again = mcpctl("add", "tok", "--plain", "--env", f"API_TOKEN={VALUE}", "--",
                   sys.executable, str(TOKEN_SERVER), "--require-sha256", required)
    assert again.returncode == 0, again.stderr
    assert "synced" not in again.stderr

    # --no-sync leaves the client and says what to run.
    other = mcpctl("add", "other", "--no-sync", "--", sys.executable, str(TOKEN_SERVER))
    assert other.returncode == 0, other.stderr
    assert "note: claude-code not updated (--no-sync); run `mcpctl sync`" in other.stderr
    assert claude_servers(isolated_home) == ["tok"]

    removed = mcpctl("remove", "tok")
    assert removed.returncode == 0, removed.stderr
    assert "synced claude-code: ~/.claude.json (added other, removed tok)" in removed.stderr
    assert claude_servers(isolated_home) == ["other"]
    listed = run_client("claude", ["mcp", "list"], home=isolated_home, cwd=tmp_path)
    assert "tok" not in claude_statuses(listed.stdout), listed.stdout


def test_with_no_client_enabled_add_says_nothing_of_clients(user_config: Path,
                                                             isolated_home: Path) -> None:
    added = mcpctl("add", "solo", "--", "srv")
    assert (added.returncode, added.stderr) == (0, "")
    assert not (isolated_home / ".claude.json").exists()
