"""The guard: Claude Code's own launch of a repo's server passes mcpctl's gate.

The end-to-end tests drive the real `claude` CLI: a repo's `.mcp.json` server, approved
in Claude Code by name and in mcpctl by fingerprint, is changed afterwards. Unguarded,
Claude Code starts the changed server (the attack); guarded, it fails, mcpctl's
refusal is what Claude Code logged from its stderr, and the unchanged server connects.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.clients import TOKEN_SERVER, guard_key, mcpctl_shim, single_insertion, write_config
from tests.clients.real_clients import (
    VERSIONS,
    claude_statuses,
    client_env,
    path_with,
    run_client,
    run_mcpctl_as_client,
)
from tests.conftest import Cli, Result

CONNECTED, FAILED = "✔ Connected", "✘ Failed to connect"


def _repo(root: Path, marker: Path) -> Path:
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True, timeout=60)
    servers = {"good": {"command": sys.executable, "args": [str(TOKEN_SERVER)]},
               "bad": {"command": sys.executable,
                       "args": [str(TOKEN_SERVER), "--marker", str(marker)]}}
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2))
    return root


def _change_bad(root: Path) -> None:
    """The attack: after approval, the repo's `bad` server gains an argument."""
    data = json.loads((root / ".mcp.json").read_text())
    data["mcpServers"]["bad"]["args"].insert(1, "--token-var=STOLEN")
    (root / ".mcp.json").write_text(json.dumps(data, indent=2))


@pytest.mark.parametrize("guarded", [True, False])
def test_claude_code_starts_a_changed_repo_server_only_when_unguarded(
        tmp_path: Path, guarded: bool) -> None:
    home, marker = tmp_path / "client-home", tmp_path / "bad-started"
    (home / ".claude").mkdir(parents=True)
    # Claude Code approves every .mcp.json server by name (user settings).
    (home / ".claude" / "settings.json").write_text('{"enableAllProjectMcpServers": true}')
    root = _repo(tmp_path / "repo", marker)
    env = path_with(home, mcpctl_shim(tmp_path / "bin").parent)
    version = run_client("claude", ["--version"], home=home, cwd=root, env=env)
    assert version.stdout.strip() == VERSIONS["claude"]
    if guarded:
        enabled = run_mcpctl_as_client(["clients", "enable", "claude-code"], home=home,
                                       cwd=root, env=env)
        assert enabled.returncode == 0, enabled.stderr
    trusted = run_mcpctl_as_client(["trust", "--all", "--yes"], home=home, cwd=root, env=env)
    assert trusted.returncode == 0, trusted.stderr
    wired = ("guard: Claude Code now starts 'bad' in . through mcpctl's gate\n"
             "guard: Claude Code now starts 'good' in . through mcpctl's gate\n"
             "guard: Claude Code's allowlist now lets `mcpctl run --guard --key ***` "
             "start\n")
    assert trusted.stderr == (wired if guarded else "")
    _change_bad(root)

    listed = run_client("claude", ["mcp", "list"], home=home, cwd=root, env=env)

    statuses = claude_statuses(listed.stdout)
    _says_guarded(home, root, env, guarded=guarded)
    if not guarded:  # what the guard exists for: the changed server ran
        assert statuses == {"good": CONNECTED, "bad": CONNECTED}
        assert marker.exists()
        return
    assert statuses == {"good": CONNECTED, "bad": FAILED}, listed.stdout
    assert not marker.exists()
    refusal = run_mcpctl_as_client(["run", "--workspace", str(root), "bad"], home=home,
                                   cwd=root, env=env)
    assert refusal.returncode == 4
    assert refusal.stderr.startswith("mcpctl: error: server 'bad' changed since it was "
                                     "approved (args[1]: ")
    assert refusal.stderr.endswith(f"review the change with: mcpctl trust bad --workspace "
                                   f"{root}\n")
    assert _claude_log_errors(home, root, "bad")[0] == f"Server stderr: {refusal.stderr}"
    assert _claude_log_errors(home, root, "good") == []


