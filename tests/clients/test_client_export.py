"""export and its writers: only mcpctl's entries change, atomically, with a backup."""

from __future__ import annotations

import json
import os
import re
import stat
import tomllib
from pathlib import Path

import jsonschema  # type: ignore[import-untyped, unused-ignore]
import pytest

from mcpctl.clients.write.diff import mask_line, masked_diff
from mcpctl.syntax.json_edit import json_edit
from tests.clients import USER_FILE, guard_key, install_home, single_insertion, write_config
from tests.conftest import REPO, Cli

USER_TIER = '# my servers\n[servers.gh]\ncommand = "github-mcp-server"\nargs = ["stdio"]\n'

ENTRY = ('"gh": {\n{i}  "command": "mcpctl",\n{i}  "args": [\n{i}    "run",\n{i}    "gh"\n'
         '{i}  ]\n{i}}')
TYPED = ('"gh": {\n{i}  "type": "stdio",\n{i}  "command": "mcpctl",\n{i}  "args": [\n'
         '{i}    "run",\n{i}    "gh"\n{i}  ]\n{i}}')
# Claude Code's entries end with the machine's guard key (issue 22), here @KEY@.
KEYED = TYPED.replace('"gh"\n{i}  ]', '"gh",\n{i}    "--key",\n{i}    "@KEY@"\n{i}  ]')
INSERTED = {
    "claude-code": ",\n    " + KEYED.replace("{i}", "    "),
    "claude-desktop": ",\n    " + ENTRY.replace("{i}", "    "),
    "cursor": ",\n    " + ENTRY.replace("{i}", "    "),
    "vscode": "\t" + TYPED.replace("{i}", "\t\t").replace("  ", "\t") + ",\n\t",
    "codex": '[mcp_servers.gh]\ncommand = "mcpctl"\nargs = ["run", "gh"]\nenv_vars = '
             '["MCPCTL_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", '
             '"XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS"]\n\n',
    "gemini": ",\n    " + ENTRY.replace("{i}", "    "),
    "windsurf": ",\n    " + ENTRY.replace("{i}", "    "),
}
def backups(mcpctl_home: Path, client: str) -> list[Path]:
    folder = mcpctl_home / "data" / "backups" / client
    return sorted(folder.iterdir()) if folder.exists() else []


@pytest.mark.parametrize("client", list(USER_FILE))
def test_export_round_trip_changes_only_mcpctl_entries(
        client: str, cli: Cli, isolated_home: Path, user_config: Path,
        mcpctl_home: Path) -> None:
    path = install_home(client, isolated_home)
    original = path.read_bytes()
    write_config(user_config, USER_TIER)
    result = cli("export", "--to", client)
    [backup] = backups(mcpctl_home, client)
    assert (result.code, result.err) == (0, "")
    assert result.out == (f"{client}: ~/{USER_FILE[client]} (written, backup "
                          f"~/../mcpctl-home/data/backups/{client}/{backup.name} with 1 "
                          "secret value(s) replaced by ${secret:…} references)\n"
                          "  added     gh\n").replace(
                              "~/../mcpctl-home", str(mcpctl_home))
    assert single_insertion(original.decode(), path.read_text()) == \
        INSERTED[client].replace("@KEY@", guard_key() if client == "claude-code" else "")
    # The backup is the old file with its one token replaced by the reference import uses.
    token = re.search(r"sk-live-[A-Za-z0-9]+", original.decode())
    assert token is not None
    assert backup.read_text() == original.decode().replace(token[0],
                                                           "${secret:tokens-API_TOKEN}")
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    # Again: nothing to do, nothing written, no second backup.
    again = cli("export", "--to", client)
    assert again.out == f"{client}: ~/{USER_FILE[client]} (up to date)\n"
    assert len(backups(mcpctl_home, client)) == 1
    # Remove the server and sync: mcpctl's entry goes, the file is byte for byte the original.
    write_config(user_config, "# my servers\n")
    assert cli("clients", "enable", client).code == 0
    synced = cli("sync")
    assert (synced.code, synced.err) == (0, "")
    lines = synced.out.splitlines()
    assert lines[1] == "  removed   gh  (no longer in the user tier)"
    # Claude Code's allowlist, in its settings file, lets only mcpctl's entries start
    # (issue 22): gh's line goes, the guard's one launch shape stays.
    assert lines[2:] == ([
        "claude-code allowlist: ~/.claude/settings.json (written, new file)",
        "  added     mcpctl run --guard --key ***  (Claude Code's allowlist lets it "
        "start)"]
        if client == "claude-code" else [])
    assert path.read_bytes() == original


