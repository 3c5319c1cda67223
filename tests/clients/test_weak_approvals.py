"""Claude Code's name-only approvals of a workspace's .mcp.json servers."""

from __future__ import annotations

import json
from pathlib import Path

from mcpctl.clients.weak_approvals import (
    SettingsFile,
    SettingsKind,
    WeakApproval,
    find_weak_approvals,
    load_weak_approvals,
)
from mcpctl.model import Problem
from mcpctl.syntax import jsonc
from tests.clients import install_home, install_workspace, write_config


def settings(path: str, kind: SettingsKind, value: object,
             prefix: tuple[str, ...] = ()) -> SettingsFile:
    return SettingsFile(Path(path), kind, jsonc.parse(json.dumps(value, indent=1), jsonc=False),
                        prefix)


AFTER_TRUST = ("approved by name in a project setting, which counts only once Claude "
               "Code's trust dialog for this folder is accepted")


def test_project_settings_approve_only_once_the_folder_is_trusted() -> None:
    """Measured with Claude Code 2.1.197: user settings approve at once; the repo's,
    the local settings and ~/.claude.json's list count after the trust dialog."""
    repo = settings("/r/.claude/settings.json", SettingsKind.REPO,
                    {"enableAllProjectMcpServers": True})
    local = settings("/r/.claude/settings.local.json", SettingsKind.LOCAL,
                     {"enabledMcpjsonServers": ["l"]})
    user = settings("/h/.claude/settings.json", SettingsKind.USER,
                    {"enabledMcpjsonServers": ["u"]})

    def claude_json(trusted: bool) -> SettingsFile:
        return settings("/h/.claude.json", SettingsKind.CLAUDE_JSON, {"projects": {"/r": {
            "hasTrustDialogAccepted": trusted, "enabledMcpjsonServers": ["c"]}}},
            ("projects", "/r"))

    before = find_weak_approvals([repo, local, user, claude_json(False)], {"l", "u", "c", "x"})
    assert {n: before.state_of(n) for n in "lucx"} == {
        "l": f"needs approval ({AFTER_TRUST})", "u": "approved by name",
        "c": f"needs approval ({AFTER_TRUST})", "x": f"needs approval ({AFTER_TRUST})"}
    after = find_weak_approvals([repo, local, user, claude_json(True)], {"l", "u", "c", "x"})
    assert {n: after.state_of(n) for n in "lucx"} == dict.fromkeys("lucx", "approved by name")
    # A local `false` silences the repo's `true` once trusted; before, the user's `true`
    # alone decides.
    off = settings("/r/.claude/settings.local.json", SettingsKind.LOCAL,
                   {"enableAllProjectMcpServers": False})
    user_all = settings("/h/.claude/settings.json", SettingsKind.USER,
                        {"enableAllProjectMcpServers": True})
    assert find_weak_approvals([off, user_all, claude_json(True)], {"x"}).state_of("x") == \
        "needs approval"
    assert find_weak_approvals([off, user_all, claude_json(False)], {"x"}).state_of("x") == \
        "approved by name"


def test_pure_rules_disabled_wins_and_unknown_names_are_flagged() -> None:
    result = find_weak_approvals([
        settings("/r/.claude/settings.json", SettingsKind.REPO, {"enabledMcpjsonServers": [
            "a", "later", "a"]}),
        settings("/r/.claude/settings.local.json", SettingsKind.LOCAL, {
            "disabledMcpjsonServers": ["b"], "enabledMcpjsonServers": ["b"]}),
    ], {"a", "b"})
    assert result.approvals == [
        WeakApproval("a", "enabledMcpjsonServers", SettingsKind.REPO,
                     Path("/r/.claude/settings.json"), 2, True),
        WeakApproval("later", "enabledMcpjsonServers", SettingsKind.REPO,
                     Path("/r/.claude/settings.json"), 2, False),
    ]
    # The repo's own approval counts only once the folder's trust dialog is accepted.
    assert (result.state_of("a"), result.state_of("b"), result.state_of("c")) == (
        f"needs approval ({AFTER_TRUST})", "disabled", "needs approval")
    assert result.approvals[0].message() == (
        "the repo approves its own server 'a' for Claude Code by name only "
        "(enabledMcpjsonServers in the repo's own .claude/settings.json): a changed command "
        "would start without a prompt; mcpctl approves by fingerprint: review with "
        "`mcpctl show a`, approve with `mcpctl trust a`")
    assert result.approvals[1].message() == (
        "the repo approves its own server 'later' for Claude Code by name "
        "(enabledMcpjsonServers in the repo's own .claude/settings.json) but .mcp.json does "
        "not define it yet: a server added later under that name would start without a prompt")


