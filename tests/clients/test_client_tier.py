"""Reading clients' files: translations, what each client starts, hostile files."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped, unused-ignore]
import pytest

from mcpctl.clients.entry import Converted, convert_entry
from mcpctl.clients.table import client_by_id
from mcpctl.syntax.toml_tables import name_lines
from tests.clients import TOKEN_SERVER, USER_FILE, install_home, install_workspace, write_config
from tests.conftest import REPO, Cli, run_mcpctl
from tests.tier_files import write as write_text


def convert(client_id: str, entry: dict[str, Any]) -> Converted:
    client = client_by_id(client_id)
    assert client is not None
    return convert_entry(client, entry)


def test_codex_fields_become_mcpctl_fields() -> None:
    assert convert("codex", {
        "url": "https://x.example/mcp", "bearer_token_env_var": "X_TOKEN",
        "http_headers": {"X-Team": "core"}, "env_http_headers": {"X-Org": "ORG_ID"},
        "startup_timeout_ms": 2500, "enabled": True,
    }) == Converted(
        {"url": "https://x.example/mcp", "timeout": 2.5,
         "headers": {"X-Team": "core", "Authorization": "Bearer ${env:X_TOKEN}",
                     "X-Org": "${env:ORG_ID}"}},
        ("bearer_token_env_var X_TOKEN written as header Authorization: Bearer ${env:X_TOKEN}",
         "env_http_headers written as headers with ${env:NAME}",
         "startup timeout 2.5 s kept as timeout"))
    assert convert("codex", {"command": "srv", "env_vars": ["A", "B"], "env": {"A": "1"}}) == \
        Converted({"command": "srv", "env": {"A": "1", "B": "${B:-}"}},
                  ("env_vars A, B passed on as ${NAME:-} (forwarded when set, empty "
                   "otherwise)",))
    # The list of tables Codex also takes; `required` and the tool timeout are Codex's own.
    assert convert("codex", {"command": "srv", "env_vars": [{"name": "C"}, "D",
                                                             {"name": "E", "source": "local"}],
                             "required": True, "tool_timeout_sec": 30}) == \
        Converted({"command": "srv", "env": {"C": "${C:-}", "D": "${D:-}", "E": "${E:-}"}},
                  ("env_vars C, D, E passed on as ${NAME:-} (forwarded when set, empty "
                   "otherwise)",
                   "dropped Codex's 'required' (it does not change what runs)",
                   "dropped Codex's 'tool_timeout_sec' (it does not change what runs)"))


@pytest.mark.parametrize(("env_vars", "reason"), [
    ({"A": True}, "'env_vars' is not a list (Codex itself refuses a table here: it takes "
                  "names, or {name, source} tables in a list)"),
    ([{"name": "R", "source": "remote"}], "env_vars R comes from source 'remote' (a remote "
                                          "executor), which mcpctl cannot express"),
    ([{"source": "local"}], "an 'env_vars' item that is neither a name nor {name = …}"),
])
def test_codex_env_vars_it_cannot_express_say_why(env_vars: object, reason: str) -> None:
    assert convert("codex", {"command": "srv", "env_vars": env_vars}).unsupported == (reason,)


def test_codex_features_mcpctl_cannot_express_are_reasons() -> None:
    converted = convert("codex", {"command": "srv", "enabled": False, "tool_timeout_sec": 60,
                                  "enabled_tools": ["a"], "env": {"P": "${HOME}"}})
    assert converted.unsupported == (
        "env P contains '${', which Codex passes on literally and mcpctl would expand",
        "enabled = False in Codex, which mcpctl cannot express",
        "uses Codex's 'enabled_tools', which mcpctl cannot express",
    )


def test_gemini_urls_timeouts_and_dollar_variables() -> None:
    assert convert("gemini", {"httpUrl": "https://h/mcp", "trust": False}) == \
        Converted({"url": "https://h/mcp", "type": "http"})
    assert convert("gemini", {"url": "https://h/mcp"}) == Converted(
        {"url": "https://h/mcp", "type": "http"},
        ("'url' without 'type' is streamable HTTP in Gemini CLI",))
    assert convert("gemini", {"url": "https://h/sse", "type": "sse"}) == Converted(
        {"url": "https://h/sse", "type": "sse"})
    converted = convert("gemini", {"command": "$TOOLS/srv", "args": ["--dir", "$HOME/x"],
                                   "env": {"K": "${KEEP}"}, "timeout": 30000,
                                   "description": "notes", "trust": True})
    assert converted.entry == {"command": "${TOOLS}/srv", "args": ["--dir", "${HOME}/x"],
                               "env": {"K": "${KEEP}"}, "timeout": 30.0, "trust": True}
    assert converted.unsupported == ("trust = True in Gemini CLI, which mcpctl cannot express",)
    assert converted.notes == ("$NAME written as ${NAME} (Gemini CLI expands both)",
                               "timeout 30000 ms kept as 30 s",
                               "dropped Gemini CLI's 'description' (it does not change what "
                               "runs)")


def test_claude_code_timeouts_always_load_and_websockets() -> None:
    converted = convert("claude-code", {"type": "stdio", "command": "srv", "timeout": 120000,
                                        "alwaysLoad": True})
    assert converted == Converted(
        {"type": "stdio", "command": "srv"},
        ("dropped Claude Code's per-request timeout (120000 ms); mcpctl's timeout is for "
         "starting up",
         "dropped Claude Code's 'alwaysLoad' (it does not change what runs)"))
    ws = convert("claude-code", {"type": "ws", "url": "wss://h/mcp"})
    assert ws.unsupported == ("a WebSocket server (type ws), which mcpctl cannot reach",)


def test_vscode_env_numbers_nulls_and_metadata() -> None:
    converted = convert("vscode", {"type": "stdio", "command": "srv",
                                   "env": {"N": 2, "Z": None, "S": "s"}, "gallery": True})
    assert converted.entry == {"type": "stdio", "command": "srv", "env": {"N": "2", "S": "s"}}
    assert converted.unsupported == ("env Z is null (VS Code unsets it), which mcpctl cannot "
                                     "express",)


def test_windsurf_server_url_and_switch() -> None:
    assert convert("windsurf", {"serverUrl": "https://w/sse", "disabled": False}) == \
        Converted({"url": "https://w/sse"})
    assert convert("windsurf", {"serverUrl": "https://w", "url": "https://v"}).unsupported == \
        ("both 'serverUrl' and 'url'",)


def test_name_lines_every_shape_of_codex_tables() -> None:
    text = ('model = "x"\nmcp_servers.dotted.command = "a"\n[mcp_servers]\n'
            'inline = { command = "b" }\n[mcp_servers."quoted.name"]\ncommand = "c"\n'
            "[mcp_servers.plain]\n[mcp_servers.plain.env]\n")
    assert name_lines(text, "mcp_servers") == {
        "dotted": 2, "inline": 4, "quoted.name": 5, "plain": 7}


CODEX_DECOY = ('model = "m"\n'
               'notes = """\n'
               "[mcp_servers.real]\n"
               'mcp_servers.decoy.command = "x"\n'
               '"""\n'
               "developer_instructions = '''\n"
               "[mcp_servers.other]'''\n"
               "\n"
               "[mcp_servers.real]\n"
               'command = "npx"\n'
               "\n"
               "[mcp_servers.other]\n"
               'command = "uvx"\n')


