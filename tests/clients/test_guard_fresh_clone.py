"""The guard in a repo mcpctl never saw, against the real `claude` CLI (issue 22).

A fresh clone's `.mcp.json` server is approved in Claude Code by name (the user's
`enableAllProjectMcpServers`), then the repo changes it. Without the guard Claude Code
starts the changed server (the attack: its marker file appears). With the guard
(`clients enable claude-code` and `sync`, no `mcpctl trust` of the clone) Claude Code's
allowlist, which the guard keeps in step with what it exports, blocks every server of
the clone: it is not even configured, and the marker never appears. Once approved in
mcpctl the unchanged server connects; changed, it is refused with the `mcpctl trust`
line in Claude Code's log; re-approved, it connects again. Claude Code's own
"[Conflicting scopes]" advice (`claude mcp remove NAME -s local`), its `mcp add`, and
`mcpctl revoke` afterwards all leave the changed server unstarted. `claude mcp list`,
which starts every server it would start, is the oracle.

Without the allowlist (the `_write_allowlist` call in `refresh_guards` taken out) the
second test fails where it should: after `claude mcp remove bad -s local` the changed
`bad` connects (checked).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clients import TOKEN_SERVER, mcpctl_shim
from tests.clients.real_clients import (
    claude_statuses,
    path_with,
    run_client,
    run_mcpctl_as_client,
)
from tests.clients.test_guard import _claude_log_errors

pytestmark = pytest.mark.timeout(900)
CONNECTED, FAILED = "✔ Connected", "✘ Failed to connect"


def _clone(root: Path, marker: Path) -> Path:
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True, timeout=60)
    servers = {"good": {"command": sys.executable, "args": [str(TOKEN_SERVER)]},
               "bad": {"command": sys.executable,
                       "args": [str(TOKEN_SERVER), "--marker", str(marker)]}}
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2))
    return root


def _change_bad(root: Path, marker: Path) -> None:
    """The attack: the repo's `bad` server now leaves a different marker (and would do
    anything else it likes)."""
    data = json.loads((root / ".mcp.json").read_text())
    data["mcpServers"]["bad"]["args"] = [str(TOKEN_SERVER), "--marker", str(marker)]
    (root / ".mcp.json").write_text(json.dumps(data, indent=2))


class Session:
    """One throwaway home with Claude Code's name approval of every project server."""

    def __init__(self, tmp_path: Path) -> None:
        self.home = tmp_path / "client-home"
        (self.home / ".claude").mkdir(parents=True)
        (self.home / ".claude" / "settings.json").write_text(
            '{\n  "enableAllProjectMcpServers": true\n}\n')
        self.root = _clone(tmp_path / "clone", tmp_path / "marker-0")
        self.env = path_with(self.home, mcpctl_shim(tmp_path / "bin").parent)

    def mcpctl(self, *args: str) -> subprocess.CompletedProcess[str]:
        done = run_mcpctl_as_client(list(args), home=self.home, cwd=self.root, env=self.env)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done

    def claude(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_client("claude", list(args), home=self.home, cwd=self.root, env=self.env)

    def statuses(self) -> dict[str, str]:
        listed = self.claude("mcp", "list")
        return claude_statuses(listed.stdout)


@pytest.mark.parametrize("guarded", [True, False])
def test_a_fresh_clones_changed_server_never_starts(tmp_path: Path, guarded: bool) -> None:
    session = Session(tmp_path)
    if guarded:
        session.mcpctl("clients", "enable", "claude-code")
        synced = session.mcpctl("sync")
        assert "claude-code allowlist: ~/.claude/settings.json (written, backup " in synced.stdout
        assert "  added     mcpctl run --guard  (Claude Code's allowlist lets it start)\n" \
            in synced.stdout
    _change_bad(session.root, tmp_path / "marker-1")

    statuses = session.statuses()

    if not guarded:  # the attack: approved by name, changed, started
        assert statuses == {"good": CONNECTED, "bad": CONNECTED}
        assert (tmp_path / "marker-1").exists()
        return
    assert statuses == {}  # the allowlist blocks both: not even configured
    assert not (tmp_path / "marker-1").exists()


def test_approved_connects_changed_is_refused_and_no_client_command_opens_it(
        tmp_path: Path) -> None:
    session = Session(tmp_path)
    session.mcpctl("clients", "enable", "claude-code")
    session.mcpctl("sync")
    trusted = session.mcpctl("trust", "--all", "--yes")
    assert "guard: Claude Code now starts 'bad' in . through mcpctl's gate" in trusted.stderr
    assert session.statuses() == {"good": CONNECTED, "bad": CONNECTED}
    assert (tmp_path / "marker-0").exists()  # approved and unchanged: it started

    _change_bad(session.root, tmp_path / "marker-1")
    assert session.statuses() == {"good": CONNECTED, "bad": FAILED}
    assert not (tmp_path / "marker-1").exists()
    refusal = next(error for error in _claude_log_errors(session.home, session.root, "bad")
                   if error.startswith("Server stderr: "))
    assert refusal.startswith("Server stderr: mcpctl: error: server 'bad' changed since it "
                              "was approved (args[2]: ")
    assert refusal.endswith(f"review the change with: mcpctl trust bad --workspace "
                            f"{session.root}\n")

    session.mcpctl("trust", "bad", "--yes")  # re-approved
    assert session.statuses() == {"good": CONNECTED, "bad": CONNECTED}
    assert (tmp_path / "marker-1").exists()

    _change_bad(session.root, tmp_path / "marker-2")
    # Claude Code's own advice for the two scopes of one name: drop the local entry.
    removed = session.claude("mcp", "remove", "bad", "-s", "local")
    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert session.statuses() == {"good": CONNECTED}  # the repo's own entry is blocked
    added = session.claude("mcp", "add", "-s", "local", "mine", "--", sys.executable,
                           str(TOKEN_SERVER), "--marker", str(tmp_path / "marker-mine"))
    assert "not allowed" in added.stdout + added.stderr, added.stdout + added.stderr
    assert session.statuses() == {"good": CONNECTED}

    session.mcpctl("sync")  # wires `bad` again: refused, not started
    session.mcpctl("revoke", "--whole-workspace")
    assert session.statuses() == {"good": FAILED, "bad": FAILED}
    for marker in ("marker-2", "marker-mine"):
        assert not (tmp_path / marker).exists(), marker