def test_export_json_report_matches_schema(cli: Cli, isolated_home: Path,
                                           user_config: Path) -> None:
    install_home("cursor", isolated_home)
    write_config(user_config, USER_TIER)
    result = cli("export", "--to", "cursor", "gh", "--json", "--dry-run")
    document = json.loads(result.out)
    jsonschema.validate(document, json.loads((REPO / "schemas" / "export.schema.json")
                                             .read_text()))
    [report] = document["clients"]
    assert report["changes"] == [{"name": "gh", "status": "added", "reason": ""}]
    assert (report["written"], report["backup"], report["up_to_date"]) == (False, None, False)
    assert report["diff"].startswith(f"--- {isolated_home}/.cursor/mcp.json (before)\n")


def test_dry_run_prints_a_masked_diff_and_writes_nothing(cli: Cli, isolated_home: Path,
                                                         user_config: Path) -> None:
    path = install_home("windsurf", isolated_home)
    before = path.read_bytes()
    write_config(user_config, USER_TIER)
    result = cli("export", "--to", "windsurf", "--dry-run")
    assert result.code == 0
    assert path.read_bytes() == before
    assert result.out.startswith(f"--- {path} (before)\n+++ {path} (after)\n@@ -17,6 +17,13 @@\n")
    assert '+    "gh": {\n' in result.out
    assert result.err == f"windsurf: ~/{USER_FILE['windsurf']} (would change)\n" \
                         "  added     gh\n"
    # A neighbour's token in the context lines is masked.
    token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    path.write_text(path.read_text().replace('"disabled": true',
                                             '"env": {"TOKEN": "' + token + '"}'))
    masked = cli("export", "--to", "windsurf", "--dry-run")
    assert "ghp_abc" not in masked.out
    assert '"TOKEN": "ghp_***"' in masked.out


def test_mask_line() -> None:
    assert mask_line('  "API_KEY": "abcd1234efgh5678ijkl",\n') == '  "API_KEY": "abcd***",\n'
    assert mask_line('env = { API_TOKEN = "sk-live-0123456789abcdefghijk" }') == \
        'env = { API_TOKEN = "sk-l***" }'
    assert mask_line('"args": ["--port", "8080"]') == '"args": ["--port", "8080"]'


def test_conflict_is_refused_then_replaced_with_a_backup(cli: Cli, isolated_home: Path,
                                                        user_config: Path,
                                                        mcpctl_home: Path) -> None:
    path = write_config(isolated_home / ".cursor" / "mcp.json",
                        '{"mcpServers": {"gh": {"command": "old-gh"}}}\n')
    write_config(user_config, USER_TIER)
    refused = cli("export", "--to", "cursor", "gh")
    assert refused.code == 1
    assert refused.out == ("cursor: ~/.cursor/mcp.json (conflicts)\n  conflict  gh  (Cursor "
                           "defines 'gh' itself; --replace makes it launch through mcpctl (the "
                           "old entry goes to the backup))\n")
    assert path.read_text() == '{"mcpServers": {"gh": {"command": "old-gh"}}}\n'
    replaced = cli("export", "--to", "cursor", "gh", "--replace")
    assert replaced.code == 0
    assert path.read_text() == \
        '{"mcpServers": {"gh": {"command": "mcpctl", "args": ["run", "gh"]}}}\n'
    [backup] = backups(mcpctl_home, "cursor")
    assert backup.read_text() == '{"mcpServers": {"gh": {"command": "old-gh"}}}\n'


