"""`run NAME`, `cost`, `tools`, `doctor` and `revoke --whole-workspace` from a subfolder
of a repo (issue 22 item 2): the definition started or probed is the one `list` shows
there (the nearest `.mcp.json`, as Claude Code reads them), gated as a server of the
folder its file lies in; `-w ROOT` reads the root's files only, as before.

Real files, real processes: `run` execs a real server whose marker file says which
definition ran; `cost`, `tools` and `doctor` probe real servers whose tool list says
which definition answered.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_run import SERVER
from tests.conftest import Cli, Result, run_mcpctl

TYPER = "import sys; from mcpctl.cli import app; sys.exit(app.run(sys.argv[1:]))"


def _server(marker: Path, tool: str | None = None) -> dict[str, Any]:
    """The token server, writing `marker` when it starts, listing `tool` (if any) beside
    `whoami` (mcpctl masks its name: the variable's name looks like a credential's)."""
    return {"command": sys.executable, "args": [str(SERVER), "--marker", str(marker)],
            **({"env": {"TOKEN_SERVER_EXTRA_TOOL": tool}} if tool else {})}


def _mcp(folder: Path, **servers: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=1))


class Tree:
    """repo/.mcp.json and repo/sub/.mcp.json both define `tasks`; the current folder is
    repo/sub/deep, where Claude Code starts sub's (the nearest)."""

    def __init__(self, tmp_path: Path) -> None:
        self.repo = Path(os.path.realpath(tmp_path)) / "repo"
        (self.repo / ".git").mkdir(parents=True)
        self.sub = self.repo / "sub"
        self.deep = self.sub / "deep"
        self.deep.mkdir(parents=True)
        self.markers = tmp_path / "markers"
        self.markers.mkdir()
        _mcp(self.repo, tasks=_server(self.markers / "root-tasks"))
        self.write_sub("sub_tool")

    def write_sub(self, tool: str) -> None:
        _mcp(self.sub, tasks=_server(self.markers / "sub-tasks", tool))

    def ran(self) -> list[str]:
        found = sorted(marker.name for marker in self.markers.iterdir())
        for marker in self.markers.iterdir():
            marker.unlink()
        return found

    def mcpctl(self, *args: str, typer: bool = False) -> Result:
        """A real process in repo/sub/deep; `typer`: through the typer command, not the
        hand-parsed fast path."""
        if not typer:
            return run_mcpctl(list(args), cwd=self.deep)
        done = subprocess.run([sys.executable, "-c", TYPER, *args], cwd=self.deep,
                              capture_output=True, text=True, timeout=60,
                              env={**os.environ}, check=False)
        return Result(done.returncode, done.stdout, done.stderr)


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return Tree(tmp_path)


@pytest.mark.parametrize("typer", [False, True], ids=["fast path", "typer"])
def test_run_from_a_subfolder_starts_the_definition_trusted_there_and_refuses_it_changed(
    tree: Tree, typer: bool,
) -> None:
    trusted = tree.mcpctl("trust", "tasks", "--yes")
    assert trusted.code == 0, trusted.err
    assert trusted.out.splitlines()[-1].endswith(f") in {tree.sub}")
    # The review says where it starts: the folder it is a server of, not the root.
    assert f"  cwd:         ({tree.sub}, its file's folder)" in trusted.out.splitlines()
    started = tree.mcpctl("run", "tasks", typer=typer)
    assert started.code == 0, started.err
    assert tree.ran() == ["sub-tasks"]
    # A change to the nearer definition: refused (4, TRUST_REFUSED), nothing starts,
    # and the fix names the folder the approval belongs to.
    tree.write_sub("swapped_tool")
    refused = tree.mcpctl("run", "tasks", typer=typer)
    assert (refused.code, refused.out) == (4, "")
    assert refused.err.startswith("mcpctl: error: server 'tasks' changed since it was "
                                  "approved (env TOKEN_SERVER_EXTRA_TOOL: ")
    assert refused.err.endswith(f"review the change with: mcpctl trust tasks --workspace "
                                f"{tree.sub}\n")
    assert tree.ran() == []
    # `-w ROOT` reads the root's files only, as before: the root's own `tasks`, which
    # was never approved.
    root_only = tree.mcpctl("run", "tasks", "-w", str(tree.repo), typer=typer)
    assert root_only.code == 4
    assert f"defines it at {tree.repo / '.mcp.json'}:" in root_only.err
    assert tree.ran() == []


def test_run_refuses_when_only_the_farther_definition_the_client_does_not_start_is_trusted(
    tree: Tree,
) -> None:
    """The attack: the root's `tasks` is approved; a nearer, never approved `tasks`
    (a subfolder's `.mcp.json`) is the one Claude Code starts from there. Read from the
    root only (as `run` did, and as `-w ROOT` still does: the attack working without
    the protection), `run` starts the approved root definition although the client in
    that folder would start the other: a `run` that vouches for what the client does not
    run. Read as the client reads, it refuses, naming the definition it would start."""
    assert tree.mcpctl("trust", "tasks", "--yes", "-w", str(tree.repo)).code == 0
    root_only = tree.mcpctl("run", "tasks", "-w", str(tree.repo))
    assert root_only.code == 0, root_only.err
    assert tree.ran() == ["root-tasks"]
    for typer in (False, True):
        refused = tree.mcpctl("run", "tasks", typer=typer)
        assert (refused.code, refused.out) == (4, "")
        assert refused.err == (
            f"mcpctl: error: server 'tasks' is untrusted: the workspace defines it at "
            f"{tree.sub / '.mcp.json'}:3 and it was never approved; review and approve it "
            f"with: mcpctl trust tasks --workspace {tree.sub}\n")
        assert tree.ran() == []


