"""`mcpctl import --from CLIENT`: the same path into the user tier as `add`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema  # type: ignore[import-untyped, unused-ignore]
import pytest

from tests.clients import install_home, write_config
from tests.conftest import REPO, Cli, run_mcpctl


@pytest.mark.usefixtures("secret_service")
def test_import_reports_each_server_and_is_idempotent(cli: Cli, isolated_home: Path,
                                                      user_config: Path,
                                                      tmp_path: Path) -> None:
    install_home("codex", isolated_home)
    result = cli("import", "--from", "codex", "-w", str(tmp_path))
    assert result.code == 1
    assert [line.split(None, 2) for line in result.out.splitlines()] == [
        ["from", "Codex", f"(~/.codex/config.toml) into {user_config}:"],
        ["STATUS", "NAME", "DETAIL"],
        ["refused", "context7", "uses Codex's 'enabled_tools', which mcpctl cannot express"],
        ["added", "figma"],
        ["added", "tokens", "secrets moved to the keyring: tokens-API_TOKEN"],
    ]
    assert user_config.read_text() == (
        '[servers.figma]\ntype = "http"\nurl = "https://mcp.figma.com/mcp"\n'
        'headers = {Authorization = "Bearer ${env:FIGMA_OAUTH_TOKEN}"}\n\n'
        f'[servers.tokens]\ncommand = {json.dumps(sys.executable)}\n'
        f'args = [{json.dumps(str(REPO / "tests" / "servers" / "token_server.py"))}]\n'
        'env = {API_TOKEN = "${secret:tokens-API_TOKEN}"}\ntimeout = 20.0\n')
    again = cli("import", "--from", "codex", "figma", "tokens", "--json", "-w", str(tmp_path))
    assert again.code == 0
    document = json.loads(again.out)
    jsonschema.validate(document, json.loads((REPO / "schemas" / "import.schema.json")
                                             .read_text()))
    assert [(s["name"], s["status"], s["reason"]) for s in document["servers"]] == [
        ("figma", "unchanged", "the user tier already defines it like this"),
        ("tokens", "unchanged", "the user tier already defines it like this")]
    assert document["servers"][0]["notes"] == [
        "bearer_token_env_var FIGMA_OAUTH_TOKEN written as header Authorization: Bearer "
        "${env:FIGMA_OAUTH_TOKEN}"]
    assert document["servers"][0]["source"]["format"] == "codex"


@pytest.mark.usefixtures("secret_service")
def test_conflicts_are_refused_unless_replace(cli: Cli, isolated_home: Path,
                                              user_config: Path, tmp_path: Path) -> None:
    write_config(user_config, '# mine\n[servers.linear]\nurl = "https://other.example/mcp"\n')
    install_home("cursor", isolated_home)
    refused = cli("import", "--from", "cursor", "linear", "-w", str(tmp_path))
    assert refused.code == 1
    assert refused.out.splitlines()[2].split(None, 2) == [
        "refused", "linear", "the user tier defines it differently; --replace overwrites it"]
    assert "other.example" in user_config.read_text()
    replaced = cli("import", "--from", "cursor", "linear", "--replace", "-w", str(tmp_path))
    assert replaced.code == 0
    assert replaced.out.splitlines()[2].split() == ["replaced", "linear"]
    assert user_config.read_text() == (
        '# mine\n[servers.linear]\ntype = "http"\nurl = "https://mcp.linear.app/mcp"\n'
        'headers = {Authorization = "Bearer ${env:LINEAR_API_KEY}"}\n')


def test_names_managed_entries_and_missing_files(cli: Cli, isolated_home: Path,
                                                 tmp_path: Path) -> None:
    assert cli("import", "--from", "windsurf").err == (
        f"mcpctl: error: no Windsurf config at {isolated_home}/.codeium/windsurf/"
        "mcp_config.json (nothing to import)\n")
    write_config(isolated_home / ".cursor" / "mcp.json", json.dumps({"mcpServers": {
        "gh": {"command": "mcpctl", "args": ["run", "gh"]},
        "bad name": {"command": "x"}}}))
    missing = cli("import", "--from", "cursor", "nope", "-w", str(tmp_path))
    assert (missing.code, missing.err) == (2, "mcpctl: error: Cursor defines no server named "
                                              f"'nope' in {isolated_home}/.cursor/mcp.json (it "
                                              "defines: bad name, gh)\n")
    result = cli("import", "--from", "cursor", "--json", "-w", str(tmp_path))
    assert result.code == 1
    assert [(s["name"], s["status"], s["reason"]) for s in json.loads(result.out)["servers"]] \
        == [("bad name", "refused", "invalid server name 'bad name': it contains ' '; use "
                                    "letters, digits, '_' and '-' (clients prefix tool names "
                                    "with it)"),
            ("gh", "skipped", "it already launches through mcpctl (an entry mcpctl exported)")]


def test_a_client_file_that_does_not_parse_imports_nothing(cli: Cli, isolated_home: Path,
                                                          user_config: Path,
                                                          tmp_path: Path) -> None:
    write_config(isolated_home / ".gemini" / "settings.json", '{"mcpServers": {"a": ')
    result = cli("import", "--from", "gemini", "-w", str(tmp_path))
    assert result.code == 3
    assert result.err == "~/.gemini/settings.json:1:22: error: Expecting value\n"
    assert not user_config.exists()


@pytest.mark.usefixtures("no_keyring")
def test_without_a_keyring_secrets_stop_the_import(isolated_home: Path, user_config: Path,
                                                   tmp_path: Path) -> None:
    install_home("windsurf", isolated_home)
    result = run_mcpctl(["import", "--from", "windsurf", "tokens", "-w", str(tmp_path)])
    assert (result.code, result.out) == (5, "")
    assert result.err.startswith("mcpctl: error: no OS keyring available")
    assert not user_config.exists()


def test_relative_paths_in_a_local_scope_entry_are_refused(cli: Cli, isolated_home: Path,
                                                           user_config: Path,
                                                           tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    write_config(isolated_home / ".claude.json", json.dumps({
        "mcpServers": {"global": {"command": "./bin/global"}},
        "projects": {str(repo): {"mcpServers": {
            "local": {"command": "./bin/server"},
            "script": {"command": "python3", "args": ["../tools/srv.py", "--config=./c.json"],
                       "cwd": "sub", "envFile": ".env"},
            "fine": {"command": "npx", "args": ["-y", "@scope/server", "stdio"],
                     "cwd": "/srv/x"}}}}}))
    result = cli("import", "--from", "claude-code", "--json", "-w", str(repo))
    assert result.code == 1
    assert [(s["name"], s["status"], s["reason"]) for s in json.loads(result.out)["servers"]] \
        == [("fine", "added", ""),
            ("global", "added", ""),
            ("local", "refused", "its local-scope entry uses a relative path (command "
                                 "'./bin/server'), which the client takes from the project "
                                 "folder but `mcpctl run` would take from wherever it starts; "
                                 "make it absolute first"),
            ("script", "refused", "its local-scope entry uses a relative path (argument "
                                  "'../tools/srv.py', argument '--config=./c.json', cwd 'sub', "
                                  "envFile '.env'), which the client takes from the project "
                                  "folder but `mcpctl run` would take from wherever it starts; "
                                  "make it absolute first")]
    assert user_config.read_text() == (
        '[servers.fine]\ncommand = "npx"\nargs = ["-y", "@scope/server", "stdio"]\n'
        f'cwd = "/srv/x"\nworkspace = "{repo}"\n\n[servers.global]\ncommand = "./bin/global"\n')


def test_a_deeply_nested_entry_is_refused_and_the_rest_imported(
        cli: Cli, isolated_home: Path, user_config: Path, tmp_path: Path) -> None:
    """600 levels of arrays under a field mcpctl does not know: refused by name like
    any field it cannot express (about 500 levels end the TOML writer's recursion)."""
    deep: object = "x"
    for _ in range(600):
        deep = [deep]
    write_config(isolated_home / ".cursor" / "mcp.json", json.dumps({"mcpServers": {
        "deep": {"command": "srv", "extraThing": deep}, "plain": {"command": "srv"}}}))
    result = cli("import", "--from", "cursor", "--json", "-w", str(tmp_path))
    assert result.code == 1
    assert [(s["name"], s["status"], s["reason"]) for s in json.loads(result.out)["servers"]] \
        == [("deep", "refused", "uses Cursor's 'extraThing', which mcpctl cannot express"),
            ("plain", "added", "")]
    assert "extraThing" not in user_config.read_text()