@pytest.mark.parametrize(("content", "message"), [
    ('{"mcpServers": {"a": {}, "a": {}}}',
     "1:26: duplicate key mcpServers.a (first at line 1); which one Cursor uses is unclear, "
     "so the file was not changed"),
    ('{"mcpServers": {,}}', "1:17: Expecting property name enclosed in double quotes; "
                            "the file was not changed"),
    ('{"mcpServers": []}', "'mcpServers' is not a table of servers; the file was not changed"),
    ("[1]", "the top level is not an object; the file was not changed"),
    # Cursor reads plain JSON: a comment is an error there, not a note mcpctl may keep.
    # With comments blanked for every client, this file was written, comment and all.
    ('{\n  // mine\n  "mcpServers": {}\n}\n',
     "2:3: Expecting property name enclosed in double quotes; the file was not changed"),
])
def test_a_file_that_does_not_parse_is_left_alone(
        cli: Cli, isolated_home: Path, user_config: Path, mcpctl_home: Path, content: str,
        message: str) -> None:
    path = write_config(isolated_home / ".cursor" / "mcp.json", content)
    write_config(user_config, USER_TIER)
    result = cli("export", "--to", "cursor")
    assert (result.code, result.out) == (3, "")
    separator = ":" if message[0].isdigit() else ": "
    assert result.err == f"mcpctl: error: {path}{separator}{message}\n"
    assert path.read_text() == content
    assert backups(mcpctl_home, "cursor") == []


def test_codex_toml_that_does_not_parse(cli: Cli, isolated_home: Path,
                                        user_config: Path) -> None:
    path = write_config(isolated_home / ".codex" / "config.toml", "[mcp_servers.a\n")
    write_config(user_config, USER_TIER)
    result = cli("export", "--to", "codex")
    assert result.code == 3
    assert result.err.startswith(f"mcpctl: error: {path}:1:15: ")
    assert result.err.endswith("; the file was not changed\n")
    assert path.read_text() == "[mcp_servers.a\n"


def test_broken_user_tier_exports_nothing(cli: Cli, isolated_home: Path,
                                          user_config: Path) -> None:
    write_config(user_config, "[servers.gh\n")
    result = cli("export", "--to", "cursor")
    assert result.code == 3
    assert "fix config.toml first (nothing was exported)" in result.err
    assert not (isolated_home / ".cursor").exists()


def test_unknown_client_and_unknown_server(cli: Cli, user_config: Path) -> None:
    write_config(user_config, USER_TIER)
    assert cli("export", "--to", "emacs").err == (
        "mcpctl: error: unknown client 'emacs' (known: claude-code, claude-desktop, cursor, "
        "vscode, codex, gemini, windsurf)\n")
    result = cli("export", "--to", "cursor", "nope")
    assert (result.code, result.err) == (2, f"mcpctl: error: no server named 'nope' in the "
                                            f"user tier ({user_config}); see: mcpctl list "
                                            "--tier user\n")


def test_new_file_symlink_and_mode(cli: Cli, isolated_home: Path, user_config: Path,
                                   tmp_path: Path) -> None:
    write_config(user_config, USER_TIER)
    assert cli("export", "--to", "cursor", "gh").code == 0
    created = isolated_home / ".cursor" / "mcp.json"
    assert created.read_text() == ('{\n  "mcpServers": {\n    ' + ENTRY.replace("{i}", "    ")
                                   + "\n  }\n}\n")
    assert stat.S_IMODE(created.stat().st_mode) == 0o600
    # A dotfile manager's symlink stays a symlink; the target gets the change.
    target = write_config(tmp_path / "dotfiles" / "mcp_config.json", '{"mcpServers": {}}\n')
    os.chmod(target, 0o644)
    link = isolated_home / ".codeium" / "windsurf" / "mcp_config.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(target)
    assert cli("export", "--to", "windsurf", "gh").code == 0
    assert link.is_symlink()
    assert json.loads(target.read_text()) == {"mcpServers": {"gh": {
        "command": "mcpctl", "args": ["run", "gh"]}}}
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_command_option_and_config_setting(cli: Cli, isolated_home: Path,
                                           user_config: Path) -> None:
    write_config(user_config, USER_TIER + '\n[clients]\ncommand = "/opt/mcpctl/bin/mcpctl"\n')
    assert cli("export", "--to", "cursor", "gh").code == 0
    path = isolated_home / ".cursor" / "mcp.json"
    assert json.loads(path.read_text())["mcpServers"]["gh"]["command"] == \
        "/opt/mcpctl/bin/mcpctl"
    result = cli("export", "--to", "cursor", "gh", "--command", "mcpctl")
    assert result.out == "cursor: ~/.cursor/mcp.json (written, backup " + \
        result.out.split("backup ")[1].split(")")[0] + ")\n  updated   gh\n"
    assert json.loads(path.read_text())["mcpServers"]["gh"]["command"] == "mcpctl"


