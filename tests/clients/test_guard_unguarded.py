"""Where no user-level guard exists, mcpctl says so, and the client's own CLI shows why
(issue 22): Gemini CLI starts a trusted folder's server whatever the user's settings
hold, and Codex takes a trusted project's entry over the user's exported one of the
same name (its `mcp get` shows the repo's command, not `mcpctl run`).

The strongest user-level mechanism each offers is its own trust: a fresh clone's servers
start in neither until the user trusts the folder (Gemini CLI, folder trust on by
default) or the project (Codex) in the client, and from then on every server of it
starts, changed or not. mcpctl says which of the two holds here, with the client's own
status as the oracle (`gemini mcp list`; Codex's app-server startup status), and that
neither is a guard.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.clients import TOKEN_SERVER, codex_app, mcpctl_shim
from tests.clients.real_clients import (
    client,
    client_env,
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


SYSTEM_FIX = "sudo mcpctl guard --system --write"


def _words(client_id: str, home: Path, root: Path, env: dict[str, str]) -> dict[str, Any]:
    """What `clients`, `list` and `doctor` say about `client_id` here."""
    said = _said(client_id, home, root, env)
    listed = run_mcpctl_as_client(["list", "--json"], home=home, cwd=root, env=env)
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout)["guards"][client_id] == said
    doctor = run_mcpctl_as_client(["doctor"], home=home, cwd=root, env=env)
    words = f"{client_id} {said['state']} ({said['how']}; to guard it: {said['fix']})"
    assert f"  warn  guard: {words}\n" in doctor.stdout, doctor.stdout + doctor.stderr
    shown = run_mcpctl_as_client(["show", "repo", "--json"], home=home, cwd=root, env=env)
    assert json.loads(shown.stdout)["definitions"][0]["guard"] == {"client": client_id,
                                                                   **said}
    shown = run_mcpctl_as_client(["show", "repo"], home=home, cwd=root, env=env)
    assert f"  guard:     {words}\n" in shown.stdout, shown.stdout
    # sync, for the client enabled: said from the files as they are (--check writes none).
    config = home / "mcpctl-sync.toml"
    config.write_text(f'[clients]\nsync = ["{client_id}"]\n')
    synced = run_mcpctl_as_client(["sync", "--check", "--json", "--config", str(config)],
                                  home=home, cwd=root, env=env)
    assert json.loads(synced.stdout)["guards"] == {client_id: said}, synced.stderr
    synced = run_mcpctl_as_client(["sync", "--check", "--config", str(config)], home=home,
                                  cwd=root, env=env)
    assert f"guard here: {words}\n" in synced.stderr
    return said


def test_gemini_starts_nothing_of_a_fresh_clone_until_trusted_and_mcpctl_says_so(
        tmp_path: Path) -> None:
    home, marker = tmp_path / "client-home", tmp_path / "repo-started"
    (home / ".gemini").mkdir(parents=True)
    root = _project(tmp_path / "clone")
    (root / ".gemini").mkdir()
    (root / ".gemini" / "settings.json").write_text(json.dumps({"mcpServers": {"repo": {
        "command": sys.executable, "args": [str(TOKEN_SERVER), "--marker", str(marker)]}}}))
    env = path_with(home, mcpctl_shim(tmp_path / "bin").parent)
    listed = run_client("gemini", ["mcp", "list"], home=home, cwd=root, env=env)
    assert "disabled because this folder is untrusted" in listed.stdout + listed.stderr
    assert gemini_statuses(listed.stdout + listed.stderr) == {"repo": "disabled"}
    assert not marker.exists()
    said = _words("gemini", home, root, env)
    assert said == {"state": "not guarded", "how": (
        "Gemini CLI does not trust this folder (no rule in trustedFolders.json covers this "
        "folder, and folder trust is on by default), so it starts none of its servers now, "
        "yours included; once you trust it there, the repo's servers start past mcpctl's "
        "gate, changed or not"), "fix": f"{SYSTEM_FIX} (Gemini CLI's system settings, "
                                        "which no repo can widen)"}

    # The user trusts it the way Gemini CLI records it: the repo's server starts.
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(root):
                                                                      "TRUST_FOLDER"}))
    listed = run_client("gemini", ["mcp", "list"], home=home, cwd=root, env=env)
    assert gemini_statuses(listed.stdout + listed.stderr) == {"repo": "connected"}
    assert marker.exists()
    said = _words("gemini", home, root, env)
    assert said["state"] == "not guarded"
    assert said["how"].endswith(f"trusted: trustedFolders.json: TRUST_FOLDER for {root}")
    assert said["fix"].endswith("; or stop trusting this folder in Gemini CLI")


def test_codex_reads_nothing_of_a_fresh_clone_until_trusted_and_mcpctl_says_so(
        tmp_path: Path) -> None:
    home, marker = tmp_path / "client-home", tmp_path / "repo-started"
    (home / ".codex").mkdir(parents=True)
    root = _project(tmp_path / "clone")
    (root / ".codex").mkdir()
    (root / ".codex" / "config.toml").write_text(
        f'[mcp_servers.repo]\ncommand = "{sys.executable}"\n'
        f'args = ["{TOKEN_SERVER}", "--marker", "{marker}"]\n')
    env = path_with(home, mcpctl_shim(tmp_path / "bin").parent)
    client("codex")  # skipped locally, a failure on CI, when it is missing
    assert codex_app.startup_status(root, client_env(home, env)) == {}
    assert not marker.exists()
    said = _words("codex", home, root, env)
    assert said == {"state": "not guarded", "how": (
        "Codex does not trust this project, so it reads none of its .codex/config.toml now; "
        "once you trust it there, the project's servers start past mcpctl's gate, changed "
        "or not"), "fix": f"{SYSTEM_FIX} (Codex's requirements.toml mcp_servers allowlist)"}

    # The user trusts it the way Codex records it: the project's server starts.
    (home / ".codex" / "config.toml").write_text(
        f'[projects."{root}"]\ntrust_level = "trusted"\n')
    assert codex_app.startup_status(root, client_env(home, env)) == {"repo": ["whoami"]}
    assert marker.exists()
    said = _words("codex", home, root, env)
    assert said["state"] == "not guarded"
    assert "merges over your entries key by key" in said["how"]
    assert said["fix"].endswith("; or mark the project untrusted in Codex")


def test_gemini_user_allowlist_narrows_by_name_only(tmp_path: Path) -> None:
    """The strongest user-level setting Gemini CLI has: `mcp.allowed` in the user's
    settings. The workspace cannot widen it (its own list naming `repo` leaves `repo`
    blocked), but a workspace server named like an allowed one replaces the user's
    definition and runs the repo's command: no guard, as mcpctl says."""
    home, ran = tmp_path / "client-home", tmp_path / "repo-command-ran"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps({
        "mcp": {"allowed": ["mine"]},
        "mcpServers": {"mine": {"command": sys.executable, "args": [str(TOKEN_SERVER)]}}}))
    root = _project(tmp_path / "clone")
    (root / ".gemini").mkdir()
    repo_entry = {"command": sys.executable, "args": [str(TOKEN_SERVER), "--marker", str(ran)]}
    (root / ".gemini" / "settings.json").write_text(json.dumps({
        "mcp": {"allowed": ["mine", "repo"]},
        "mcpServers": {"mine": repo_entry, "repo": repo_entry}}))
    env = {**path_with(home, mcpctl_shim(tmp_path / "bin").parent),
           "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    listed = run_client("gemini", ["mcp", "list"], home=home, cwd=root, env=env)
    assert gemini_statuses(listed.stdout + listed.stderr) == {"mine": "connected",
                                                              "repo": "blocked"}
    assert ran.exists()  # `mine` ran the repo's command
    said = _said("gemini", home, root, env)
    assert said["state"] == "not guarded"
    assert "(mcp.allowed is by name only)" in said["how"]