def _says_guarded(home: Path, root: Path, env: dict[str, str], *, guarded: bool) -> None:
    """`show` and `sync` say what `claude mcp list` showed (issue 22 item 5): guarded
    when the changed server failed, not guarded (enable it) when it ran."""
    shown = run_mcpctl_as_client(["show", "bad", "--json"], home=home, cwd=root, env=env)
    guard = json.loads(shown.stdout)["definitions"][0]["guard"]
    assert (guard["client"], guard["state"]) == (
        "claude-code", "guarded" if guarded else "not guarded")
    synced = run_mcpctl_as_client(["sync", "--check", "--json"], home=home, cwd=root, env=env)
    if not guarded:  # nothing enabled: nothing to sync, and show said what would guard it
        assert guard["fix"] == "mcpctl clients enable claude-code && mcpctl sync"
        assert synced.returncode == 2
        return
    assert synced.returncode == 0, synced.stderr
    said = {key: guard[key] for key in ("state", "how", "fix")}
    assert json.loads(synced.stdout)["guards"] == {"claude-code": said}
    assert f"guard here: claude-code guarded ({said['how']})\n" in synced.stderr


def _claude_log_errors(home: Path, root: Path, name: str) -> list[str]:
    """The errors Claude Code logged for server `name` (its MCP log, one JSON a line)."""
    # Under XDG_CACHE_HOME (the client's environment passes the test's on), one folder
    # per project, named by its path with every other character a dash.
    cache = Path(client_env(home).get("XDG_CACHE_HOME") or home / ".cache")
    folder = cache / "claude-cli-nodejs" / re.sub(r"[^A-Za-z0-9]", "-", str(root))
    logs = sorted((folder / f"mcp-logs-{name}").glob("*.jsonl"))
    assert logs, f"no MCP log for {name} under {folder}"
    lines = [json.loads(line) for log in logs for line in log.read_text().splitlines()]
    return [line["error"] for line in lines if "error" in line]


# ---- the wiring, without the client ---------------------------------------------------


def _guarded_entry(root: Path, name: str) -> dict[str, Any]:
    del root  # the entry names no folder: `run --guard` finds it as Claude Code does
    return {"type": "stdio", "command": "mcpctl", "args": ["run", "--guard", "--key",
                                                           guard_key()],
            "env": {"MCPCTL_GUARD_SERVER": name}}


ALLOWLIST_SAID = ("guard: Claude Code's allowlist now lets `mcpctl run --guard --key ***` "
                  "start\n")


def _setup(tmp_path: Path, user_config: Path, config: str = "") -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / ".git").mkdir()
    servers = {"a": {"command": "a-mcp"}, "b": {"command": "b-mcp"}}
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    write_config(user_config, config + '[clients]\nsync = ["claude-code"]\n')
    return root