# ---- the JSON editor on its own ---------------------------------------------------------

GH = {"command": "mcpctl", "args": ["run", "gh"]}


@pytest.mark.parametrize(("before", "after"), [
    ("", '{\n  "mcpServers": {\n    "gh": {\n      "command": "mcpctl",\n      "args": [\n'
         '        "run",\n        "gh"\n      ]\n    }\n  }\n}\n'),
    ('{"theme": "dark"}', '{"theme": "dark", "mcpServers": {"gh": {"command": "mcpctl", '
                          '"args": ["run", "gh"]}}}'),
    ('{"mcpServers":{}}', '{"mcpServers":{"gh":{"command":"mcpctl","args":["run","gh"]}}}'),
    ('{\r\n  "mcpServers": {}\r\n}\r\n',
     '{\r\n  "mcpServers": {\r\n    "gh": {\r\n      "command": "mcpctl",\r\n      "args": '
     '[\r\n        "run",\r\n        "gh"\r\n      ]\r\n    }\r\n  }\r\n}\r\n'),
    ('\ufeff{\n  "x": 1\n}\n', '\ufeff{\n  "x": 1,\n  "mcpServers": {\n    "gh": {\n      '
     '"command": "mcpctl",\n      "args": [\n        "run",\n        "gh"\n      ]\n    }\n'
     '  }\n}\n'),
    ('{\n  "mcpServers": { // none yet\n  }\n}\n',
     '{\n  "mcpServers": {\n    "gh": {\n      "command": "mcpctl",\n      "args": [\n'
     '        "run",\n        "gh"\n      ]\n    } // none yet\n  }\n}\n'),
])
def test_json_edit_adds(before: str, after: str) -> None:
    assert json_edit(before, "mcpServers", {"gh": GH}) == after


@pytest.mark.parametrize(("before", "after"), [
    ('{\n  "mcpServers": {\n    "gh": {},\n    "b": 1\n  }\n}',
     '{\n  "mcpServers": {\n    "b": 1\n  }\n}'),
    ('{\n  "mcpServers": {\n    "a": 1,\n    "gh": {},\n    "b": 2\n  }\n}',
     '{\n  "mcpServers": {\n    "a": 1,\n    "b": 2\n  }\n}'),
    ('{\n  "mcpServers": {\n    "a": 1,\n    "gh": {}\n  }\n}',
     '{\n  "mcpServers": {\n    "a": 1\n  }\n}'),
    ('{\n  "mcpServers": {\n    "a": 1,\n    "gh": {},\n  }\n}',
     '{\n  "mcpServers": {\n    "a": 1,\n  }\n}'),
    ('{\n  "mcpServers": {\n    "gh": {}\n  },\n  "x": 2\n}',
     '{\n  "mcpServers": {}, \n  "x": 2\n}'.replace("{}, ", "{},")),
    ('{"mcpServers": {"gh": {"args": ["}"]}, "a": "{"}}', '{"mcpServers": {"a": "{"}}'),
    # The last member: comments between it and the one before stay.
    ('{"mcpServers": {"a": 1, /* c */ "gh": {}}}', '{"mcpServers": {"a": 1 /* c */}}'),
    ('{\n  "mcpServers": {\n    "a": 1, // about a\n    // above gh\n    "gh": {}, // gh\n'
     '  }\n}', '{\n  "mcpServers": {\n    "a": 1, // about a\n    // above gh\n     // gh\n'
     '  }\n}'),
])
def test_json_edit_removes(before: str, after: str) -> None:
    assert json_edit(before, "mcpServers", {"gh": None}) == after


