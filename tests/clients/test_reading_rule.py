"""`mcpctl list` from a subfolder shows what each client reads there (issue 22 item 2).

The oracle is each client's own CLI, run in the same folder with a throwaway HOME:
`claude mcp list` (Claude Code 2.1.197: `.mcp.json` in the folder and every parent,
nested repos or not, nearest wins), `gemini mcp list` (Gemini CLI 0.61.0: the current
folder's `.gemini/settings.json` only) and Codex 0.171.0's app-server MCP status for a
thread started in the folder (`.codex/config.toml` from the folder up to the git root,
for a trusted project), run with no network. Then `trust` from a subfolder approves
the definition `list` shows there, and `run --guard` (what Claude Code starts) starts
it from that folder and refuses it once changed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.clients import TOKEN_SERVER, codex_app
from tests.clients.real_clients import (
    claude_statuses,
    client,
    client_env,
    gemini_statuses,
    run_client,
    run_mcpctl_as_client,
)
from tests.clients.test_guard import CONNECTED, FAILED
from tests.clients.test_guard_fresh_clone import Session
from tests.components import missing

pytestmark = pytest.mark.timeout(900)

CLAUDE_COMMAND = re.compile(r"^(?P<name>[A-Za-z0-9_.-]+): (?P<command>.*?)  - ")


def _git_repo(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True, timeout=60)
    return folder


def _mcp_json(folder: Path, **commands: str) -> None:
    (folder / ".mcp.json").write_text(json.dumps(
        {"mcpServers": {name: {"command": command} for name, command in commands.items()}}))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """outer/.mcp.json above the repo, repo/.mcp.json, repo/sub/.mcp.json and a nested
    repo repo/sub/nested with its own; `shared` in each, with the folder as its command."""
    outer = tmp_path / "outer"
    repo = _git_repo(outer / "repo")
    nested = _git_repo(repo / "sub" / "nested")
    (repo / "sub" / "deep").mkdir()
    (nested / "inside").mkdir()
    _mcp_json(outer, o="outer-o", shared="outer-shared")
    _mcp_json(repo, r="repo-r", shared="repo-shared")
    _mcp_json(repo / "sub", s="sub-s", shared="sub-shared")
    _mcp_json(nested, n="nested-n", shared="nested-shared")
    return outer


def _mcpctl_list(cwd: Path, home: Path) -> dict[str, Any]:
    done = run_mcpctl_as_client(["list", "--json"], home=home, cwd=cwd)
    assert done.returncode == 0, done.stderr
    document: dict[str, Any] = json.loads(done.stdout)
    return document


def _winners(document: dict[str, Any], fmt: str) -> dict[str, dict[str, Any]]:
    return {row["name"]: row for row in document["servers"]
            if row["shadowed_by"] is None and row["source"]["format"] == fmt}


@pytest.mark.parametrize(("folder", "names", "shared"), [
    ("repo", "o r shared", "repo-shared"),
    ("repo/sub", "o r s shared", "sub-shared"),
    ("repo/sub/deep", "o r s shared", "sub-shared"),
    # A nested repo stops nothing: its parents' files still count.
    ("repo/sub/nested", "n o r s shared", "nested-shared"),
    ("repo/sub/nested/inside", "n o r s shared", "nested-shared"),
])
def test_list_from_a_folder_shows_what_claude_code_lists_there(
    tree: Path, tmp_path: Path, folder: str, names: str, shared: str,
) -> None:
    home = tmp_path / "client-home"
    home.mkdir()
    cwd = tree / folder
    listed = run_client("claude", ["mcp", "list"], home=home, cwd=cwd)
    assert listed.returncode == 0, listed.stderr
    theirs = {m["name"]: m["command"]
              for m in map(CLAUDE_COMMAND.match, listed.stdout.splitlines()) if m}
    ours = _mcpctl_list(cwd, home)
    winners = _winners(ours, "claude")
    assert {name: row["command"] for name, row in winners.items()} == theirs
    assert (sorted(theirs), theirs["shared"]) == (names.split(), shared)
    # The source Claude Code names, and the file mcpctl names for it: the nearest one.
    got = run_client("claude", ["mcp", "get", "shared"], home=home, cwd=cwd)
    assert "Scope: Project config (shared via .mcp.json)" in got.stdout
    assert winners["shared"]["tier"] == "workspace"
    nearest = next(f for f in (cwd, *cwd.parents) if (f / ".mcp.json").exists())
    assert winners["shared"]["source"]["path"] == str(nearest / ".mcp.json")
    assert winners["shared"]["trust_workspace"] == str(nearest)
    # Every farther `shared` is listed as shadowed by the nearest, nearest first.
    shadowed = [row["source"]["path"] for row in ours["servers"]
                if row["name"] == "shared" and row["shadowed_by"] is not None]
    assert shadowed == [str(f / ".mcp.json") for f in nearest.parents
                        if (f / ".mcp.json").exists()]
    assert all(row["shadowed_by"]["path"] == str(nearest / ".mcp.json")
               for row in ours["servers"] if row["name"] == "shared" and row["shadowed_by"])
    assert ours["claude_code_also_reads"] == []


def test_list_from_a_subfolder_shows_the_gemini_servers_gemini_lists_there(
    tmp_path: Path,
) -> None:
    home = tmp_path / "client-home"
    home.mkdir()
    repo = _git_repo(tmp_path / "repo")
    sub = repo / "sub"
    (sub / "deep").mkdir(parents=True)
    for folder, name in ((repo, "top"), (sub, "here")):
        (folder / ".gemini").mkdir()
        (folder / ".gemini" / "settings.json").write_text(
            json.dumps({"mcpServers": {f"g-{name}": {"command": f"cmd-{name}"}}}))
    trusted = {"GEMINI_CLI_TRUST_WORKSPACE": "true"}
    for cwd, expected in ((repo, ["g-top"]), (sub, ["g-here"]), (sub / "deep", [])):
        listed = run_client("gemini", ["mcp", "list"], home=home, cwd=cwd, env=trusted)
        assert sorted(gemini_statuses(listed.stdout + listed.stderr)) == expected
        winners = _winners(_mcpctl_list(cwd, home), "gemini")
        assert sorted(winners) == expected
        assert all(row["trust_workspace"] == str(cwd) for row in winners.values())


def _offline(argv: list[str]) -> list[str]:
    """The command in a network namespace of its own (nothing but a down loopback)."""
    if shutil.which("unshare") is None:
        missing("unshare (a network namespace for Codex's app-server)")
    return ["unshare", "-n" if os.geteuid() == 0 else "-rn", *argv]


def _codex_started(home: Path, cwd: Path) -> list[str]:
    """The MCP servers Codex's app-server reports for a thread started in `cwd`."""
    return sorted(_codex_statuses(home, cwd))