def test_name_lines_skip_what_multi_line_strings_hold() -> None:
    assert name_lines(CODEX_DECOY, "mcp_servers") == {"real": 9, "other": 12}


def test_clients_show_the_true_line_of_a_codex_server(tmp_path: Path,
                                                      isolated_home: Path) -> None:
    write_text(isolated_home / ".codex" / "config.toml", CODEX_DECOY)
    result = run_mcpctl(["clients", "--json"], cwd=tmp_path)
    assert result.code == 0, result.err
    codex = next(c for c in json.loads(result.out)["clients"] if c["id"] == "codex")
    assert {s["name"]: s["source"]["line"] for s in codex["servers"]} == {
        "real": 9, "other": 12}


def all_homes(home: Path, workspace: Path) -> None:
    for client in USER_FILE:
        install_home(client, home, workspace)


def test_clients_view_of_every_fixture(cli: Cli, isolated_home: Path, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    workspace = install_workspace(tmp_path / "repo")
    all_homes(isolated_home, workspace)
    monkeypatch.chdir(workspace)
    result = cli("clients", "--json")
    assert (result.code, result.err) == (0, "")
    document = json.loads(result.out)
    schema = json.loads((REPO / "schemas" / "clients.schema.json").read_text())
    jsonschema.validate(document, schema)
    states = {(c["id"], s["name"]): (s["scope"], s["state"], s["source"]["line"])
              for c in document["clients"] for s in c["servers"]}
    assert states == {
        ("claude-code", "docs"): ("user", "starts", 21),
        ("claude-code", "lint-bot"): ("project", "approved by name", 7),
        ("claude-code", "notes"): ("local", "starts", 38),
        ("claude-code", "repo-tools"): ("project", "disabled", 3),
        ("claude-code", "tokens"): ("user", "starts", 11),
        ("claude-code", "vault"): ("user", "starts", 28),
        ("claude-desktop", "filesystem"): ("user", "starts", 10),
        ("claude-desktop", "journal"): ("user", "starts", 14),
        ("claude-desktop", "tokens"): ("user", "starts", 3),
        ("cursor", "figma"): ("user", "starts", 16),
        ("cursor", "linear"): ("user", "starts", 10),
        ("cursor", "tokens"): ("user", "starts", 3),
        ("vscode", "github"): ("user", "starts", 14),
        ("vscode", "playwright"): ("user", "starts", 21),
        ("vscode", "tokens"): ("user", "starts", 4),
        ("vscode", "work-tracker"): ("profile 3f1e2a", "in profile 3f1e2a", 3),
        ("codex", "context7"): ("user", "starts", 16),
        ("codex", "figma"): ("user", "starts", 12),
        ("codex", "tokens"): ("user", "starts", 5),
        ("gemini", "docs"): ("user", "starts", 15),
        ("gemini", "search"): ("user", "starts", 21),
        ("gemini", "tokens"): ("user", "starts", 6),
        ("windsurf", "events"): ("user", "starts", 11),
        ("windsurf", "legacy"): ("user", "switched off", 17),
        ("windsurf", "tokens"): ("user", "starts", 3),
    }
    # Every token is masked; every client's `tokens` differs (its own token).
    assert "sk-live" not in result.out
    assert [(d["name"], [c["client"] for c in d["clients"]]) for d in document["differences"]] \
        == [("figma", ["cursor", "codex"]),
            ("tokens", ["claude-code", "claude-desktop", "cursor", "vscode", "codex",
                        "gemini", "windsurf"])]
    tokens = next(s for c in document["clients"] if c["id"] == "codex"
                  for s in c["servers"] if s["name"] == "tokens")
    assert tokens["env"] == {"API_TOKEN": "sk-l***"}
    assert tokens["timeout"] == 20
    assert tokens["notes"] == ["startup timeout 20 s kept as timeout"]
    context7 = next(s for c in document["clients"] if c["id"] == "codex"
                    for s in c["servers"] if s["name"] == "context7")
    assert context7["unsupported"] == [
        "uses Codex's 'enabled_tools', which mcpctl cannot express"]
    text = cli("clients", "--client", "claude-code", "--client", "claude-desktop")
    tokens_command = f"{sys.executable} {TOKEN_SERVER}"
    assert [re.split(r"\s{2,}", line) for line in text.out.splitlines()] == [
        ["CLIENT", "NAME", "SCOPE", "STATE", "COMMAND", "SOURCE"],
        ["claude-code", "docs", "user", "starts", "https://docs.example.com/mcp",
         "~/.claude.json:21"],
        ["claude-code", "lint-bot", "project", "approved by name",
         "npx -y @example/lint-bot@3.1.0", ".mcp.json:7"],
        ["claude-code", "notes", "local", "starts", "npx -y @example/notes-mcp@1.2.0",
         "~/.claude.json:38"],
        ["claude-code", "repo-tools", "project", "disabled", "node scripts/mcp-server.js",
         ".mcp.json:3"],
        ["claude-code", "tokens", "user", "starts", tokens_command, "~/.claude.json:11"],
        ["claude-code", "vault", "user", "starts", "https://vault.example.com/mcp",
         "~/.claude.json:28"],
        ["claude-desktop", "filesystem", "user", "starts",
         "npx -y @modelcontextprotocol/server-filesystem@2025.8.21 /home/me/Documents",
         "~/.config/Claude/claude_desktop_config.json:10"],
        ["claude-desktop", "journal", "user", "starts", "journal-mcp --root '${HOME}/journal'",
         "~/.config/Claude/claude_desktop_config.json:14"],
        ["claude-desktop", "tokens", "user", "starts", tokens_command,
         "~/.config/Claude/claude_desktop_config.json:3"],
        ["defined differently: tokens: claude-code (user), claude-desktop (user)"],
        # What guards each client here (issue 22); Claude Desktop reads no repo's servers.
        ["guard: claude-code not guarded (claude-code is not in [clients] sync, so mcpctl "
         "keeps no allowlist for it; to guard it: mcpctl clients enable claude-code && "
         "mcpctl sync)"],
    ]


def test_managed_entries_resolve_to_the_user_tier(cli: Cli, isolated_home: Path,
                                                  user_config: Path) -> None:
    write_config(user_config, '[servers.gh]\ncommand = "github-mcp-server"\n')
    write_config(isolated_home / ".cursor" / "mcp.json", json.dumps({"mcpServers": {
        "gh": {"command": "mcpctl", "args": ["run", "gh"]},
        "gone": {"command": "mcpctl", "args": ["run", "gone"]}}}))
    write_config(isolated_home / ".codeium" / "windsurf" / "mcp_config.json", json.dumps(
        {"mcpServers": {"gh": {"command": "github-mcp-server"}}}))
    result = cli("clients", "--client", "cursor", "--client", "windsurf", "-w",
                 str(isolated_home))
    assert result.code == 0
    lines = [line.split("  ")[0:1] + line.split()[1:4] for line in result.out.splitlines()]
    assert lines[1:4] == [["cursor", "gh", "user", "via"], ["cursor", "gone", "user", "via"],
                          ["windsurf", "gh", "user", "starts"]]
    assert "via mcpctl, not in the user tier" in result.out.splitlines()[2]
    # Through mcpctl, cursor starts the user tier's gh: the same as windsurf's own entry.
    assert "defined differently" not in result.out


@pytest.mark.parametrize(("content", "message"), [
    ('{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}',
     "1:40: error: duplicate key mcpServers.a (first at line 1)"),
    ('{"mcpServers": {"a": {"command": "x"},}}',
     "1:39: error: Expecting property name enclosed in double quotes (comments are not "
     "allowed here)"),
    ('{"mcpServers": ["a"]}', "1:2: error: 'mcpServers' must be an object of servers"),
    ('{"mcpServers": {"a": {"command": 5}}}', "1:17: error: server 'a': 'command' must be a "
                                               "string, not a number"),
    ("[]", "1:1: error: top level must be a JSON object"),
    ("", "1:1: error: empty file; expected a JSON object (comments are not allowed here)"),
])
def test_hostile_cursor_file_is_a_problem_not_a_crash(
        cli: Cli, isolated_home: Path, content: str, message: str) -> None:
    path = write_config(isolated_home / ".cursor" / "mcp.json", content)
    result = cli("clients", "--client", "cursor", "-w", str(isolated_home))
    assert result.code == 3
    assert result.err == f"~/.cursor/mcp.json:{message}\n"
    assert path.read_text() == content


def test_huge_non_utf8_and_directory_files(cli: Cli, isolated_home: Path) -> None:
    (isolated_home / ".cursor").mkdir()
    with (isolated_home / ".cursor" / "mcp.json").open("wb") as handle:
        handle.truncate(64 * 1024 * 1024 + 1)
    write_config(isolated_home / ".codex" / "config.toml", "").write_bytes(b"model = \"\xff\"\n")
    (isolated_home / ".gemini" / "settings.json").mkdir(parents=True)
    result = cli("clients", "-w", str(isolated_home))
    assert result.code == 3
    assert result.err.splitlines() == [
        "~/.cursor/mcp.json:1:1: error: file is larger than 67108864 bytes",
        "~/.codex/config.toml:1:1: error: not UTF-8 text (byte 9)",
        "~/.gemini/settings.json:1:1: error: is a directory, not a file",
    ]


def test_codex_toml_errors_have_positions(cli: Cli, isolated_home: Path) -> None:
    write_config(isolated_home / ".codex" / "config.toml", '[mcp_servers.a]\ncommand = \n')
    result = cli("clients", "--client", "codex", "-w", str(isolated_home))
    assert result.code == 3
    assert result.err.startswith("~/.codex/config.toml:2:11: error: Invalid value")


def test_clients_json_masks_secrets_in_extra_fields(cli: Cli, isolated_home: Path) -> None:
    token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    write_config(isolated_home / ".cursor" / "mcp.json", json.dumps({"mcpServers": {"gh": {
        "command": "gh-mcp", "apiKey": token, "auth": {"token": token, "kind": "pat"},
        "tags": ["work", token]}}}))
    result = cli("clients", "--json")
    assert token not in result.out
    [cursor] = [c for c in json.loads(result.out)["clients"] if c["id"] == "cursor"]
    assert cursor["servers"][0]["extra"] == {
        "apiKey": "ghp_***", "auth": {"token": "ghp_***", "kind": "pat"},
        "tags": ["work", "ghp_***"]}