def _projects(home: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((home / ".claude.json").read_text())["projects"]
    return data


def test_trust_wires_revoke_keeps_and_other_projects_stay(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    root = _setup(tmp_path, user_config)
    claude_json = isolated_home / ".claude.json"
    before = ('{\n  "projects": {\n    "/elsewhere": {\n      "allowedTools": []'
              '\n    }\n  },\n  "numStartups": 7\n}')
    claude_json.write_text(before)
    trusted = cli("trust", "a", "--yes", "-w", str(root))
    assert trusted.code == 0
    # Every .mcp.json server of a workspace in the trust store is wired, approved or not:
    # the gate refuses the unapproved one, where Claude Code would start it by name.
    assert trusted.err == (f"guard: Claude Code now starts 'a' in {root} through mcpctl's "
                           f"gate\nguard: Claude Code now starts 'b' in {root} through "
                           "mcpctl's gate\n" + ALLOWLIST_SAID)
    inserted = single_insertion(before, claude_json.read_text())
    assert inserted.startswith(f',\n    "{root}": {{\n      "mcpServers": {{\n        "a": {{\n'
                               '          "type": "stdio",\n')
    assert _projects(isolated_home) == {"/elsewhere": {"allowedTools": []}, str(root): {
        "mcpServers": {"a": _guarded_entry(root, "a"), "b": _guarded_entry(root, "b")}}}
    settings = json.loads((isolated_home / ".claude" / "settings.json").read_text())
    assert settings == {"allowedMcpServers": [{"serverCommand": [
        "mcpctl", "run", "--guard", "--key", guard_key()]}]}
    again = cli("trust", "a", "--yes", "-w", str(root))
    assert (again.code, again.err) == (0, "")  # nothing to change: nothing said
    # `sync --json` still names the section of each entry it left as it is (with the
    # section left off an unchanged guard entry, its "workspace" was missing).
    synced = json.loads(cli("sync", "--json").out)
    assert [c for client in synced["clients"] for c in client["changes"]] == [
        {"name": name, "status": "unchanged", "reason": "", "workspace": str(root)}
        for name in ("a", "b")]
    # revoke never opens a gate: the entries stay, and the gate refuses the server.
    revoked = cli("revoke", "--whole-workspace", "-w", str(root))
    assert (revoked.code, revoked.err) == (0, "")
    assert _projects(isolated_home)[str(root)]["mcpServers"] == {
        "a": _guarded_entry(root, "a"), "b": _guarded_entry(root, "b")}
    assert cli("sync", "--check").code == 0  # and sync does not take them out either


def test_an_entry_shaped_like_the_guard_s_with_an_env_list_is_the_user_s(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    """The guard rewrites only entries it wrote; one in its older form whose `env` is not
    an object is not one of them, and is left as the user wrote it. With the entry's
    `env` judged as the environment mcpctl runs in (`guard.py:111` os-environ, planted
    by hand) it was taken for the guard's and replaced."""
    root = _setup(tmp_path, user_config)
    own = {"command": "mcpctl", "args": ["run", "--workspace", str(root), "b"],
           "env": ["MCPCTL_GUARD_SERVER"]}
    (isolated_home / ".claude.json").write_text(json.dumps(
        {"projects": {str(root): {"mcpServers": {"b": own}}}}))
    trusted = cli("trust", "--all", "--yes", "-w", str(root))
    assert trusted.code == 0, trusted.err
    assert _projects(isolated_home)[str(root)]["mcpServers"]["b"] == own
    synced = json.loads(cli("sync", "--json").out)
    assert [(c["name"], c["status"]) for client in synced["clients"]
            for c in client["changes"] if c["name"] == "b"] == [("b", "skipped")]


def test_sync_follows_the_repo_and_leaves_the_users_own_entries(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    root = _setup(tmp_path, user_config,
                  f'[servers.mine]\ncommand = "mine-mcp"\nworkspace = "{tmp_path}/repo"\n\n')
    own = {"command": "my-own-b", "args": []}
    (isolated_home / ".claude.json").write_text(json.dumps(
        {"projects": {str(root): {"mcpServers": {"b": own}}}}))
    assert cli("trust", "--all", "--yes", "-w", str(root)).code == 0
    servers = json.loads((root / ".mcp.json").read_text())
    servers["mcpServers"].pop("a")
    servers["mcpServers"]["mine"] = {"command": "repo-mine"}
    servers["mcpServers"]["c"] = {"command": "c-mcp"}
    (root / ".mcp.json").write_text(json.dumps(servers))

    check = cli("sync", "--check")
    assert check.code == 1
    assert check.out.splitlines()[-5:] == [
        "claude-code guard: ~/.claude.json (out of date)",
        f"  skipped   b (in {root} only)  (your own local-scope entry of that name wins "
        "over the repo's in Claude Code; left as it is)",
        f"  added     c (in {root} only)  (Claude Code starts it through mcpctl's gate)",
        f"  skipped   mine (in {root} only)  (your own server for this workspace (the user "
        "tier) is exported there and wins)",
        f"  removed   a (in {root} only)  (no longer in any trusted .mcp.json here)"]
    synced = cli("sync", "--json")
    assert synced.code == 0, synced.err
    document = json.loads(synced.out)
    assert [c["guard"] for c in document["clients"]] == [False, True, True]
    assert _projects(isolated_home) == {str(root): {"mcpServers": {
        "b": own, "mine": {"type": "stdio", "command": "mcpctl",
                           "args": ["run", "mine", "--key", guard_key()]},
        "c": _guarded_entry(root, "c")}}}
    assert cli("sync", "--check").code == 0


def test_a_broken_client_file_warns_and_the_approval_stands(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    root = _setup(tmp_path, user_config)
    (isolated_home / ".claude.json").write_text('{"projects": ')
    older = ["mcpctl", "run", "old", "--key", "0" * 32]  # exported with a key, earlier
    settings = write_config(isolated_home / ".claude" / "settings.json", json.dumps(
        {"allowedMcpServers": [{"serverCommand": ["mcpctl", "run", "mine"]},
                               {"serverCommand": older}]}))
    trusted = cli("trust", "--all", "--yes", "-w", str(root))
    assert trusted.code == 0
    assert trusted.err.startswith(f"warning: the guard was not updated: {isolated_home}/"
                                  ".claude.json:1:14: ")
    # The allowlist is still written: it is what keeps the repo's servers from starting.
    assert trusted.err.endswith(
        "; the file was not changed\n" + ALLOWLIST_SAID + "guard: Claude Code's allowlist "
        "no longer lets `mcpctl run mine` start (it has no guard key, so a repo's entry "
        "could reuse it with an environment of its own)\n")
    assert (isolated_home / ".claude.json").read_text() == '{"projects": '
    # What was exported is unknown while the file cannot be read: nothing is taken out,
    # but a line without a key, which any repo could write, never stays.
    assert json.loads(settings.read_text())["allowedMcpServers"] == [
        {"serverCommand": older},
        {"serverCommand": ["mcpctl", "run", "--guard", "--key", guard_key()]}]
    assert cli("list", "-w", str(root), "--json").out.count('"state": "trusted"') == 2


def test_settings_that_are_not_an_object_are_refused_not_overwritten(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    """With the top-level check gone the allowlist's writer fails on the list (exit 70)."""
    root = _setup(tmp_path, user_config)
    settings = write_config(isolated_home / ".claude" / "settings.json", "[1]\n")
    trusted = cli("trust", "--all", "--yes", "-w", str(root))
    assert (trusted.code, settings.read_text()) == (0, "[1]\n")
    assert f"{settings}: the top level is not an object; the file was not changed" \
        in trusted.err


def test_projects_of_the_wrong_shape_are_refused_not_overwritten(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    root = _setup(tmp_path, user_config)
    text = json.dumps({"projects": {str(root): ["not", "an", "object"]}})
    (isolated_home / ".claude.json").write_text(text)
    trusted = cli("trust", "--all", "--yes", "-w", str(root))
    assert trusted.err == (f"warning: the guard was not updated: {isolated_home}/.claude.json: "
                           f"projects.{root} is not an object, so mcpctl cannot write Claude "
                           "Code's servers there; the file was not changed\n" + ALLOWLIST_SAID)
    assert (isolated_home / ".claude.json").read_text() == text


def test_without_claude_code_in_sync_nothing_is_read_or_written(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    root = _setup(tmp_path, user_config)
    write_config(user_config, '[clients]\nsync = ["cursor"]\n')
    (isolated_home / ".claude.json").write_text("not json at all")
    trusted = cli("trust", "--all", "--yes", "-w", str(root))
    assert (trusted.code, trusted.err) == (0, "")
    assert (isolated_home / ".claude.json").read_text() == "not json at all"


def _listed_with_unwired_c(cli: Cli, root: Path) -> Result:
    """`list --needs-attention` once the repo gained server `c`, not wired yet."""
    servers = json.loads((root / ".mcp.json").read_text())
    servers["mcpServers"]["c"] = {"command": "c-mcp"}
    (root / ".mcp.json").write_text(json.dumps(servers))
    listed = cli("list", "-w", str(root), "--needs-attention")
    assert listed.code == 1
    return listed


def test_list_warns_about_a_server_added_since_the_wiring(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    root = _setup(tmp_path, user_config)
    assert cli("trust", "--all", "--yes", "-w", str(root)).code == 0
    assert json.loads(cli("list", "-w", str(root), "--json").out)["unguarded"] == []
    listed = _listed_with_unwired_c(cli, root)
    # The allowlist is in place: the unwired server does not start at all (fail closed).
    assert listed.err.splitlines()[0] == (
        "warning: Claude Code does not start .mcp.json server 'c': it is not wired through "
        "mcpctl's gate yet, and Claude Code's allowlist blocks it; run `mcpctl sync`")
    assert "c (not guarded in Claude Code)" in listed.err
    assert json.loads(cli("list", "-w", str(root), "--json").out)["unguarded"] == ["c"]
    assert cli("sync").code == 0
    assert json.loads(cli("list", "-w", str(root), "--json").out)["unguarded"] == []


def test_list_warns_that_claude_code_starts_an_unwired_server_once_the_allowlist_is_gone(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    """With the allowlist taken out of Claude Code's settings by hand, nothing blocks a
    server added since the wiring: `list` says Claude Code would start it past the gate,
    not that the allowlist blocks it. With that warning dropped (`list_start.py:112`)
    nothing was said; with the allowlist's branch always taken (`:107`) it said the
    allowlist blocks it (both planted by hand)."""
    root = _setup(tmp_path, user_config)
    assert cli("trust", "--all", "--yes", "-w", str(root)).code == 0
    settings = isolated_home / ".claude" / "settings.json"
    kept = json.loads(settings.read_text())
    del kept["allowedMcpServers"]
    settings.write_text(json.dumps(kept))
    listed = _listed_with_unwired_c(cli, root)
    assert listed.err.splitlines()[0] == (
        "warning: Claude Code would start .mcp.json server 'c' without mcpctl's gate: it is "
        "not wired yet; run `mcpctl sync`")
    assert "allowlist blocks it" not in listed.err


def test_a_guarded_claude_code_guards_no_other_client(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    """Claude Code's allowlist blocks only Claude Code: VS Code and Cursor read the same
    repo's servers unguarded, and `clients` must not call their servers blocked, even
    when mcpctl syncs them too. With the other clients' early answer dropped
    (`guarded.py:96`, planted by hand) each was given Claude Code's state, "guarded",
    and its repo servers "blocked by Claude Code's allowlist": a protection no client
    has."""
    root = _setup(tmp_path, user_config)
    write_config(user_config, '[clients]\nsync = ["claude-code", "vscode", "cursor"]\n')
    (root / ".vscode").mkdir()
    (root / ".vscode" / "mcp.json").write_text('{"servers": {"v": {"command": "v-mcp"}}}')
    (root / ".cursor").mkdir()
    (root / ".cursor" / "mcp.json").write_text('{"mcpServers": {"u": {"command": "u-mcp"}}}')
    assert cli("trust", "--all", "--yes", "-w", str(root)).code == 0
    said = json.loads(cli("clients", "--json", "-w", str(root)).out)
    clients = {client["id"]: client for client in said["clients"]}
    assert clients["claude-code"]["guard"]["state"] == "guarded"
    for client, name in (("vscode", "v"), ("cursor", "u")):
        assert clients[client]["guard"]["state"] == "not guarded"
        assert clients[client]["guard"]["how"] == (
            "its workspace file is not measured, and mcpctl writes no guard for it")
        states = {s["name"]: s["state"] for s in clients[client]["servers"]}
        assert "blocked" not in states[name], (client, states)


def test_list_and_check_flag_a_repo_that_widens_the_allowlist(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    """The repo's committed `.claude/settings.json` adds to the allowlist the guard keeps
    (Claude Code concatenates the lists: test_guard_fresh_clone.py shows the server
    starting): `list` says Claude Code is not guarded here and counts it for
    --needs-attention, and `check` fails the commit (MCP061)."""
    root = _setup(tmp_path, user_config)
    assert cli("sync").code == 0
    listed = json.loads(cli("list", "-w", str(root), "--json").out)
    assert listed["guards"]["claude-code"]["state"] == "guarded"
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(
        '{"allowedMcpServers": [{"serverCommand": ["a-mcp"]}]}\n')
    listed = json.loads(cli("list", "-w", str(root), "--json").out)
    assert listed["guards"]["claude-code"]["state"] == "not guarded"
    assert listed["guards"]["claude-code"]["fix"].startswith("managed settings that no repo "
                                                             "can widen")
    attention = cli("list", "-w", str(root), "--needs-attention")
    assert attention.code == 1
    assert "the repo's .claude/settings.json (widens claude-code's allowlist)" in attention.err
    assert "note: Claude Code is not guarded here: the repo's .claude/settings.json adds " \
        "to Claude Code's allowlist" in attention.err
    shown = json.loads(cli("show", "a", "-w", str(root), "--json").out)["definitions"][0]
    assert (shown["guard"]["client"], shown["guard"]["state"]) == ("claude-code",
                                                                   "not guarded")
    checked = cli("check", str(root / ".claude" / "settings.json"))
    assert checked.code == 1
    assert "MCP061" in checked.out


def test_sync_json_names_the_workspace_of_a_name_the_guard_cannot_write(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    """A repo's server whose name Claude Code does not take safely gets no guard entry
    (the allowlist blocks it); `sync --json` says so with the workspace it is in, as it
    does for every other entry. With that left off (`guard.py:181`, planted by hand) the
    change had no "workspace"."""
    root = _setup(tmp_path, user_config)
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "a": {"command": "a-mcp"}, "constructor": {"command": "c-mcp"},
        "a.b": {"command": "d-mcp"}}}))
    assert cli("trust", "--all", "--yes", "-w", str(root)).code == 0
    synced = json.loads(cli("sync", "--json").out)
    skipped = [change for client in synced["clients"] for change in client["changes"]
               if change["status"] == "skipped"]
    reason = ("Claude Code does not take this name safely; its allowlist blocks the repo's "
              "entry, so it does not start")
    assert skipped == [{"name": name, "status": "skipped", "reason": reason,
                        "workspace": str(root)} for name in ("a.b", "constructor")]
    assert sorted(_projects(isolated_home)[str(root)]["mcpServers"]) == ["a"]


def test_the_not_guarded_note_is_for_a_repo_with_a_mcp_json_only(
        cli: Cli, tmp_path: Path, isolated_home: Path) -> None:
    """Claude Code reads a repo's `.mcp.json` only, so `list` notes that it is not
    guarded only where a row comes from one, by the file's whole name. With the name
    compared by its first 8 characters (`list_start.py:118`, planted by hand) a user
    config named `.mcp.json.toml` was taken for one and the note printed."""
    root = tmp_path / "repo"
    (root / ".vscode").mkdir(parents=True)
    (root / ".vscode" / "mcp.json").write_text('{"servers": {"v": {"command": "v-mcp"}}}')
    config = write_config(tmp_path / ".mcp.json.toml", '[servers.mine]\ncommand = "m"\n\n'
                          '[clients]\nsync = ["claude-code"]\n')
    listed = cli("list", "-w", str(root), "--config", str(config))
    assert listed.code == 0, listed.err
    assert "not guarded" not in listed.err
    (root / ".mcp.json").write_text('{"mcpServers": {"a": {"command": "a-mcp"}}}')
    listed = cli("list", "-w", str(root), "--config", str(config))
    assert "note: Claude Code is not guarded here: Claude Code's allowlist " in listed.err


def test_export_to_claude_code_keeps_the_allowlist_in_step(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    """With the guard on, an entry `export` writes is allowed at once (else Claude Code
    would block it until the next sync), and one no longer exported is taken out."""
    _setup(tmp_path, user_config, '[servers.mine]\ncommand = "mine-mcp"\n\n')
    exported = cli("export", "--to", "claude-code", "mine")
    assert exported.code == 0, exported.err
    assert exported.out.splitlines()[-3:] == [
        "claude-code allowlist: ~/.claude/settings.json (written, new file)",
        "  added     mcpctl run --guard --key ***  (Claude Code's allowlist lets it start)",
        "  added     mcpctl run mine --key ***  (Claude Code's allowlist lets it start)"]
    settings = isolated_home / ".claude" / "settings.json"
    settings.write_text(settings.read_text().replace(
        '"allowedMcpServers"', '"theme": "dark",\n  "allowedMcpServers"'))
    write_config(user_config, '[clients]\nsync = ["claude-code"]\n')
    assert cli("sync").code == 0
    assert json.loads(settings.read_text()) == {"theme": "dark", "allowedMcpServers": [
        {"serverCommand": ["mcpctl", "run", "--guard", "--key", guard_key()]}]}


@pytest.mark.parametrize("change", [{"cwd": "/srv/a"},
                                    {"env": {"MCPCTL_GUARD_SERVER": "a", "DEBUG": "1"}},
                                    {"env": ["MCPCTL_GUARD_SERVER"]}])
def test_a_guard_entry_the_user_changed_is_theirs_and_left_as_it_is(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path,
        change: dict[str, Any]) -> None:
    """Only an entry of exactly the guard's shape is the guard's to rewrite or remove:
    one with a key of the user's own (`cwd`), or an `env` with more in it, is theirs,
    as a local-scope entry of that name always is, and `sync` leaves it. With the
    check of the entry's keys, or of its env's, left out, `sync` wrote the guard's
    entry over the user's."""
    root = _setup(tmp_path, user_config)
    assert cli("trust", "--all", "--yes", "-w", str(root)).code == 0
    data = json.loads((isolated_home / ".claude.json").read_text())
    entry = data["projects"][str(root)]["mcpServers"]["a"]
    assert entry == _guarded_entry(root, "a")
    entry.update(change)
    (isolated_home / ".claude.json").write_text(json.dumps(data))
    synced = cli("sync")
    assert synced.code == 0, synced.err
    assert _projects(isolated_home)[str(root)]["mcpServers"]["a"] == entry


def test_two_trusted_workspaces_under_one_git_root_share_its_section(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    """Claude Code reads one local section per git root, so a repo and a folder below it
    with its own `.mcp.json`, both trusted, put their names in the same section. With
    the two workspaces sorted as they are (by their fields, not their folders), the
    second `trust`, which wires the guard, ended with an internal error (exit 70)."""
    root = _setup(tmp_path, user_config)
    sub = root / "sub"
    sub.mkdir()
    (sub / ".mcp.json").write_text(json.dumps({"mcpServers": {"c": {"command": "c-mcp"}}}))
    assert cli("trust", "--all", "--yes", "-w", str(root)).code == 0
    assert cli("trust", "--all", "--yes", "-w", str(sub)).code == 0
    synced = cli("sync")
    assert synced.code == 0, synced.err
    assert sorted(_projects(isolated_home)[str(root)]["mcpServers"]) == ["a", "b", "c"]


def test_a_workspace_file_that_cannot_be_read_keeps_its_guard_entries(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    """While a trusted workspace's `.mcp.json` cannot be read (here it is not JSON),
    what it names is unknown, so `sync` takes no guard entry out of its section and
    says why. With the unreadable case treated as "names nothing", `sync` removed both
    entries."""
    root = _setup(tmp_path, user_config)
    assert cli("trust", "--all", "--yes", "-w", str(root)).code == 0
    (root / ".mcp.json").write_text('{"mcpServers": ')
    synced = cli("sync")
    assert f"  skipped   a (in {root} only)  ({root}/.mcp.json cannot be read: the guard " \
        "entry is kept)" in synced.out + synced.err
    assert _projects(isolated_home)[str(root)]["mcpServers"] == {
        "a": _guarded_entry(root, "a"), "b": _guarded_entry(root, "b")}


def test_the_users_own_allowlist_entries_by_name_are_kept(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    """Claude Code's allowlist also takes entries by name (`serverName`) and by URL
    (`serverUrl`): they are the user's, not mcpctl's, and the guard's allowlist line is
    added beside them. With the check that an entry is `serverCommand` alone left out,
    `trust` ended with an internal error (exit 70) on the first such entry."""
    root = _setup(tmp_path, user_config)
    own = [{"serverName": "github"}, {"serverUrl": "https://mcp.example.com/*"}]
    settings = write_config(isolated_home / ".claude" / "settings.json",
                            json.dumps({"allowedMcpServers": own}))
    trusted = cli("trust", "--all", "--yes", "-w", str(root))
    assert trusted.code == 0, trusted.err
    assert json.loads(settings.read_text())["allowedMcpServers"] == [
        *own, {"serverCommand": ["mcpctl", "run", "--guard", "--key", guard_key()]}]


def test_settings_that_do_not_parse_are_refused_not_overwritten(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    """Claude Code's settings that are not JSON are the user's to mend: `trust` warns,
    names the file and where it breaks, and leaves every byte. With the refusal on a
    syntax error left out, `trust` ended with an internal error (exit 70)."""
    root = _setup(tmp_path, user_config)
    settings = write_config(isolated_home / ".claude" / "settings.json",
                            '{"allowedMcpServers": [\n')
    trusted = cli("trust", "--all", "--yes", "-w", str(root))
    assert trusted.code == 0, trusted.err
    assert re.search(rf"^warning: .*{re.escape(str(settings))}:\d+:\d+: .*; the file was not "
                     "changed$", trusted.err, re.MULTILINE), trusted.err
    assert settings.read_text() == '{"allowedMcpServers": [\n'


def test_an_allowlist_that_is_not_a_list_is_refused_not_overwritten(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    """An `allowedMcpServers` that is an object has a meaning mcpctl does not know, so
    it is left as it is and `trust` says why. With the check gone, the object's keys
    were written back as allowlist entries beside the guard's line; with only the
    message's wrapping gone, `trust` ended with an internal error (exit 70)."""
    root = _setup(tmp_path, user_config)
    text = json.dumps({"allowedMcpServers": {"serverCommand": ["mine-mcp"]}})
    settings = write_config(isolated_home / ".claude" / "settings.json", text)
    trusted = cli("trust", "--all", "--yes", "-w", str(root))
    assert trusted.code == 0, trusted.err
    assert (f"{settings}: allowedMcpServers is not a list, so mcpctl cannot add its entry; "
            "the file was not changed\n") in trusted.err
    assert settings.read_text() == text


def test_the_users_own_server_for_a_folder_below_the_git_root_is_still_guarded(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    """The user's own server wins over the repo's only where it is exported: its own
    folder's section. For a folder below the git root, Claude Code reads the git root's
    section, where the repo's entry of that name would start unguarded, so the guard's
    entry goes there. With the folder compared with the section by its first
    characters, the guard skipped it as "your own server"."""
    sub = tmp_path / "repo" / "sub"
    root = _setup(tmp_path, user_config,
                  f'[servers.mine]\ncommand = "mine-mcp"\nworkspace = "{sub}"\n\n')
    sub.mkdir()
    (sub / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "mine": {"command": "repo-mine"}, "c": {"command": "c-mcp"}}}))
    trusted = cli("trust", "--all", "--yes", "-w", str(sub))
    assert trusted.code == 0, trusted.err
    assert _projects(isolated_home)[str(root)]["mcpServers"] == {
        "c": _guarded_entry(root, "c"), "mine": _guarded_entry(root, "mine")}


def test_an_exported_entry_with_another_key_is_not_allowlisted(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    """Only an entry exported with this machine's whole guard key is let through by the
    allowlist: one with another key (here the same first characters) stays blocked
    until `sync` rewrites it. With the keys compared by their first characters, its
    line was added to the allowlist."""
    root = _setup(tmp_path, user_config, '[servers.mine]\ncommand = "mine-mcp"\n\n')
    assert cli("trust", "a", "--yes", "-w", str(root)).code == 0  # makes the key
    near = guard_key()[:8] + "0" * (len(guard_key()) - 8)
    assert near != guard_key()
    claude_json = isolated_home / ".claude.json"
    data = json.loads(claude_json.read_text())
    data["mcpServers"] = {"mine": {"type": "stdio", "command": "mcpctl",
                                   "args": ["run", "mine", "--key", near]}}
    claude_json.write_text(json.dumps(data))
    assert cli("trust", "b", "--yes", "-w", str(root)).code == 0
    settings = json.loads((isolated_home / ".claude" / "settings.json").read_text())
    assert settings == {"allowedMcpServers": [{"serverCommand": [
        "mcpctl", "run", "--guard", "--key", guard_key()]}]}


def test_an_allowlist_already_in_step_is_left_byte_for_byte(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path,
        mcpctl_home: Path) -> None:
    """Settings the user formats their own way, whose allowlist already holds the
    guard's line, are not written again: not a byte changes, and no backup is made."""
    root = _setup(tmp_path, user_config)
    assert cli("trust", "a", "--yes", "-w", str(root)).code == 0
    settings = isolated_home / ".claude" / "settings.json"
    compact = json.dumps({"theme": "dark", "allowedMcpServers": [
        {"serverCommand": ["mcpctl", "run", "--guard", "--key", guard_key()]}]})
    settings.write_text(compact)
    backups = mcpctl_home / "data" / "backups"
    kept = sorted(backups.rglob("*"))
    again = cli("trust", "b", "--yes", "-w", str(root))
    assert (again.code, again.err) == (0, "")
    assert settings.read_text() == compact
    assert sorted(backups.rglob("*")) == kept


def test_sync_check_sees_an_allowlist_that_lost_the_guards_line(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    """`sync --check` works out the allowlist as `sync` would, without writing it: the
    user's settings without the guard's line are out of date (exit 1), and stay as
    they are. With the dry run not working out the allowlist, `--check` called it up
    to date (exit 0) and said nothing of the missing line."""
    root = _setup(tmp_path, user_config)
    assert cli("trust", "--all", "--yes", "-w", str(root)).code == 0
    settings = write_config(isolated_home / ".claude" / "settings.json", '{"theme": "dark"}\n')
    check = cli("sync", "--check")
    assert check.code == 1, check.out + check.err
    assert check.out.splitlines()[-2:] == [
        "claude-code allowlist: ~/.claude/settings.json (out of date)",
        "  added     mcpctl run --guard --key ***  (Claude Code's allowlist lets it start)"]
    assert settings.read_text() == '{"theme": "dark"}\n'


def test_a_claude_config_dir_not_made_yet_is_made_with_its_parents(
        cli: Cli, tmp_path: Path, user_config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`CLAUDE_CONFIG_DIR` may name a profile folder Claude Code has not made yet, below
    folders that do not exist either. Before any workspace is trusted, `sync` has no
    guard entry to write, only the allowlist, and writes it there all the same. With
    the settings' folder made without its parents, `sync` ended with an internal error
    (exit 70, `FileNotFoundError`)."""
    write_config(user_config, '[clients]\nsync = ["claude-code"]\n')
    profile = tmp_path / "profiles" / "work" / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(profile))
    synced = cli("sync")
    assert synced.code == 0, synced.err
    assert json.loads((profile / "settings.json").read_text()) == {"allowedMcpServers": [
        {"serverCommand": ["mcpctl", "run", "--guard", "--key", guard_key()]}]}