def _codex_statuses(home: Path, cwd: Path) -> dict[str, str]:
    """Each MCP server Codex's app-server reports for a thread started in `cwd`, with
    its runtime status (`connected`, …)."""
    return {server["name"]: server["runtimeStatus"] for server in codex_app.servers(
        cwd, client_env(home), offline=_offline, program=client("codex"), ephemeral=True)}


def test_list_from_a_subfolder_shows_the_codex_servers_codex_starts_there(
    tmp_path: Path,
) -> None:
    home = tmp_path / "client-home"
    markers = tmp_path / "markers"
    markers.mkdir()
    repo = _git_repo(tmp_path / "outer" / "repo")
    sub = repo / "sub"
    nested = _git_repo(sub / "nested")

    def layer(folder: Path, *names: str) -> None:
        (folder / ".codex").mkdir(parents=True)
        (folder / ".codex" / "config.toml").write_text("".join(
            f'[mcp_servers.{name}]\ncommand = "{sys.executable}"\n'
            f'args = ["{TOKEN_SERVER}", "--marker", "{markers}/{folder.name}-{name}"]\n'
            for name in names))

    layer(tmp_path / "outer", "above")
    layer(repo, "r", "shared")
    layer(sub, "s", "shared")
    layer(nested, "n")
    (nested / "inside").mkdir()
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text("".join(
        f'[projects."{p}"]\ntrust_level = "trusted"\n' for p in (repo, nested)))
    for cwd, expected in ((sub, ["r", "s", "shared"]), (nested / "inside", ["n"])):
        started = _codex_started(home, cwd)
        assert started == expected
        # The definitions Codex started are the ones mcpctl names (their markers).
        winners = _winners(_mcpctl_list(cwd, home), "codex")
        assert sorted(winners) == expected
        assert sorted(m.name for m in markers.iterdir()) == sorted(
            Path(row["args"][-1]).name for row in winners.values())
        for marker in markers.iterdir():
            marker.unlink()
    assert _winners(_mcpctl_list(sub, home), "codex")["shared"]["source"]["path"] == \
        str(sub / ".codex" / "config.toml")


