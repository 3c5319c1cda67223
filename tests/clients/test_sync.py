"""`mcpctl clients enable|disable` and `mcpctl sync`."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema  # type: ignore[import-untyped, unused-ignore]

from tests.clients import write_config
from tests.conftest import REPO, Cli

CONFIG = ('# servers I use everywhere\n[servers.gh]\ncommand = "github-mcp-server"\n\n'
          '# the docs server\n[servers.docs]\ncommand = "docs-mcp"\n')


def test_enable_and_disable_edit_config_toml_keeping_comments(cli: Cli,
                                                            user_config: Path) -> None:
    write_config(user_config, CONFIG)
    assert cli("clients", "enable", "cursor").out == \
        f"enabled sync for cursor in {user_config}\n"
    assert cli("clients", "enable", "codex").code == 0
    assert user_config.read_text() == CONFIG + '\n[clients]\nsync = ["cursor", "codex"]\n'
    again = cli("clients", "enable", "codex", "--json")
    assert json.loads(again.out) == {"schema_version": 1, "client": "codex", "sync": True,
                                     "changed": False, "path": str(user_config)}
    assert cli("clients", "disable", "cursor").code == 0
    assert user_config.read_text() == CONFIG + '\n[clients]\nsync = ["codex"]\n'
    assert cli("clients", "disable", "cursor").out == \
        f"disabled sync for cursor in {user_config} (already so)\n"
    assert cli("clients", "enable", "emacs").code == 2
    # Adding a server afterwards keeps [clients] intact.
    assert cli("add", "new", "--", "new-mcp").code == 0
    assert '[clients]\nsync = ["codex"]\n' in user_config.read_text()


def test_sync_without_clients_is_a_usage_error(cli: Cli, user_config: Path) -> None:
    write_config(user_config, CONFIG)
    result = cli("sync")
    assert (result.code, result.err) == (2, "mcpctl: error: no clients to sync: enable one "
                                            "with `mcpctl clients enable NAME` (see `mcpctl "
                                            "clients` for the names)\n")


def test_unknown_client_in_config_is_reported(cli: Cli, user_config: Path) -> None:
    write_config(user_config, CONFIG + '[clients]\nsync = ["cursor", "emacs"]\n')
    result = cli("sync")
    assert result.code == 3
    assert result.err == (f"mcpctl: error: {user_config}: [clients] sync names unknown client "
                          "'emacs' (known: claude-code, claude-desktop, cursor, vscode, codex, "
                          "gemini, windsurf)\n")


def test_sync_check_then_sync_then_check(cli: Cli, isolated_home: Path,
                                         user_config: Path) -> None:
    write_config(user_config, CONFIG + '[clients]\nsync = ["cursor", "codex"]\n')
    check = cli("sync", "--check")
    assert check.code == 1
    assert check.out == ("cursor: ~/.cursor/mcp.json (out of date)\n  added     docs\n"
                         "  added     gh\ncodex: ~/.codex/config.toml (out of date)\n"
                         "  added     docs\n  added     gh\n")
    assert not (isolated_home / ".cursor").exists()
    synced = cli("sync", "--json")
    assert synced.code == 0
    document = json.loads(synced.out)
    jsonschema.validate(document, json.loads((REPO / "schemas" / "export.schema.json")
                                             .read_text()))
    assert [(c["client"], c["written"], c["backup"]) for c in document["clients"]] == [
        ("cursor", True, None), ("codex", True, None)]
    assert cli("sync", "--check").out == ("cursor: ~/.cursor/mcp.json (up to date)\n"
                                         "codex: ~/.codex/config.toml (up to date)\n")
    assert cli("sync", "--check").code == 0
    view = json.loads(cli("clients", "--json", "-w", str(isolated_home)).out)
    assert {c["id"]: c["sync"] for c in view["clients"] if c["sync"]["enabled"]} == {
        "cursor": {"enabled": True, "up_to_date": True},
        "codex": {"enabled": True, "up_to_date": True}}


def test_sync_keeps_going_past_a_broken_client(cli: Cli, isolated_home: Path,
                                               user_config: Path) -> None:
    write_config(user_config, CONFIG + '[clients]\nsync = ["cursor", "windsurf"]\n')
    broken = write_config(isolated_home / ".cursor" / "mcp.json", "{ nope")
    hand = write_config(isolated_home / ".codeium" / "windsurf" / "mcp_config.json",
                        json.dumps({"mcpServers": {"gh": {"command": "my-own-gh"}}}))
    result = cli("sync")
    assert result.code == 3
    assert result.err == (f"cursor: ~/.cursor/mcp.json: error: {broken}:1:3: Expecting "
                          "property name enclosed in double quotes; the file was not changed\n")
    assert result.out == ("windsurf: ~/.codeium/windsurf/mcp_config.json (written, backup "
                          + result.out.split("backup ")[1].split(")")[0] + ")\n"
                          "  added     docs\n  conflict  gh  (Windsurf defines 'gh' itself; "
                          "--replace makes it launch through mcpctl (the old entry goes to "
                          "the backup))\n")
    assert broken.read_text() == "{ nope"
    assert json.loads(hand.read_text())["mcpServers"] == {
        "gh": {"command": "my-own-gh"}, "docs": {"command": "mcpctl", "args": ["run", "docs"]}}
    broken.write_text("{}")
    assert cli("sync").code == 1  # the conflict remains


def test_sync_updates_an_entry_whose_command_changed(cli: Cli, isolated_home: Path,
                                                     user_config: Path) -> None:
    write_config(user_config, CONFIG + '[clients]\nsync = ["vscode"]\n')
    path = write_config(isolated_home / ".config" / "Code" / "User" / "mcp.json",
                        '{\n\t"servers": {\n\t\t"gh": {"type": "stdio", "command": '
                        '"/old/bin/mcpctl", "args": ["run", "gh"]}\n\t}\n}\n')
    result = cli("sync", "--command", "/new/bin/mcpctl")
    assert result.out.splitlines()[1:] == ["  added     docs", "  updated   gh"]
    assert json.loads(path.read_text())["servers"]["gh"]["command"] == "/new/bin/mcpctl"


def test_sync_removing_the_last_entry_keeps_the_comments_before_it(
        cli: Cli, isolated_home: Path, user_config: Path) -> None:
    write_config(user_config, '[servers.gh]\ncommand = "github-mcp-server"\n')
    path = write_config(isolated_home / ".config" / "Code" / "User" / "mcp.json",
                        '{\n  "servers": {\n    "mine": {"command": "my-server"}, '
                        '// keep this comment about mine\n    // and this one above gh\n'
                        '    "gh": {"type": "stdio", "command": "mcpctl", '
                        '"args": ["run", "gh"]}\n  }\n}\n')
    assert cli("clients", "enable", "vscode").code == 0
    assert cli("remove", "gh").code == 0
    result = cli("sync")
    assert result.code == 0
    assert path.read_text() == (
        '{\n  "servers": {\n    "mine": {"command": "my-server"} '
        '// keep this comment about mine\n    // and this one above gh\n  }\n}\n')


def test_a_broken_server_in_config_toml_stops_sync_before_any_client(
        cli: Cli, user_config: Path, isolated_home: Path) -> None:
    """A server config.toml cannot define stops `sync` up front: one line, the config
    error's exit code, no client file touched. With that first check left out, each
    client failed on its own, one error per client and a warning before the same line."""
    write_config(user_config, '[servers.bad]\nargs = ["x"]\n\n'
                              '[clients]\nsync = ["cursor", "gemini"]\n')
    result = cli("sync")
    assert result.code == 3
    assert result.out == ""
    assert result.err.count("\n") == 1, result.err
    assert result.err.startswith("mcpctl: error: ")
    assert "server 'bad' has neither 'command' nor 'url'" in result.err
    assert not (isolated_home / ".cursor").exists()
    assert not (isolated_home / ".gemini").exists()