def test_wrong_types_are_problems() -> None:
    result = find_weak_approvals([
        settings("/h/.claude.json", SettingsKind.CLAUDE_JSON,
                 {"projects": {"/r": {"enabledMcpjsonServers": "a",
                                      "enableAllProjectMcpServers": "yes"}}},
                 ("projects", "/r")),
    ], {"a"})
    assert result.approvals == []
    assert result.problems == [
        Problem(Path("/h/.claude.json"), 5, 4,
                "enableAllProjectMcpServers must be true or false"),
        Problem(Path("/h/.claude.json"), 4, 4,
                "enabledMcpjsonServers must be a list of server names"),
    ]


def test_loader_reads_every_place_claude_code_keeps_approvals(tmp_path: Path,
                                                              isolated_home: Path) -> None:
    root = install_workspace(tmp_path / "repo")
    install_home("claude-code", isolated_home, root)
    write_config(isolated_home / ".claude" / "settings.json",
                 '{"enabledMcpjsonServers": ["lint-bot"]}')
    result = load_weak_approvals(root, {"repo-tools", "lint-bot"},
                                 {"HOME": str(isolated_home)}, isolated_home)
    assert result.problems == []
    assert [(a.server, a.setting, a.kind.value, a.path.name, a.line, a.defined)
            for a in result.approvals] == [
        (None, "enableAllProjectMcpServers", "repo", "settings.json", 5, True),
        ("lint-bot", "enabledMcpjsonServers", "local", "settings.local.json", 2, True),
        ("future-server", "enabledMcpjsonServers", "local", "settings.local.json", 2, False),
        ("lint-bot", "enabledMcpjsonServers", "user", "settings.json", 1, True),
    ]
    # repo-tools is disabled in settings.local.json: even "all" does not cover it.
    assert result.approvals[0].covers == ("lint-bot",)
    assert result.approvals[0].message() == (
        "Claude Code starts every server of .mcp.json without asking "
        "(enableAllProjectMcpServers in the repo's own .claude/settings.json), including "
        "servers added later (now: lint-bot); a changed command would start without a "
        "prompt; mcpctl approves by fingerprint: review with `mcpctl list`, approve with "
        "`mcpctl trust --all`")
    assert result.approvals[3].message() == (
        "Claude Code approves 'lint-bot' by name only (enabledMcpjsonServers in Claude Code's "
        "user settings (every folder)): a changed command would start without a prompt; "
        "mcpctl approves by fingerprint: review with `mcpctl show lint-bot`, approve with "
        "`mcpctl trust lint-bot`")


def test_loader_honours_claude_config_dir_and_reports_bad_files(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    config_dir = tmp_path / "claude-config"
    write_config(config_dir / ".claude.json", json.dumps(
        {"projects": {str(root): {"enabledMcpjsonServers": ["x"]}}}))
    write_config(root / ".claude" / "settings.json", "{ not json")
    result = load_weak_approvals(root, set(), {"CLAUDE_CONFIG_DIR": str(config_dir)},
                                 tmp_path / "home")
    assert [(a.server, a.kind.value, a.line) for a in result.approvals] == [
        ("x", "claude-json", 1)]
    assert result.problems == [Problem(root / ".claude" / "settings.json", 1, 3,
                                       "Expecting property name enclosed in double quotes")]