def test_json_edit_replaces_in_place_and_keeps_comments() -> None:
    before = ('{\n  // mine\n  "servers": {\n    /* a */ "gh": {"command": "old"}, // c\n'
              '    "z": {}\n  }\n}\n')
    assert json_edit(before, "servers", {"gh": GH}) == (
        '{\n  // mine\n  "servers": {\n    /* a */ "gh": {\n      "command": "mcpctl",\n'
        '      "args": [\n        "run",\n        "gh"\n      ]\n    }, // c\n    "z": {}\n'
        '  }\n}\n')


# ---- Codex TOML ------------------------------------------------------------------------

def test_codex_entries_written_other_ways_go_through_tomlkit(
        cli: Cli, isolated_home: Path, user_config: Path) -> None:
    path = write_config(isolated_home / ".codex" / "config.toml",
                        '# top\nmcp_servers.gh.command = "old"\n\n[profiles.x]\nmodel = "m"\n')
    write_config(user_config, USER_TIER)
    assert cli("export", "--to", "codex", "gh", "--replace").code == 0
    data = tomllib.loads(path.read_text())
    assert data["mcp_servers"]["gh"]["args"] == ["run", "gh"]
    assert data["profiles"] == {"x": {"model": "m"}}
    assert path.read_text().startswith("# top\n")


def test_codex_crlf_and_removal_keeps_neighbour_comments(cli: Cli, isolated_home: Path,
                                                         user_config: Path) -> None:
    original = ('model = "m"\r\n\r\n# about a\r\n[mcp_servers.a]\r\ncommand = "a"\r\n\r\n'
                '# about profiles\r\n[profiles.p]\r\nmodel = "n"\r\n')
    path = write_config(isolated_home / ".codex" / "config.toml", "")
    path.write_bytes(original.encode())
    write_config(user_config, USER_TIER)
    assert cli("export", "--to", "codex", "gh").code == 0
    added = single_insertion(original, path.read_bytes().decode())
    assert added.startswith('[mcp_servers.gh]\r\ncommand = "mcpctl"\r\nargs = ["run", "gh"]\r\n')
    write_config(user_config, "")
    assert cli("clients", "enable", "codex").code == 0
    assert cli("sync").code == 0
    assert path.read_bytes().decode() == original


def test_a_huge_or_special_client_file_is_left_alone(cli: Cli, isolated_home: Path,
                                                     user_config: Path) -> None:
    write_config(user_config, USER_TIER)
    path = isolated_home / ".cursor" / "mcp.json"
    path.parent.mkdir()
    with path.open("wb") as handle:
        handle.truncate(64 * 1024 * 1024 + 1)
    result = cli("export", "--to", "cursor")
    assert (result.code, result.err) == (3, f"mcpctl: error: {path}:1:1: file is larger than "
                                            "67108864 bytes; the file was not changed\n")
    assert path.stat().st_size == 64 * 1024 * 1024 + 1
    path.unlink()
    path.symlink_to("/dev/null")
    special = cli("export", "--to", "cursor")
    assert (special.code, special.err) == (3, "mcpctl: error: /dev/null:1:1: is not a regular "
                                              "file; the file was not changed\n")
    assert path.is_symlink()


def test_a_symlink_loop_at_the_client_file_is_reported(cli: Cli, isolated_home: Path,
                                                       user_config: Path) -> None:
    write_config(user_config, USER_TIER)
    folder = isolated_home / ".cursor"
    folder.mkdir()
    (folder / "mcp.json").symlink_to("a")
    (folder / "a").symlink_to("mcp.json")
    result = cli("export", "--to", "cursor")
    assert (result.code, result.out) == (3, "")
    assert result.err == (f"mcpctl: error: {folder / 'mcp.json'}: symlink loop: cannot "
                          "resolve the path; the file was not changed\n")
    listed = cli("clients")
    assert (listed.code, listed.out) == (3, "no servers in any client's files\n")
    assert listed.err == ("~/.cursor/mcp.json:1:1: error: cannot read: Too many levels of "
                          "symbolic links\n")
    problems = json.loads(cli("clients", "--json").out)["problems"]
    assert [p for p in problems if p["path"].endswith("mcp.json")] == [
        {"path": str(folder / "mcp.json"), "line": 1, "column": 1,
         "message": "cannot read: Too many levels of symbolic links"}]


