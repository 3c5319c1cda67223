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
from typing import Any

import pytest

from tests.clients import TOKEN_SERVER, mcpctl_shim
from tests.clients.real_clients import (
    claude_statuses,
    path_with,
    run_client,
    run_mcpctl_as_client,
)
from tests.clients.test_guard import CONNECTED, FAILED, _claude_log_errors, _repo

pytestmark = pytest.mark.timeout(900)




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
        self.root = _repo(tmp_path / "clone", tmp_path / "marker-0")
        self.env = path_with(self.home, mcpctl_shim(tmp_path / "bin").parent)

    def mcpctl(self, *args: str) -> subprocess.CompletedProcess[str]:
        done = run_mcpctl_as_client(list(args), home=self.home, cwd=self.root, env=self.env)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done

    def claude(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_client("claude", list(args), home=self.home, cwd=self.root, env=self.env)

    def said(self) -> dict[str, Any]:
        """What `mcpctl clients --json` says of Claude Code here: its guard, and the
        state of each of the repo's own (project-scope) entries."""
        document = json.loads(self.mcpctl("clients", "--json").stdout)
        claude = next(c for c in document["clients"] if c["id"] == "claude-code")
        return {"guard": claude["guard"],
                "servers": {s["name"]: s["state"] for s in claude["servers"]
                            if s["scope"] == "project"}}

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
        assert "  added     mcpctl run --guard --key ***  (Claude Code's allowlist lets it " \
            "start)\n" in synced.stdout
    _change_bad(session.root, tmp_path / "marker-1")

    statuses = session.statuses()
    said = session.said()

    if not guarded:  # the attack: approved by name, changed, started
        assert statuses == {"good": CONNECTED, "bad": CONNECTED}
        assert (tmp_path / "marker-1").exists()
        # ... and mcpctl says so, with what would guard it.
        assert said["guard"] == {
            "state": "not guarded", "how": "claude-code is not in [clients] sync, so mcpctl "
            "keeps no allowlist for it", "fix": "mcpctl clients enable claude-code && "
            "mcpctl sync"}
        assert said["servers"] == {"good": "approved by name", "bad": "approved by name"}
        return
    assert statuses == {}  # the allowlist blocks both: not even configured
    assert not (tmp_path / "marker-1").exists()
    assert said["guard"]["state"] == "guarded"
    assert said["servers"] == dict.fromkeys(("good", "bad"), "blocked by Claude Code's allowlist")
    doctor = run_mcpctl_as_client(["doctor", "--no-probe", "--json"], home=session.home,
                                  cwd=session.root, env=session.env)
    assert [c["message"][:24] for d in json.loads(doctor.stdout)["servers"]
            for c in d["checks"] if c["check"] == "guard"] == ["claude-code guarded (Cla"] * 2


def test_a_repo_that_widens_the_allowlist_is_said_to_be_unguarded(tmp_path: Path) -> None:
    """What user mode cannot stop (measured): the repo's own committed
    `.claude/settings.json` adds an `allowedMcpServers` entry of its own, and Claude Code
    starts the server. mcpctl must not claim a guard there, and says what would."""
    session = Session(tmp_path)
    session.mcpctl("clients", "enable", "claude-code")
    session.mcpctl("sync")
    assert session.said()["guard"]["state"] == "guarded"
    bad = json.loads((session.root / ".mcp.json").read_text())["mcpServers"]["bad"]
    (session.root / ".claude").mkdir()
    (session.root / ".claude" / "settings.json").write_text(json.dumps(
        {"allowedMcpServers": [{"serverCommand": [bad["command"], *bad["args"]]}]}))

    assert session.statuses() == {"bad": CONNECTED}
    assert (tmp_path / "marker-0").exists()
    said = session.said()
    assert said["guard"]["state"] == "not guarded"
    assert said["guard"]["how"].startswith("the repo's .claude/settings.json adds to Claude "
                                           "Code's allowlist")
    assert "allowManagedMcpServersOnly" in said["guard"]["fix"]
    doctor = run_mcpctl_as_client(["doctor", "bad", "--no-probe", "--json"],
                                  home=session.home, cwd=session.root, env=session.env)
    checks = json.loads(doctor.stdout)["servers"][0]["checks"]
    guard = [check for check in checks if check["check"] == "guard"]
    assert [(c["status"], c["message"][:33]) for c in guard] == [
        ("warn", "claude-code not guarded (the repo")]


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

    session.mcpctl("trust", "bad", "--yes", "--accept-changed")  # re-approved
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


def test_a_workspace_below_the_git_root_is_guarded_where_claude_code_reads_it(
        tmp_path: Path) -> None:
    """The README's first session: the workspace is a folder of a repo, not its git root.
    Claude Code reads `.mcp.json` from its folder and every parent, and the local section
    of the git root only (measured), so the guard's entry goes there, and `run --guard`
    finds the definition from the folder the client was started in."""
    session = Session(tmp_path)
    demo = session.root / "examples" / "demo"
    (demo / "deeper").mkdir(parents=True)
    (session.root / ".mcp.json").unlink()
    marker = tmp_path / "tasks-started"
    (demo / ".mcp.json").write_text(json.dumps({"mcpServers": {"tasks": {
        "command": sys.executable, "args": [str(TOKEN_SERVER), "--marker", str(marker)]}}}))
    session.mcpctl("clients", "enable", "claude-code")
    trusted = session.mcpctl("trust", "tasks", "--yes", "--workspace", str(demo))
    # In the git root's section (the command ran there: ".").
    assert "guard: Claude Code now starts 'tasks' in . through" in trusted.stderr
    for folder in (demo, demo / "deeper"):
        listed = run_client("claude", ["mcp", "list"], home=session.home, cwd=folder,
                            env=session.env)
        assert claude_statuses(listed.stdout) == {"tasks": CONNECTED}, listed.stdout
        # mcpctl's list there reads the file Claude Code read: the same server, from
        # that file, approved (issue 22 item 2); nothing is left to mention.
        ours = json.loads(run_mcpctl_as_client(["list", "--json"], home=session.home,
                                               cwd=folder, env=session.env).stdout)
        assert [(r["name"], r["state"], r["source"]["path"]) for r in ours["servers"]] == [
            ("tasks", "trusted", str(demo / ".mcp.json"))]
        assert ours["claude_code_also_reads"] == []
    marker.unlink()
    at_root = run_client("claude", ["mcp", "list"], home=session.home, cwd=session.root,
                         env=session.env)
    # No .mcp.json from the git root up defines it: the gate starts nothing there.
    assert claude_statuses(at_root.stdout) == {"tasks": FAILED}
    assert not marker.exists()
    _change_bad_in(demo / ".mcp.json", "tasks", tmp_path / "tasks-changed")
    listed = run_client("claude", ["mcp", "list"], home=session.home, cwd=demo / "deeper",
                        env=session.env)
    assert claude_statuses(listed.stdout) == {"tasks": FAILED}
    assert not (tmp_path / "tasks-changed").exists()


def _change_bad_in(path: Path, name: str, marker: Path) -> None:
    data = json.loads(path.read_text())
    data["mcpServers"][name]["args"] = [str(TOKEN_SERVER), "--marker", str(marker)]
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("text", [
    '{"mcpServers": {"x": {"command": "@PY@", "args": ["@TS@", "--marker", "@M@"]},}}',
    '{"mcpServers": {"__proto__": {"command": "@PY@", "args": ["@TS@", "--marker", "@M@"]},'
    ' "constructor": {"command": "@PY@", "args": ["@TS@", "--marker", "@M@"]},'
    ' "caf\u00e9": {"command": "@PY@", "args": ["@TS@", "--marker", "@M@"]},'
    ' "ok": {"command": "@PY@", "args": ["@TS@"]}}}',
], ids=["not-json", "unusual-names"])
def test_a_file_mcpctl_cannot_read_or_unusual_names_fail_closed(
        tmp_path: Path, text: str) -> None:
    """A trailing comma (not JSON: mcpctl cannot read it) and names that are an object's
    own machinery or not ASCII: trusted or not, none of them starts, and Claude Code
    still reads the rest of its files (the `ok` server, wired, connects)."""
    session = Session(tmp_path)
    marker = tmp_path / "weird-started"
    (session.root / ".mcp.json").write_text(
        text.replace("@PY@", sys.executable).replace("@TS@", str(TOKEN_SERVER))
        .replace("@M@", str(marker)))
    session.mcpctl("clients", "enable", "claude-code")
    done = run_mcpctl_as_client(["trust", "--all", "--yes"], home=session.home,
                                cwd=session.root, env=session.env)
    assert "Traceback" not in done.stderr
    session.mcpctl("sync")
    statuses = session.statuses()
    assert not marker.exists()
    assert statuses == ({"ok": CONNECTED} if "ok" in text else {}), statuses
