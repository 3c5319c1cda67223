"""What `sync` writes as each client's own tool filter, file by file: the keys a policy
owns, what the user wrote there before, and Claude Code's deny rules beside theirs."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path
from typing import Any

from tests.cli.test_tools import TOOLS_SERVER, tools_file
from tests.clients import guard_key, write_config
from tests.conftest import Result, run_mcpctl


def setup(user_config: Path, tmp_path: Path) -> Path:
    listed = tools_file(tmp_path / "tools.json", ["read_a", "read_b", "write_c"])
    write_config(user_config, f'[servers.fs]\ncommand = "{sys.executable}"\n'
                              f'args = ["{TOOLS_SERVER}", "--tools", "{listed}"]\n\n'
                              '[clients]\nsync = ["gemini", "codex", "claude-code", "cursor"]\n')
    return tmp_path


def mcpctl(cwd: Path, *args: str) -> Result:
    done = run_mcpctl(list(args), cwd=cwd)
    assert done.code in (0, 1), done.err
    return done


def gemini(home: Path) -> dict[str, object]:
    entry: dict[str, object] = json.loads((home / ".gemini" / "settings.json").read_text())[
        "mcpServers"]["fs"]
    return entry


def codex(home: Path) -> dict[str, object]:
    entry: dict[str, object] = tomllib.loads(
        (home / ".codex" / "config.toml").read_text())["mcp_servers"]["fs"]
    return entry


def test_a_policy_owns_the_filter_keys_and_takes_them_out_when_nothing_is_off(
        user_config: Path, tmp_path: Path, isolated_home: Path) -> None:
    cwd = setup(user_config, tmp_path)
    mcpctl(cwd, "sync")
    settings = isolated_home / ".gemini" / "settings.json"
    # The user's own filter, before any policy: kept, as every tweak is.
    data = json.loads(settings.read_text())
    data["mcpServers"]["fs"]["excludeTools"] = ["read_a"]
    settings.write_text(json.dumps(data, indent=2))
    mcpctl(cwd, "sync")
    assert gemini(isolated_home)["excludeTools"] == ["read_a"]
    # A policy decides the filter from now on.
    mcpctl(cwd, "tools", "fs", "--only", "read_*")
    check = run_mcpctl(["sync", "--check"], cwd=cwd)
    assert check.code == 1  # gemini, codex and Claude Code's settings are out of date
    mcpctl(cwd, "sync")
    assert (gemini(isolated_home).get("includeTools"),
            gemini(isolated_home).get("excludeTools")) == (["read_a", "read_b"], None)
    assert codex(isolated_home)["enabled_tools"] == ["read_a", "read_b"]
    claude = json.loads((isolated_home / ".claude" / "settings.json").read_text())
    assert guard_lines(claude) == [["run", "--guard", "--key", guard_key()],
                                   ["run", "fs", "--key", guard_key()]]
    assert claude == {"permissions": {"deny": ["mcp__fs__write_c"]}}
    cursor = json.loads((isolated_home / ".cursor" / "mcp.json").read_text())
    assert set(cursor["mcpServers"]["fs"]) == {"command", "args"}  # no filter of its own
    # Nothing off any more: mcpctl's filter goes, and Claude Code's rule with it.
    mcpctl(cwd, "tools", "fs", "--reset")
    mcpctl(cwd, "sync")
    assert "includeTools" not in gemini(isolated_home)
    assert "excludeTools" not in gemini(isolated_home)
    assert "enabled_tools" not in codex(isolated_home)
    claude = json.loads((isolated_home / ".claude" / "settings.json").read_text())
    assert guard_lines(claude) == [["run", "--guard", "--key", guard_key()],
                                   ["run", "fs", "--key", guard_key()]]
    assert claude == {"permissions": {"deny": []}}
    assert run_mcpctl(["sync", "--check"], cwd=cwd).code == 0


def guard_lines(settings: dict[str, Any]) -> list[list[str]]:
    """Takes the guard's allowlist (issue 22) out of Claude Code's settings, and returns
    its command lines without the command: the same file holds the deny rules."""
    return [item["serverCommand"][1:] for item in settings.pop("allowedMcpServers")]


def test_sync_json_reports_the_deny_rules(user_config: Path, tmp_path: Path) -> None:
    cwd = setup(user_config, tmp_path)
    mcpctl(cwd, "tools", "fs", "--disable", "write_c")
    document = json.loads(mcpctl(cwd, "sync", "--json").out)
    settings = [c for c in document["clients"] if c["path"].endswith("settings.json")
                and c["client"] == "claude-code" and not c["guard"]]
    assert [(c["name"], c["status"]) for c in settings[0]["changes"]] == [
        ("mcp__fs__write_c", "added")]


def test_sync_dry_run_shows_the_deny_rules_it_would_write(user_config: Path, tmp_path: Path,
                                                          isolated_home: Path) -> None:
    cwd = setup(user_config, tmp_path)
    mcpctl(cwd, "tools", "fs", "--disable", "write_c")
    dry = mcpctl(cwd, "sync", "--dry-run")
    assert '+      "mcp__fs__write_c"' in dry.out
    assert not (isolated_home / ".claude" / "settings.json").exists()


def test_claude_settings_whose_permissions_are_not_an_object_are_left_as_they_are(
        user_config: Path, tmp_path: Path, isolated_home: Path) -> None:
    """Claude Code's settings are the user's own file: where `permissions` is not an
    object, `sync` cannot add its deny rule there: it says so with the config error's
    exit code and leaves them as they were (the guard's allowlist beside them is its
    own edit). With that check left out, the edit went on and `sync` ended with an
    internal error (exit 70)."""
    cwd = setup(user_config, tmp_path)
    mcpctl(cwd, "tools", "fs", "--disable", "write_c")
    settings = isolated_home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"permissions": ["Bash(ls)"]}\n')
    done = run_mcpctl(["sync"], cwd=cwd)
    assert done.code == 3, done.err
    assert "'permissions' is not an object; the file was not changed" in done.err
    assert json.loads(settings.read_text())["permissions"] == ["Bash(ls)"]


def test_a_broken_tool_policy_stops_only_the_exports_that_write_a_tool_filter(
        user_config: Path, tmp_path: Path, isolated_home: Path) -> None:
    """A `[tools.NAME]` table `check` would refuse is read only by an export that writes
    a client's own tool filter (Gemini CLI's, Codex's): that one stops with the config
    error's exit code, and Cursor, which has no filter, is written as usual. With the
    policies read for every client, the Cursor export failed too."""
    write_config(user_config, '[servers.fs]\ncommand = "fs-mcp"\n\n[tools.fs]\nonly = 5\n')
    refused = run_mcpctl(["export", "--to", "gemini"], cwd=tmp_path)
    assert refused.code == 3, refused.err
    assert "[tools.fs] only must be a list" in refused.err
    done = run_mcpctl(["export", "--to", "cursor"], cwd=tmp_path)
    assert done.code == 0, done.err
    assert "fs" in json.loads((isolated_home / ".cursor" / "mcp.json").read_text())["mcpServers"]


def test_only_a_probed_server_with_a_policy_gets_a_filter(
        user_config: Path, tmp_path: Path, isolated_home: Path) -> None:
    """A filter is written for a server with both a `[tools.NAME]` policy and a cached
    probe (its tool list). Probed without a policy (`other`), or with a policy but
    never probed (`never`), a server's entry gets no filter key and `sync` goes on.
    With either check left out, `sync` ended with an internal error (exit 70)."""
    cwd = setup(user_config, tmp_path)
    server = user_config.read_text().split("\n\n")[0]
    write_config(user_config, user_config.read_text().replace(
        "[clients]", server.replace("[servers.fs]", "[servers.other]") + "\n\n"
        + server.replace("[servers.fs]", "[servers.never]") + '\nenv = { NEVER = "1" }'
        + '\n\n[tools.never]\nonly = ["read_a"]\n\n[clients]'))
    mcpctl(cwd, "tools", "other")  # probed: its tools are cached
    mcpctl(cwd, "tools", "fs", "--only", "read_*")
    synced = run_mcpctl(["sync"], cwd=cwd)
    assert synced.code == 0, synced.err
    servers = json.loads((isolated_home / ".gemini" / "settings.json").read_text())[
        "mcpServers"]
    assert servers["fs"]["includeTools"] == ["read_a", "read_b"]
    assert {name: sorted(set(servers[name]) & {"includeTools", "excludeTools"})
            for name in ("other", "never")} == {"other": [], "never": []}