def test_a_deeply_nested_unrelated_key_does_not_crash_export(
        cli: Cli, isolated_home: Path, user_config: Path) -> None:
    write_config(user_config, USER_TIER)
    deep = '{"mcpServers": {}, "other": ' + '[' * 500 + ']' * 500 + '}\n'
    path = write_config(isolated_home / ".cursor" / "mcp.json", deep)
    dry = cli("export", "--to", "cursor", "--dry-run")
    assert (dry.code, dry.err) == (0, "cursor: ~/.cursor/mcp.json (would change)\n"
                                      "  added     gh\n")
    assert path.read_text() == deep
    assert cli("export", "--to", "cursor").code == 0
    assert json.loads(path.read_text())["mcpServers"] == {
        "gh": {"command": "mcpctl", "args": ["run", "gh"]}}


def test_dry_run_masks_secrets_found_in_the_parsed_file(cli: Cli, isolated_home: Path,
                                                        user_config: Path) -> None:
    path = write_config(isolated_home / ".codex" / "config.toml", (
        '[mcp_servers.mine]\ncommand = "srv"\n'
        'args = ["--token", "3f9a8b7c6d5e4f3a2b1c0d9e", "--db", "postgres://a:pw@db/x"]\n'
        'env = { API_KEY = "3f9a8b7c6d5e4f3a2b1c0d9e", PASSWORD = "hunter2hunter2" }\n'))
    write_config(user_config, USER_TIER)
    result = cli("export", "--to", "codex", "gh", "--dry-run")
    assert result.code == 0
    assert result.out == (
        f"--- {path} (before)\n+++ {path} (after)\n@@ -2,3 +2,8 @@\n"
        ' command = "srv"\n'
        ' args = ["--token", "3f9a***", "--db", "postgres://a:***@db/x"]\n'
        ' env = { API_KEY = "3f9a***", PASSWORD = "hun***" }\n'
        '+\n+[mcp_servers.gh]\n+command = "mcpctl"\n+args = ["run", "gh"]\n'
        '+env_vars = ["MCPCTL_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", '
        '"XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS"]\n')


def test_codex_servers_written_as_one_inline_table_are_left_alone(
        cli: Cli, isolated_home: Path, user_config: Path, mcpctl_home: Path) -> None:
    content = '# mine\nmcp_servers = { mine = { command = "my-server" } }\n'
    path = write_config(isolated_home / ".codex" / "config.toml", content)
    write_config(user_config, USER_TIER)
    result = cli("export", "--to", "codex")
    assert (result.code, result.out) == (3, "")
    assert result.err == (f"mcpctl: error: {path}: 'mcp_servers' is written as one inline "
                          "table (mcp_servers = { ... }), which mcpctl cannot edit; write "
                          "each server as a [mcp_servers.NAME] table; the file was not "
                          "changed\n")
    assert path.read_text() == content
    assert backups(mcpctl_home, "codex") == []


def test_an_edit_that_would_not_mean_what_was_intended_is_not_written(
        cli: Cli, isolated_home: Path, user_config: Path) -> None:
    """A `[mcp_servers]` table between `gh`'s own tables: cutting `gh` as lines would take
    the neighbour `mine` with it. The edited text is re-read and compared with what was
    intended, so the file is refused whole instead of losing a server."""
    write_config(user_config, USER_TIER)
    path = isolated_home / ".codex" / "config.toml"
    path.parent.mkdir(parents=True)
    before = ('[mcp_servers.gh]\ncommand = "old"\n\n[mcp_servers]\nmine = { command = "my" }\n'
              '\n[mcp_servers.gh.env]\nA = "1"\n')
    path.write_text(before)
    result = cli("export", "--to", "codex", "gh", "--replace")
    assert result.code == 3
    assert result.err == (f"mcpctl: error: {path}: the edited file would not mean what was "
                          "intended; the file was not changed (please report this)\n")
    assert path.read_text() == before