def test_cost_and_tools_from_a_subfolder_probe_the_nearer_definition(
    tree: Tree, cli: Cli, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tree.deep)
    assert cli("trust", "tasks", "--yes").code == 0
    cost = cli("cost", "tasks", "--json")
    assert cost.code == 0, cost.err
    server = json.loads(cost.out)["servers"][0]
    assert (server["name"], server["status"], server["state"]) == ("tasks", "probed", "trusted")
    assert len(server["tools"]) == 2  # the root's lists `whoami` alone
    assert tree.ran() == ["sub-tasks"]
    tools = cli("tools", "tasks", "--refresh", "--json")
    assert tools.code == 0, tools.err
    assert json.loads(tools.out)["tool_count"] == 2
    assert tree.ran() == ["sub-tasks"]
    doctor = cli("doctor", "tasks", "--json")
    assert doctor.code == 0, doctor.err
    checks = json.loads(doctor.out)["servers"][0]["checks"]
    assert checks[0] == {"check": "trust", "status": "ok", "message":
                         f"trusted (workspace tier, {tree.sub / '.mcp.json'}:3)"}
    assert tree.ran() == ["sub-tasks"]
    # Changed: each refuses the nearer one, and the root's never starts instead.
    tree.write_sub("swapped_tool")
    cost = cli("cost", "tasks", "--json")
    assert cost.code == 4
    assert json.loads(cost.out)["servers"][0]["error"].startswith(
        "server 'tasks' changed since it was approved")
    tools = cli("tools", "tasks", "--refresh")
    assert tools.code == 4
    assert tools.err.startswith("mcpctl: error: server 'tasks' changed since it was approved")
    assert cli("doctor", "tasks").code == 1
    assert tree.ran() == []


def test_revoke_whole_workspace_from_a_subfolder_forgets_every_folder_list_reads_there(
    tree: Tree, mcpctl_home: Path,
) -> None:
    """From repo/sub/deep `list` shows sub's `tasks` and, shadowed, the root's: both
    folders' approvals go; a sibling folder's, which `list` there does not read, stays."""
    other = tree.repo / "other"
    _mcp(other, lint=_server(tree.markers / "lint"))
    assert run_mcpctl(["trust", "lint", "--yes"], cwd=other).code == 0
    assert tree.mcpctl("trust", "tasks", "--yes").code == 0
    assert tree.mcpctl("trust", "tasks", "--yes", "-w", str(tree.repo)).code == 0
    store = mcpctl_home / "data" / "trust.json"

    def kept() -> dict[str, list[str]]:
        workspaces: dict[str, Any] = json.loads(store.read_text())["workspaces"]
        return {key: sorted(records) for key, records in workspaces.items()}

    assert kept() == {str(other): ["lint"], str(tree.sub): ["tasks"],
                      str(tree.repo): ["tasks"]}
    revoked = tree.mcpctl("revoke", "--whole-workspace", "--json")
    assert revoked.code == 0, revoked.err
    assert sorted((r["workspace"], r["name"]) for r in json.loads(revoked.out)["revoked"]) \
        == [(str(tree.repo), "tasks"), (str(tree.sub), "tasks")]
    assert kept() == {str(other): ["lint"]}
    # With -w, the root's only, as before.
    assert tree.mcpctl("trust", "tasks", "--yes").code == 0
    assert tree.mcpctl("revoke", "--whole-workspace", "-w", str(tree.repo)).code == 0
    assert kept() == {str(other): ["lint"], str(tree.sub): ["tasks"]}


def test_revoke_stale_keeps_a_merged_codex_approval_made_from_a_subfolder(
    tree: Tree, cli: Cli, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """sub's `.codex/config.toml` sets only `env` of the root's `lint`: approved from sub,
    the merged server is current, not orphaned (sub's file alone is no server); once
    the root's layer changes, it is stale."""
    far = tree.repo / ".codex" / "config.toml"
    far.parent.mkdir()
    far.write_text(f'[mcp_servers.lint]\ncommand = "{sys.executable}"\n'
                   f'args = ["{SERVER}"]\nenv = {{ LEVEL = "1" }}\n')
    (tree.sub / ".codex").mkdir()
    (tree.sub / ".codex" / "config.toml").write_text('[mcp_servers.lint.env]\nMODE = "x"\n')
    monkeypatch.chdir(tree.deep)
    trusted = cli("trust", "lint", "--yes", "--json")
    assert trusted.code == 0, trusted.err
    assert [(r["name"], r["workspace"]) for r in json.loads(trusted.out)["results"]] == [
        ("lint", str(tree.sub))]
    kept = cli("revoke", "--stale", "--json")
    assert (kept.code, json.loads(kept.out)["revoked"]) == (0, [])
    far.write_text(far.read_text().replace('LEVEL = "1"', 'LEVEL = "2"'))
    stale = cli("revoke", "--stale", "--json")
    assert stale.code == 0, stale.err
    assert [(r["workspace"], r["name"], r["reason"]) for r in json.loads(stale.out)["revoked"]] \
        == [(str(tree.sub), "lint", "changed")]
