"""`mcpctl guard --off` (issue 22 item 3), with the real `claude` CLI as the oracle.

`clients disable claude-code` keeps the guard (it fails closed: Claude Code's own `mcp
add` is still refused by the allowlist), `guard --off` is refused while claude-code is
enabled, and once it runs only mcpctl's entries are gone: the user's own allowlist
entry stays, an allowlist of mcpctl's entries alone goes with its key, and Claude Code
starts the repo's servers on its own approval again (mcpctl then says "not guarded").
"""

from __future__ import annotations

import json
import os
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
from tests.clients.test_guard import _repo
from tests.conftest import Cli
from tests.tier_files import assert_valid

pytestmark = pytest.mark.timeout(600)
OWN = {"serverCommand": ["own-server", "--stdio"]}


@pytest.mark.parametrize("own", [True, False], ids=["own-entry", "mcpctl-only"])
def test_guard_off_takes_out_mcpctls_entries_and_nothing_else(tmp_path: Path,
                                                              own: bool) -> None:
    home, marker = tmp_path / "client-home", tmp_path / "bad-started"
    (home / ".claude").mkdir(parents=True)
    settings = home / ".claude" / "settings.json"
    settings.write_text(json.dumps({"enableAllProjectMcpServers": True,
                                    **({"allowedMcpServers": [OWN]} if own else {})}))
    root = _repo(tmp_path / "repo", marker)
    env = path_with(home, mcpctl_shim(tmp_path / "bin").parent)

    def mcpctl(*args: str) -> tuple[int, str, str]:
        done = run_mcpctl_as_client(list(args), home=home, cwd=root, env=env)
        return done.returncode, done.stdout, done.stderr

    def added() -> str:
        done = run_client("claude", ["mcp", "add", "-s", "user", "other", "--",
                                     sys.executable, str(TOKEN_SERVER)], home=home, cwd=root,
                          env=env)
        return done.stdout + done.stderr

    assert mcpctl("clients", "enable", "claude-code")[0] == 0
    assert mcpctl("trust", "--all", "--yes")[0] == 0
    guarded = {path: path.read_text() for path in (settings, home / ".claude.json")}
    assert mcpctl("guard", "--off") == (2, "", "mcpctl: error: claude-code is in [clients] "
                                        "sync, so the next sync would put the guard back; "
                                        "first: mcpctl clients disable claude-code\n")
    code, _, err = mcpctl("clients", "disable", "claude-code")
    assert code == 0
    assert err == ("note: Claude Code keeps mcpctl's guard (its allowlist entries and guard "
                   "entries still refuse what mcpctl did not approve); to take them out: "
                   "mcpctl guard --off\n")
    assert {path: path.read_text() for path in guarded} == guarded  # fail closed
    assert "not allowed" in added()  # Claude Code's own tool is still refused
    guarded = {path: path.read_text() for path in guarded}  # claude wrote its own keys
    code, _, err = mcpctl("guard", "--off", "--dry-run")
    assert code == 0
    assert {path: path.read_text() for path in guarded} == guarded
    assert "  removed   bad (in . only)  (the guard is off)" in err, err
    # The allowlist's line too goes because the guard is off (with that reason left
    # off, the dry run gave the sync's reason, "no longer exported").
    assert "  removed   mcpctl run --guard --key ***  (the guard is off)" in err, err

    code, out, err = mcpctl("guard", "--off", "--json")
    assert code == 0, err
    done = json.loads(out)
    assert_valid(done, "export")
    assert [(c["client"], c["guard"], c["written"]) for c in done["clients"]] == [
        ("claude-code", True, True), ("claude-code", True, True)]
    assert json.loads(settings.read_text()) == {
        "enableAllProjectMcpServers": True, **({"allowedMcpServers": [OWN]} if own else {})}
    project = json.loads((home / ".claude.json").read_text())["projects"][
        os.path.realpath(root)]
    assert project.get("mcpServers", {}) == {}
    said = mcpctl("clients", "--json")
    claude = next(c for c in json.loads(said[1])["clients"] if c["id"] == "claude-code")
    assert claude["guard"]["state"] == "not guarded"
    if own:  # the user's own list still decides; mcpctl's lines are gone from it
        assert claude_statuses(run_client("claude", ["mcp", "list"], home=home, cwd=root,
                                          env=env).stdout) == {}
    else:  # Claude Code starts the repo's servers on its own approval again
        assert claude_statuses(run_client("claude", ["mcp", "list"], home=home, cwd=root,
                                          env=env).stdout) == {"bad": "✔ Connected",
                                                               "good": "✔ Connected"}
        assert "not allowed" not in added()


def test_guard_off_where_claude_code_has_no_files_makes_none(
        cli: Cli, isolated_home: Path) -> None:
    """On a machine where Claude Code never ran, there is no guard to take out and
    nothing to write: `guard --off` makes no file. With the allowlist written whether
    or not the settings file exists, it made `~/.claude/settings.json` holding `{}`."""
    done = cli("guard", "--off")
    assert done.code == 0, done.err
    assert not (isolated_home / ".claude").exists()
    assert not (isolated_home / ".claude.json").exists()