def test_a_secret_the_file_holds_is_masked_in_a_comment_of_the_diff_too() -> None:
    """A password known from the parsed file (here only its key says so) is masked
    wherever the diff shows it, a TOML comment included, where no quotes mark it. With
    literals masked outside quotes only from 128 characters (not 8), the comment showed
    the password whole."""
    old = ('[mcp_servers.db]\ncommand = "db-mcp"\n# rotated from Harb4471q-zz\n'
           '[mcp_servers.db.env]\nPGPASSWORD = "Harb4471q-zz"\n')
    new = old + '\n[mcp_servers.fs]\ncommand = "fs-mcp"\n'
    diff = masked_diff(old, new, "config.toml", [tomllib.loads(old), tomllib.loads(new)])
    assert "Harb4471q-zz" not in diff
    assert " # rotated from Har***\n" in diff


def test_a_file_without_a_final_newline_gives_a_diff_of_whole_lines() -> None:
    """difflib leaves the last line of a file without a final newline as it is; each
    line of the diff still ends in one, so the next line is not glued to it. With a
    line taken to end in a newline whatever its end, `-}` and `+}` shared a line."""
    diff = masked_diff('{\n  "a": 1\n}', '{\n  "a": 2\n}\n', "mcp.json")
    assert diff.splitlines()[-4:] == ['-  "a": 1', "-}", '+  "a": 2', "+}"]


def test_a_url_password_in_the_diff_is_hidden_whole() -> None:
    """A URL's password is hidden whole in a diff (`u:***@`), as everywhere URLs are
    shown; the masking of other values keeps a few first characters. With URLs masked
    as other values are, the diff showed the password's first two."""
    old = '{"mcpServers": {"db": {"url": "https://u:Harb4471q@db.example/mcp"}}}\n'
    new = old.replace("}}}", '}, "fs": {"command": "fs-mcp"}}}')
    diff = masked_diff(old, new, "mcp.json", [json.loads(old), json.loads(new)])
    assert "https://u:***@db.example/mcp" in diff
    assert "Ha***" not in diff


def test_a_short_secret_is_masked_only_where_it_is_the_whole_string() -> None:
    """A password shorter than 8 characters is masked where it is a whole quoted
    string; the same letters inside other words stay, or every `pw1` in a command
    line would be blotted out. With short literals masked anywhere, `pw1-server` became
    `***-server`."""
    old = '{"db": {"command": "pw1-server", "env": {"PGPASSWORD": "pw1"}}}\n'
    new = old.replace("}}}", '}}, "fs": {"command": "fs-mcp"}}')
    diff = masked_diff(old, new, "mcp.json", [json.loads(old), json.loads(new)])
    assert '"command": "pw1-server"' in diff
    assert '"PGPASSWORD": "***"' in diff


def test_a_secret_inside_a_longer_one_is_masked_after_it_in_the_diff() -> None:
    """Secrets are masked longest first: a short one inside a long one, masked first,
    would leave the long one unmatched, with more of it shown than its mask keeps.
    With the literals taken in any other order (by text, or shortest first), the long
    one showed as `AAHa***`, not `AAH***`."""
    short, long = "Harb4471qZZ", "AAHarb4471qZZ"
    old = json.dumps({"a": {"env": {"API_TOKEN": short, "OTHER_TOKEN": long}}}) + "\n"
    new = old.replace("}}}", '}}, "fs": {"command": "fs-mcp"}}')
    diff = masked_diff(old, new, "mcp.json", [json.loads(old), json.loads(new)])
    assert '"OTHER_TOKEN": "AAH***"' in diff
    assert '"API_TOKEN": "Ha***"' in diff


def test_a_word_after_a_secret_like_word_in_args_stays_in_the_diff() -> None:
    """Only an option (`--token VALUE`) makes the argument after it a value judged by
    its name: `gh-mcp auth token refresh` has no secret in it, and the diff shows it
    whole. With any argument taken as the option before the next, `refresh` was
    masked as a token (`r***`) wherever it stood as a whole string."""
    old = '{"mcpServers": {"gh": {"command": "gh-mcp", "args": ["auth", "token", "refresh"]}}}\n'
    new = old.replace("}}}", '}, "fs": {"command": "fs-mcp"}}}')
    diff = masked_diff(old, new, "mcp.json", [json.loads(old), json.loads(new)])
    assert '"args": ["auth", "token", "refresh"]' in diff
    assert "***" not in diff


