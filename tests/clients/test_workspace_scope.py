"""Per-workspace servers in the user tier: Claude Code's local scope, kept local.

`workspace = "/abs/project"` on a `[servers.NAME]` table makes it the user's own server
for that one project: every command sees it only there (real paths compared), import
puts a Claude Code local-scope server there, and export/sync write it back into that
project's section of `~/.claude.json` only, skipping clients that have none.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.clients import guard_key, mcpctl_shim, write_config
from tests.clients.real_clients import claude_statuses, path_with, run_client
from tests.conftest import Cli


def _names(cli: Cli, root: Path) -> list[str]:
    result = cli("list", "--json", "-w", str(root))
    assert result.code == 0, result.err
    return [s["name"] for s in json.loads(result.out)["servers"]]


def test_a_workspace_server_exists_only_in_its_workspace(
        cli: Cli, tmp_path: Path, user_config: Path) -> None:
    root, other = tmp_path / "proj", tmp_path / "other"
    root.mkdir()
    other.mkdir()
    (tmp_path / "link").symlink_to(root)
    write_config(user_config, '[servers.everywhere]\ncommand = "e"\n\n'
                              f'[servers.local]\ncommand = "l"\nworkspace = "{tmp_path}/link"\n')
    assert _names(cli, root) == ["everywhere", "local"]  # the link names the same folder
    assert _names(cli, other) == ["everywhere"]
    shown = cli("show", "local", "-w", str(other))
    assert (shown.code, shown.err) == (2, "mcpctl: error: no server named 'local' here "
                                          "(see: mcpctl list)\n")
    ran = cli("run", "local", "-w", str(other))
    assert (ran.code, ran.err) == (shown.code, shown.err)  # the one lookup


def test_a_relative_workspace_is_a_config_problem(cli: Cli, tmp_path: Path,
                                                  user_config: Path) -> None:
    write_config(user_config, '[servers.local]\ncommand = "l"\nworkspace = "src/app"\n')
    result = cli("list", "-w", str(tmp_path))
    assert result.code == 3
    assert result.err == (f"{user_config}:1:1: error: server 'local': 'workspace' must be the "
                          "absolute path of the project folder it belongs to\n")


def test_import_keeps_a_local_server_local_and_sync_writes_it_back_there(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    claude_json = isolated_home / ".claude.json"
    original = json.dumps({"mcpServers": {"g": {"type": "stdio", "command": "g-mcp"}},
                           "projects": {str(root): {"allowedTools": [], "mcpServers": {
                               "loc": {"type": "stdio", "command": "loc-mcp",
                                       "args": ["--x"], "env": {}}}}}}, indent=2)
    claude_json.write_text(original)
    imported = cli("import", "--from", "claude-code", "-w", str(root))
    assert imported.code == 0, imported.err
    assert user_config.read_text() == (
        '[servers.g]\ncommand = "g-mcp"\n\n'
        f'[servers.loc]\ncommand = "loc-mcp"\nargs = ["--x"]\nworkspace = "{root}"\n')
    assert _names(cli, root) == ["g", "loc"]
    assert _names(cli, tmp_path) == ["g"]
    assert cli("clients", "enable", "claude-code").code == 0
    assert cli("clients", "enable", "cursor").code == 0

    synced = cli("sync", "--replace")
    assert synced.code == 0, synced.err
    assert synced.out.splitlines()[1:] == [
        "  replaced  g  (the old entry is in the backup)",
        f"  replaced  loc (in {root} only)  (the old entry is in the backup)",
        "cursor: ~/.cursor/mcp.json (written, new file)",
        "  added     g",
        f"  skipped   loc  (a server for one workspace ({root}): Cursor has no per-project "
        "section for the user's own servers, and writing it for every folder would start "
        "it everywhere)",
        # Claude Code's allowlist lets exactly what mcpctl exported start (issue 22).
        "claude-code allowlist: ~/.claude/settings.json (written, new file)",
        "  added     mcpctl run --guard --key ***  (Claude Code's allowlist lets it start)",
        "  added     mcpctl run g --key ***  (Claude Code's allowlist lets it start)",
        "  added     mcpctl run loc --key ***  (Claude Code's allowlist lets it start)"]
    data = json.loads(claude_json.read_text())
    key = guard_key()
    assert data["mcpServers"] == {"g": {"type": "stdio", "command": "mcpctl",
                                        "args": ["run", "g", "--key", key]}}
    assert data["projects"] == {str(root): {"allowedTools": [], "mcpServers": {
        "loc": {"type": "stdio", "command": "mcpctl", "args": ["run", "loc", "--key", key]}}}}
    assert "loc" not in json.loads((isolated_home / ".cursor" / "mcp.json").read_text())[
        "mcpServers"]
    # Moved to every folder: the project's entry goes, a top-level one comes.
    text = user_config.read_text().replace(f'workspace = "{root}"\n', "")
    write_config(user_config, text)
    moved = cli("sync")
    assert moved.code == 0, moved.err
    assert moved.out.splitlines()[1:3] == [
        "  added     loc", f"  removed   loc (in {root} only)  (no longer a server for this "
        "workspace in the user tier)"]
    data = json.loads(claude_json.read_text())
    assert data["projects"][str(root)]["mcpServers"] == {}
    assert set(data["mcpServers"]) == {"g", "loc"}


def test_claude_code_starts_a_synced_local_server_in_its_project_only(
        cli: Cli, tmp_path: Path, isolated_home: Path, user_config: Path) -> None:
    root, other = tmp_path / "proj", tmp_path / "other"
    root.mkdir()
    other.mkdir()
    server = Path(__file__).resolve().parents[1] / "servers" / "token_server.py"
    write_config(user_config, f'[servers.loc]\ncommand = "python3"\nargs = ["{server}"]\n'
                              f'workspace = "{root}"\n\n[clients]\nsync = ["claude-code"]\n')
    assert cli("sync").code == 0
    env = path_with(isolated_home, mcpctl_shim(tmp_path / "bin").parent)
    here = run_client("claude", ["mcp", "list"], home=isolated_home, cwd=root, env=env)
    assert claude_statuses(here.stdout) == {"loc": "✔ Connected"}, here.stdout
    elsewhere = run_client("claude", ["mcp", "get", "loc"], home=isolated_home, cwd=other,
                           env=env)
    assert (elsewhere.returncode, elsewhere.stderr) == (
        1, 'No MCP server named "loc". Run `claude mcp add` to add one.\n')
