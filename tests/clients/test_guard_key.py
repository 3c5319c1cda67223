"""The machine's guard key (issue 22): made once, 0600, carried by every command line
mcpctl lets Claude Code start, accepted by `run`, and never printed by any command."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from mcpctl.cli.run_start import RunLine, parse_fast
from mcpctl.clients.guard_key import ensure_key, hidden, read_key
from mcpctl.clients.table import client_by_id, exported_entry, is_guard_run, is_managed
from mcpctl.clients.write.guard import plan_allowlist
from mcpctl.errors import ConfigError
from tests.clients import guard_key, write_config
from tests.conftest import REPO, Cli, run_mcpctl

KEY = "0123456789abcdef" * 2


def test_the_key_is_made_once_0600_and_two_makers_agree(tmp_path: Path) -> None:
    path = tmp_path / "data" / "guard.key"
    code = ("import sys; from pathlib import Path; from mcpctl.clients.guard_key import "
            "ensure_key; print(ensure_key(Path(sys.argv[1]), mode=0o600))")
    makers = [subprocess.Popen([sys.executable, "-c", code, str(path)], cwd=REPO,
                               stdout=subprocess.PIPE, text=True) for _ in range(4)]
    keys = {maker.communicate(timeout=60)[0].strip() for maker in makers}
    assert keys == {read_key(path)}
    assert len(keys.pop()) == 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert ensure_key(path, mode=0o600) == read_key(path)


def test_a_key_file_that_holds_no_key_is_refused_without_quoting_it(
        cli: Cli, isolated_home: Path, user_config: Path, mcpctl_home: Path) -> None:
    path = mcpctl_home / "data" / "guard.key"
    path.parent.mkdir(parents=True)
    path.write_text("not-a-key-but-secret-looking-text\n")
    with pytest.raises(ConfigError) as raised:
        read_key(path)
    said = (f"{path}: does not hold an mcpctl guard key (remove it and run `mcpctl sync` to "
            "make a new one); nothing was changed")
    assert str(raised.value) == said
    # sync: Claude Code's files are left as they were, the other clients still synced.
    write_config(user_config, '[servers.mine]\ncommand = "x"\n[clients]\n'
                 'sync = ["claude-code", "cursor"]\n')
    synced = cli("sync")
    assert synced.code == 3
    assert synced.out == "cursor: ~/.cursor/mcp.json (written, new file)\n  added     mine\n"
    assert synced.err.splitlines() == [f"claude-code: ~/.claude.json: error: {said}"] * 2 + [
        f"claude-code: ~/.claude/settings.json: error: {said}"]
    assert not (isolated_home / ".claude.json").exists()
    assert not (isolated_home / ".claude").exists()


def test_entries_and_lines_carry_the_key_and_are_still_mcpctls() -> None:
    claude, codex = client_by_id("claude-code"), client_by_id("codex")
    assert claude is not None
    assert codex is not None
    entry = exported_entry(claude, "gh", "mcpctl", key=KEY)
    assert entry == {"type": "stdio", "command": "mcpctl", "args": ["run", "gh", "--key", KEY]}
    assert exported_entry(codex, "gh", "mcpctl", key=KEY)["args"] == ["run", "gh"]
    assert is_managed(claude, "gh", entry)
    assert is_managed(claude, "gh", {**entry, "args": ["run", "gh"]})  # an older one
    assert not is_managed(claude, "gh", {**entry, "args": ["run", "gh", "--key"]})
    assert is_guard_run("x", "mcpctl", ["run", "--guard", "--key", KEY],
                        {"MCPCTL_GUARD_SERVER": "x"})
    assert hidden(["run", "--guard", "--key", KEY]) == ["run", "--guard", "--key", "***"]


def test_an_allowlist_line_without_a_key_never_stays() -> None:
    """Even when what was exported is unknown (`remove=False`): any repo could write it."""
    current = [{"serverCommand": ["mcpctl", "run", "--guard"]},
               {"serverCommand": ["mcpctl", "run", "old", "--key", "f" * 32]},
               {"serverCommand": ["node", "mine.js"]}]
    plan = plan_allowlist(current, [["mcpctl", "run", "--guard", "--key", KEY]], remove=False)
    assert plan.entries == [current[1], current[2],
                            {"serverCommand": ["mcpctl", "run", "--guard", "--key", KEY]}]
    assert [(c.name, c.status) for c in plan.changes] == [
        ("mcpctl run --guard --key ***", "added"), ("mcpctl run --guard", "removed")]


def test_run_takes_the_key_on_both_parsers(tmp_path: Path, user_config: Path) -> None:
    assert parse_fast(["--guard", "--key", KEY]) == RunLine("", guard=True)
    assert parse_fast(["gh", "--key", KEY]) == RunLine("gh")
    for args in (["--guard", "--key"], ["--guard", "--key", "-w"], ["gh", "--key"]):
        assert parse_fast(args) is None  # typer's error, not this parser's
    marker = tmp_path / "started"
    write_config(user_config, f'[servers.m]\ncommand = "{sys.executable}"\n'
                 f'args = ["-c", "open({str(marker)!r}, \'w\')"]\n')
    fast = run_mcpctl(["run", "m", "--key", KEY])
    assert (fast.code, fast.err) == (0, "")
    assert marker.exists()
    marker.unlink()
    # `--key=K` is typer's to read; the key is not checked either way.
    typed = run_mcpctl(["run", "--key=wrong", "m"])
    assert (typed.code, typed.err) == (0, "")
    assert marker.exists()
    refused = run_mcpctl(["run", "--guard", "--key", KEY, "m"])
    assert (refused.code, refused.err) == (2, "mcpctl: error: run --guard takes nothing but "
                                           "--key: the server and its workspace come from "
                                           "the environment\n")


def test_no_command_prints_the_key(cli: Cli, tmp_path: Path, isolated_home: Path,
                                   user_config: Path, mcpctl_home: Path) -> None:
    """Every command that reads Claude Code's entries or the allowlist, in text and
    JSON, after `sync` wrote the key into them, and a dry run whose diff adds it again."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"a": {"command": "a-mcp"}}}))
    write_config(user_config, f'[servers.mine]\ncommand = "{sys.executable}"\n'
                 '[clients]\nsync = ["claude-code"]\n')
    outputs = [cli("sync"), cli("trust", "--all", "--yes", "-w", str(root))]
    key = guard_key()
    claude_json = isolated_home / ".claude.json"
    assert claude_json.read_text().count(key) == 2  # the guard's entry and `mine`
    # An entry of mcpctl's without the key (written before there was one): sync adds it.
    claude_json.write_text(claude_json.read_text().replace(f',\n        "--key",\n        '
                                                           f'"{key}"', "", 1))
    assert claude_json.read_text().count(key) == 1
    commands = [
        ["sync", "--check"], ["sync", "--dry-run"], ["sync", "--check", "--json"],
        ["export", "--to", "claude-code", "--dry-run"], ["list"], ["list", "--json"],
        ["list", "-w", str(root), "--json"], ["show", "mine"], ["show", "mine", "--json"],
        ["show", "a", "-w", str(root)], ["clients"], ["clients", "--json"],
        ["clients", "-w", str(root), "--json"], ["doctor", "--no-probe"],
        ["doctor", "--no-probe", "--json"], ["import", "--from", "claude-code"],
        ["import", "--from", "claude-code", "-w", str(root), "--json"],
        ["guard", "--system"], ["guard", "--system", "--json"], ["run", "--guard", "--key", key],
    ]
    ran = [cli(*command) for command in commands]
    # Each ran as meant (exit 1: out of date, or a `run --guard` that names no server).
    assert [r.code for r in ran] == [1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                     0, 2], [r.err for r in ran]
    outputs += ran
    said = [result.out + result.err for result in outputs]
    # Whole, or as secret masking would show it (its first 4 characters, then ***).
    assert [text for text in said if key[:8] in text or f"{key[:4]}***" in text] == []
    # ... and every one still knows mcpctl's entries for what they are.
    said = json.loads(cli("clients", "-w", str(root), "--json").out)
    claude = next(c for c in said["clients"] if c["id"] == "claude-code")
    assert {(s["name"], s["scope"]): (s["state"], s["managed"], s["args"])
            for s in claude["servers"] if s["scope"] != "project"} == {
        ("mine", "user"): ("via mcpctl", True, ["run", "mine"]),  # the one made keyless
        ("a", "local"): ("via mcpctl's gate (guard)", False, ["run", "--guard", "--key",
                                                               "***"])}
    imported = json.loads(cli("import", "--from", "claude-code", "-w", str(root),
                              "--json").out)
    assert {s["name"]: s["status"] for s in imported["servers"]} == {"mine": "skipped",
                                                                     "a": "skipped"}
    diff = cli("sync", "--dry-run").out
    assert '+        "--key",\n+        "***"\n' in diff, diff
    assert cli("sync").code == 0
    assert claude_json.read_text().count(key) == 2
    # A key once shown is replaced: remove the file and sync.
    (mcpctl_home / "data" / "guard.key").unlink()
    assert cli("sync").code == 0
    new = guard_key()
    assert new != key
    assert key not in claude_json.read_text()
    assert claude_json.read_text().count(new) == 2
    settings = json.loads((isolated_home / ".claude" / "settings.json").read_text())
    assert settings["allowedMcpServers"] == [
        {"serverCommand": ["mcpctl", "run", "--guard", "--key", new]},
        {"serverCommand": ["mcpctl", "run", "mine", "--key", new]}]
