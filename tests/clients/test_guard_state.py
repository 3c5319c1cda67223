"""What `guard_state` and `claude_code_also_reads` say, read from the files themselves
(the real clients' verdicts on the same files are in `test_guard_fresh_clone.py` and
`test_guard_system.py`). Each test names the mutant it was shown to fail with, planted
by hand."""

from __future__ import annotations

import json
from pathlib import Path

from mcpctl.clients.guarded import (
    GUARDED,
    NOT_GUARDED,
    AlsoRead,
    claude_code_also_reads,
    guard_state,
    repo_server_names,
)
from mcpctl.machine import Machine
from mcpctl.paths import Paths
from tests.conftest import run_mcpctl

GUARD_LINE = ["mcpctl", "run", "--guard", "--key", "k3y"]


def user_allowlist(home: Path, *lines: list[str]) -> None:
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps(
        {"allowedMcpServers": [{"serverCommand": line} for line in lines]}))


def claude_state(root: Path, home: Path) -> tuple[str, str]:
    state = guard_state("claude-code", synced=True, root=root, home=home, environ={})
    return state.state, state.how


def test_an_allowlist_with_a_keyless_mcpctl_line_is_not_guarded(tmp_path: Path) -> None:
    """A keyless `mcpctl run` line beside the guard's lets a repo's entry reuse it with an
    environment of its own. Fails with that check (`if _has_keyless_line(...)`) dropped:
    the state was "guarded"."""
    root, home = tmp_path / "repo", tmp_path / "home"
    root.mkdir()
    user_allowlist(home, GUARD_LINE)
    assert claude_state(root, home)[0] == GUARDED
    user_allowlist(home, GUARD_LINE, ["mcpctl", "run", "tool"])
    state, how = claude_state(root, home)
    assert state == NOT_GUARDED
    assert "lets an `mcpctl run` line without the machine's guard key start" in how


def test_a_repo_settings_file_mcpctl_cannot_read_is_taken_to_widen(tmp_path: Path) -> None:
    """Claude Code may read what mcpctl cannot (fail closed). Fails with the `settings ==
    ""` case of `_widens` dropped: the state was "guarded"."""
    root, home = tmp_path / "repo", tmp_path / "home"
    (root / ".claude").mkdir(parents=True)
    user_allowlist(home, GUARD_LINE)
    (root / ".claude" / "settings.local.json").write_bytes(b"\xff\xfe not text")
    state, how = claude_state(root, home)
    assert state == NOT_GUARDED
    assert how.startswith("the repo's .claude/settings.local.json adds to Claude Code's")


def test_a_repos_server_names_fail_closed(tmp_path: Path) -> None:
    """A missing `.mcp.json` defines no server; one mcpctl cannot read, or whose top is not
    an object, is None (the guard keeps what it had). Fails with any of the three checks
    dropped: a missing file read as unreadable, a directory's Problem or a list's top
    ending in an exception."""
    assert repo_server_names(tmp_path / "none.json") == ()
    (tmp_path / "folder.json").mkdir()
    assert repo_server_names(tmp_path / "folder.json") is None
    (tmp_path / "list.json").write_text("[1, 2]")
    assert repo_server_names(tmp_path / "list.json") is None
    (tmp_path / "ok.json").write_text('{"mcpServers": {"b": {}, "a": {}}}')
    assert repo_server_names(tmp_path / "ok.json") == ("a", "b")


def test_gemini_is_judged_with_the_environment_handed_in(tmp_path: Path) -> None:
    """Gemini CLI's home comes from the `GEMINI_CLI_HOME` of the environment given, never
    this process's. Fails with `os.environ` passed on instead: the trust file under the
    handed home was not read."""
    root, home, gemini = tmp_path / "repo", tmp_path / "home", tmp_path / "gemini-home"
    root.mkdir()
    home.mkdir(exist_ok=True)
    elsewhere = guard_state("gemini", synced=True, root=root, home=home,
                            environ={"GEMINI_CLI_HOME": str(gemini)})
    here = guard_state("gemini", synced=True, root=root, home=home, environ={})
    (gemini / ".gemini").mkdir(parents=True)
    (gemini / ".gemini" / "trustedFolders.json").write_text(json.dumps(
        {str(root): "TRUST_FOLDER"}))
    trusted = guard_state("gemini", synced=True, root=root, home=home,
                          environ={"GEMINI_CLI_HOME": str(gemini)})
    assert elsewhere == here
    assert trusted != here


def test_claude_code_also_reads_every_parent_file_but_the_roots(tmp_path: Path) -> None:
    """From a subfolder of the root, the `.mcp.json` of every folder up to `/` but the
    root's own, nearest first. Fails with the loop skipped, the root's file kept, or the
    found file not added."""
    outer, root = tmp_path / "outer", tmp_path / "outer" / "repo"
    sub = root / "sub"
    sub.mkdir(parents=True)
    for folder, name in ((outer, "up"), (root, "own"), (sub, "down")):
        (folder / ".mcp.json").write_text(json.dumps({"mcpServers": {name: {}}}))
    paths = Paths(tmp_path / "c", tmp_path / "d", tmp_path / "e")
    machine = Machine(paths, tmp_path / "c" / "config.toml", root, {}, tmp_path, "linux", sub)
    found = [also for also in claude_code_also_reads(machine)
             if also.path.is_relative_to(tmp_path)]
    assert found == [AlsoRead(sub / ".mcp.json", ("down",)),
                     AlsoRead(outer / ".mcp.json", ("up",))]


def test_list_says_which_other_files_claude_code_reads_from_here(tmp_path: Path) -> None:
    """`list` names each parent `.mcp.json` Claude Code also reads, with its servers, none,
    or that mcpctl cannot read it, nearest first. With the note's loop skipped
    (`list_start.py:121`) or the note dropped (`:125`) it said nothing (planted by
    hand)."""
    top = tmp_path / "top"
    mid, outer = top / "mid", top / "mid" / "outer"
    root = outer / "repo"
    (root / ".git").mkdir(parents=True)
    (top / ".mcp.json").write_text("not json")
    (mid / ".mcp.json").write_text('{"mcpServers": {}}')
    (outer / ".mcp.json").write_text(json.dumps({"mcpServers": {"up": {}, "upper": {}}}))
    listed = run_mcpctl(["list", "-w", str(root)], cwd=root)
    assert listed.code == 0, listed.err
    notes = [line for line in listed.err.splitlines() if str(tmp_path) in line]
    said = "note: Claude Code here also reads {} (servers: {}), which this list does not " \
        "show; see it with `mcpctl list -w {}`"
    assert notes == [said.format(outer / ".mcp.json", "up, upper", outer),
                     said.format(mid / ".mcp.json", "none", mid),
                     said.format(top / ".mcp.json", "mcpctl cannot read it", top)]