def test_trust_from_a_subfolder_approves_what_list_shows_and_run_guard_starts_it(
    tmp_path: Path,
) -> None:
    """`trust tasks` in examples/demo approves demo's `.mcp.json` definition (the one
    `list` there shows, nearer than the root's), as a server of that folder; Claude Code
    started in that folder then starts it through `run --guard`, and refuses it once
    changed. The root's farther `tasks` never starts."""
    session = Session(tmp_path)
    demo = session.root / "examples" / "demo"
    demo.mkdir(parents=True)
    root_servers = json.loads((session.root / ".mcp.json").read_text())
    root_servers["mcpServers"]["tasks"] = {
        "command": sys.executable, "args": [str(TOKEN_SERVER), "--marker",
                                            str(tmp_path / "root-tasks")]}
    (session.root / ".mcp.json").write_text(json.dumps(root_servers))
    args = [str(TOKEN_SERVER), "--marker", str(tmp_path / "tasks-0")]
    tasks = {"command": sys.executable, "args": args}
    (demo / ".mcp.json").write_text(json.dumps({"mcpServers": {"tasks": tasks}}))
    session.mcpctl("clients", "enable", "claude-code")

    def here(*args: str) -> subprocess.CompletedProcess[str]:
        return run_mcpctl_as_client(list(args), home=session.home, cwd=demo,
                                    env=session.env)

    listed = json.loads(here("list", "--json").stdout)
    rows = [(r["state"], r["source"]["path"], r.get("trust_workspace"))
            for r in listed["servers"] if r["name"] == "tasks"]
    assert rows == [("untrusted", str(demo / ".mcp.json"), str(demo)),
                    ("shadowed", str(session.root / ".mcp.json"), str(session.root))]
    trusted = here("trust", "tasks", "--yes")
    assert trusted.returncode == 0, trusted.stderr
    # The review first, then the result and the folder it was recorded for.
    assert re.fullmatch(r"trusted: tasks \(sha256:[0-9a-f]{64}\) in this folder",
                        trusted.stdout.splitlines()[-1])
    store = json.loads((tmp_path / "mcpctl-home" / "data" / "trust.json").read_text())
    assert sorted(store["workspaces"]) == [os.path.realpath(demo)]
    assert [r["state"] for r in json.loads(here("list", "--json").stdout)["servers"]
            if r["name"] == "tasks"] == ["trusted", "shadowed"]

    listed_by_claude = run_client("claude", ["mcp", "list"], home=session.home, cwd=demo,
                                  env=session.env)
    assert claude_statuses(listed_by_claude.stdout)["tasks"] == CONNECTED
    assert (tmp_path / "tasks-0").exists()
    assert not (tmp_path / "root-tasks").exists()
    # The same start by hand: `run --guard` from the folder, as Claude Code runs it.
    guard_env = {**session.env, "MCPCTL_GUARD_SERVER": "tasks"}
    (tmp_path / "tasks-0").unlink()
    started = run_mcpctl_as_client(["run", "--guard"], home=session.home, cwd=demo,
                                   env=guard_env)
    assert started.returncode == 0, started.stderr
    assert (tmp_path / "tasks-0").exists()

    args[-1] = str(tmp_path / "tasks-1")
    (demo / ".mcp.json").write_text(json.dumps({"mcpServers": {"tasks": tasks}}))
    assert [r["state"] for r in json.loads(here("list", "--json").stdout)["servers"]
            if r["name"] == "tasks"] == ["changed", "shadowed"]
    refused = run_mcpctl_as_client(["run", "--guard"], home=session.home, cwd=demo,
                                   env=guard_env)
    assert refused.returncode == 4
    assert "changed since it was approved" in refused.stderr
    listed_by_claude = run_client("claude", ["mcp", "list"], home=session.home, cwd=demo,
                                  env=session.env)
    assert claude_statuses(listed_by_claude.stdout)["tasks"] == FAILED
    assert not (tmp_path / "tasks-1").exists()
    assert not (tmp_path / "root-tasks").exists()