def test_a_secret_with_letters_beyond_ascii_is_masked_in_the_diff() -> None:
    """Client files hold text as UTF-8, not `\\u` escapes: a password with an umlaut is
    found in the file as written and masked, its mask keeping the umlaut as written.
    With the literal looked for in its escaped form, the short password showed whole
    in the other entry's arguments (a long one is also looked for as it stands); with
    the mask escaped, the diff showed `W\\u00f6r***`."""
    env = {"PGPASSWORD": "Wörter-geheim-9", "MYSQL_PWD": "pässwö"}
    old = json.dumps({"db": {"command": "db-mcp", "env": env}}, ensure_ascii=False) + "\n"
    new = old.replace("}}}", '}}, "fs": {"command": "fs-mcp", "args": ["pässwö"]}}')
    diff = masked_diff(old, new, "mcp.json", [json.loads(old), json.loads(new)])
    assert "geheim" not in diff
    assert "pässwö" not in diff  # known from the line that names it, masked where it stands
    assert '"PGPASSWORD": "Wör***", "MYSQL_PWD": "p***"' in diff


def test_export_leaves_an_entry_it_made_earlier_and_sync_removes_it(
        cli: Cli, isolated_home: Path, user_config: Path) -> None:
    """`export` adds and updates what the user tier holds and takes nothing out; only
    `sync`, which makes a client match the user tier, removes mcpctl's entry for a
    server the user tier no longer has. With removal done by `export` too, the entry
    went at the first `export` after the server was removed."""
    write_config(user_config, USER_TIER + '\n[servers.fs]\ncommand = "fs-mcp"\n')
    path = isolated_home / ".cursor" / "mcp.json"
    assert cli("export", "--to", "cursor").code == 0
    write_config(user_config, USER_TIER)  # fs removed from the user tier
    assert cli("export", "--to", "cursor").code == 0
    assert sorted(json.loads(path.read_text())["mcpServers"]) == ["fs", "gh"]
    assert cli("clients", "enable", "cursor").code == 0
    synced = cli("sync")
    assert synced.code == 0, synced.err
    assert "  removed   fs  (no longer in the user tier)" in synced.out
    assert sorted(json.loads(path.read_text())["mcpServers"]) == ["gh"]


@pytest.mark.parametrize("entry", ["gh-mcp", {"command": "gh-mcp", "env": ["GITHUB_TOKEN"]}])
def test_a_malformed_own_entry_where_mcpctl_forwards_variables_is_a_conflict(
        cli: Cli, isolated_home: Path, user_config: Path, entry: object) -> None:
    """Gemini CLI gets a forwarded variable written into the entry's `env`, and mcpctl
    recognises its own entry with the values expanded into it. A client entry of that
    name that is not an object, or whose `env` is not one, is the user's: a conflict,
    the file untouched. With the shape check left out, `export` ended with an internal
    error (exit 70) on the first."""
    write_config(user_config, '[servers.gh]\ncommand = "gh-mcp"\n'
                              'env = { GITHUB_TOKEN = "${GITHUB_TOKEN}" }\n')
    settings = write_config(isolated_home / ".gemini" / "settings.json",
                            json.dumps({"mcpServers": {"gh": entry}}))
    before = settings.read_text()
    result = cli("export", "--to", "gemini")
    assert result.code == 1, result.err
    assert "conflict  gh" in result.out
    assert settings.read_text() == before


def test_sync_names_its_command_even_when_every_client_fails(
        cli: Cli, isolated_home: Path, user_config: Path) -> None:
    """`sync --json` says which command the entries run; a client whose file cannot be
    read still was to get that command, and a script reads it there. With the failed
    client's report left without it (`export.py:172`, planted by hand) the document
    said `"command": null`."""
    write_config(user_config, USER_TIER + '\n[clients]\nsync = ["cursor"]\n')
    path = write_config(isolated_home / ".cursor" / "mcp.json", "not json")
    synced = cli("sync", "--command", "/opt/mcpctl/bin/mcpctl", "--json")
    assert synced.code == 3, synced.err
    document = json.loads(synced.out)
    assert document["command"] == "/opt/mcpctl/bin/mcpctl"
    assert [client["client"] for client in document["clients"]] == ["cursor"]
    assert path.read_text() == "not json"
