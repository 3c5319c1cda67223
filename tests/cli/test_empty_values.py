"""What a script's unset variable or a missing scheme leaves behind is refused with the
fix, before anything is written (issue 26 item 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_mcpctl


@pytest.mark.parametrize(("argv", "message"), [
    (["docs", "https://docs.example.com/mcp", "-H", "Authorization: Bearer "],
     "--header Authorization: 'Bearer' has no credential after the scheme (a variable that "
     "is unset or empty in the script?); e.g. -H \"Authorization: Bearer $TOKEN\""),
    (["docs", "https://docs.example.com/mcp", "-H", "X-Api-Key:"],
     "--header X-Api-Key: the value is empty"),
    (["docs", "https://docs.example.com/mcp", "--header", "X-Team="],
     "--header X-Team: the value is empty"),
    (["gh", "-e", "GITHUB_TOKEN=", "--", "github-mcp-server"],
     "--env GITHUB_TOKEN: the value is empty (a variable that is unset or empty in the "
     "script?); set it, or store it with --secret-env GITHUB_TOKEN"),
    (["docs", "docs.example.com/mcp"],
     "the command 'docs.example.com/mcp' looks like a URL without its scheme; for a remote "
     "server: mcpctl add NAME https://docs.example.com/mcp"),
    (["docs", "localhost:8080/mcp"],
     "the command 'localhost:8080/mcp' looks like a URL without its scheme; for a remote "
     "server: mcpctl add NAME http://localhost:8080/mcp"),
    (["docs", "--url", "docs.example.com/mcp"],
     "--url 'docs.example.com/mcp' has no scheme; did you mean https://docs.example.com/mcp"),
    (["docs", "--url", "ftp://docs.example.com/mcp"],
     "--url 'ftp://docs.example.com/mcp': the scheme must be http or https"),
])
def test_an_empty_or_schemeless_value_is_refused_and_nothing_written(
    argv: list[str], message: str, user_config: Path, mcpctl_home: Path
) -> None:
    result = run_mcpctl(["add", *argv])
    assert (result.code, result.out) == (2, "")
    assert result.err.startswith(f"mcpctl: error: {message}"), result.err
    assert not user_config.exists()
    assert not (mcpctl_home / "data" / "secrets.json").exists()


def test_an_empty_ordinary_value_and_a_real_program_are_kept(
    user_config: Path, tmp_path: Path
) -> None:
    assert run_mcpctl(["add", "dbg", "-e", "DEBUG=", "--", "srv"]).code == 0
    assert 'DEBUG = ""' in user_config.read_text()
    # A program that is there is started as written, however it is named.
    program = tmp_path / "tools.example.com" / "mcp"
    program.parent.mkdir()
    program.write_text("#!/bin/sh\n")
    added = run_mcpctl(["add", "local", "--", "tools.example.com/mcp"], cwd=tmp_path)
    assert added.code == 0, added.err
    assert 'command = "tools.example.com/mcp"' in user_config.read_text()


def test_a_misnamed_servers_table_is_an_error_with_the_fix(user_config: Path) -> None:
    user_config.parent.mkdir(parents=True)
    user_config.write_text('# mine\n\n[server.docs]\nurl = "https://docs.example.com/mcp"\n')
    for argv in (["list"], ["doctor", "--no-probe"]):
        result = run_mcpctl(argv)
        assert result.code == 3, (argv, result.err)
        assert (f"{user_config}:3:1: error: unknown table 'server': mcpctl reads servers "
                "from [servers.NAME] tables (rename it: [servers.docs]); 1 server ignored"
                ) in result.err.replace("~/", str(Path.home()) + "/"), result.err


def test_a_config_file_that_is_not_there_is_a_usage_error_for_readers(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent" / "config.toml"
    for argv in (["list"], ["list", "--json"], ["show", "x"], ["doctor", "--no-probe"],
                 ["sync", "--check"], ["secret", "list"]):
        result = run_mcpctl([*argv, "--config", str(missing)])
        assert result.code == 2, (argv, result.err)
        assert f"mcpctl: error: --config {missing}: no such file" in result.err, argv
    created = run_mcpctl(["add", "x", "--config", str(missing), "--", "srv"])
    assert created.code == 0, created.err
    assert missing.exists()
    assert run_mcpctl(["list", "--config", str(missing)]).code == 0


def test_doctor_fails_an_empty_credential_written_by_hand(user_config: Path) -> None:
    user_config.parent.mkdir(parents=True)
    user_config.write_text('[servers.gh]\ncommand = "sh"\nenv = { GITHUB_TOKEN = "", '
                           'DEBUG = "" }\n\n[servers.docs]\nurl = "https://docs.example.com/mcp"\n'
                           'headers = { Authorization = "Bearer" }\n')
    result = run_mcpctl(["doctor", "--no-probe", "--json"])
    assert result.code == 1, result.err
    checks = {(s["name"], c["check"], c["status"], c["message"])
              for s in json.loads(result.out)["servers"] for c in s["checks"]
              if c["check"] == "value"}
    assert checks == {
        ("gh", "value", "fail", "env GITHUB_TOKEN is '': no credential in it (an unset "
         "variable when it was added?); set it with: mcpctl add gh --replace …"),
        ("docs", "value", "fail", "header Authorization is 'Bearer': no credential in it (an "
         "unset variable when it was added?); set it with: mcpctl add docs --replace …")}