def _codex_layers(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """A client home, a markers folder, and a repo with a subfolder `sub`, each of the
    two with a `.codex` folder for a config layer."""
    markers = tmp_path / "markers"
    markers.mkdir()
    repo = _git_repo(tmp_path / "repo")
    sub = repo / "sub"
    for folder in (repo, sub):
        (folder / ".codex").mkdir(parents=True)
    return tmp_path / "client-home", markers, repo, sub


def test_a_nearer_codex_layer_that_sets_one_key_is_the_merged_server_codex_starts(
    tmp_path: Path,
) -> None:
    """repo/.codex/config.toml defines `m` whole; repo/sub's sets only `env.FOO`. From
    sub Codex starts one server: the farther command and args, `env` merged key by key
    (FOO the nearer's, OTHER the farther's; the server refuses to start unless both
    arrived). mcpctl lists that merged server with both files, `trust` there approves
    its fingerprint and `run` starts it; a change to the farther file changes the
    merged definition, and `run` refuses it."""
    home, markers, repo, sub = _codex_layers(tmp_path)
    check = tmp_path / "check.py"  # FOO and OTHER as expected, then the token server
    check.write_text("import os, runpy, sys\n"
                     "if (os.environ.get('FOO'), os.environ.get('OTHER')) != ('near', 'x'):\n"
                     "    sys.exit(3)\n"
                     f"sys.argv = [{str(TOKEN_SERVER)!r}, *sys.argv[1:]]\n"
                     f"runpy.run_path({str(TOKEN_SERVER)!r}, run_name='__main__')\n")
    far = (f'[mcp_servers.m]\ncommand = "{sys.executable}"\n'
           f'args = ["{check}", "--marker", "{markers}/m"]\n'
           'env = { FOO = "far", OTHER = "x" }\n')
    (repo / ".codex" / "config.toml").write_text(far)
    (sub / ".codex" / "config.toml").write_text('[mcp_servers.m.env]\nFOO = "near"\n')
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text(f'[projects."{repo}"]\n'
                                                  'trust_level = "trusted"\n')
    assert _codex_statuses(home, sub) == {"m": "connected"}
    assert (markers / "m").exists()
    (markers / "m").unlink()

    def here(*args: str) -> subprocess.CompletedProcess[str]:
        return run_mcpctl_as_client(list(args), home=home, cwd=sub)

    listed = here("list", "--json")
    assert listed.returncode == 0, listed.stderr
    [row] = json.loads(listed.stdout)["servers"]
    assert (row["name"], row["state"], row["env"], row["shadowed_by"]) == (
        "m", "untrusted", {"FOO": "near", "OTHER": "x"}, None)
    assert row["source"] == {"tier": "workspace", "path": str(sub / ".codex" / "config.toml"),
                             "line": 1, "format": "codex",
                             "layers": [{"path": str(repo / ".codex" / "config.toml"),
                                         "line": 1}]}
    assert row["trust_workspace"] == str(sub)
    shown = here("show", "m")
    assert shown.stdout.splitlines()[:2] == [
        "m  [workspace] .codex/config.toml:1",
        f"  merged:    {repo / '.codex' / 'config.toml'}:1 (keys the nearer file does not set)"]
    assert here("trust", "m", "--yes").returncode == 0
    started = here("run", "m")
    assert started.returncode == 0, started.stderr
    assert (markers / "m").exists()
    (markers / "m").unlink()
    # The farther file changes a key the nearer does not set: the merged server changed.
    (repo / ".codex" / "config.toml").write_text(far.replace('OTHER = "x"', 'OTHER = "y"'))
    refused = here("run", "m")
    assert refused.returncode == 4
    assert "server 'm' changed since it was approved (env OTHER: " in refused.stderr
    assert not (markers / "m").exists()


def test_a_codex_entry_with_enabled_false_is_marked_disabled_as_codex_reports_it(
    tmp_path: Path,
) -> None:
    """`enabled = false` in a trusted project's `.codex/config.toml`: Codex reports the
    server `disabled` and never starts it; mcpctl marks it so in `list` and `show`, and
    `run off` (asked for by name, once approved) starts it saying Codex would not. From
    `sub`, whose nearer layer sets `enabled = true`, both start and neither is marked."""
    home, markers, repo, sub = _codex_layers(tmp_path)
    (repo / ".codex" / "config.toml").write_text("".join(
        f'[mcp_servers.{name}]\ncommand = "{sys.executable}"\n'
        f'args = ["{TOKEN_SERVER}", "--marker", "{markers}/{name}"]\n{extra}'
        for name, extra in (("off", "enabled = false\n"), ("on", ""))))
    (sub / ".codex" / "config.toml").write_text("[mcp_servers.off]\nenabled = true\n")
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text(f'[projects."{repo}"]\n'
                                                  'trust_level = "trusted"\n')
    statuses = _codex_statuses(home, repo)  # asked again while a server is starting
    assert statuses == {"off": "disabled", "on": "connected"}, statuses
    assert not (markers / "off").exists()
    rows = _winners(_mcpctl_list(repo, home), "codex")
    assert (rows["off"]["note"], rows["off"]["disabled_in"]) == (
        "disabled in Codex: enabled = false", {"client": "codex", "setting": "enabled = false"})
    assert (rows["on"]["note"], "disabled_in" in rows["on"]) == ("", False)
    listed = run_mcpctl_as_client(["list"], home=home, cwd=repo)
    assert "  untrusted (disabled in Codex: enabled = false)  " in listed.stdout
    shown = run_mcpctl_as_client(["show", "off"], home=home, cwd=repo)
    assert "  state:     untrusted (disabled in Codex: enabled = false)\n" in shown.stdout

    assert run_mcpctl_as_client(["trust", "off", "--yes"], home=home, cwd=repo).returncode == 0
    (markers / "on").unlink(missing_ok=True)
    started = run_mcpctl_as_client(["run", "off"], home=home, cwd=repo)
    assert started.returncode == 0, started.stderr
    assert started.stderr == (f"note: 'off' is disabled in Codex ({repo}/.codex/config.toml:1:"
                              " enabled = false), which does not start it; mcpctl starts it "
                              "because it was asked for by name\n")
    assert (markers / "off").exists()  # what mcpctl started
    (markers / "off").unlink()

    statuses = _codex_statuses(home, sub)
    assert statuses == {"off": "connected", "on": "connected"}, statuses
    rows = _winners(_mcpctl_list(sub, home), "codex")
    assert [rows[name]["note"] for name in ("off", "on")] == ["", ""]
