"""A typo in config.toml is never hidden (issue 15): problems exit 3, unknown keys warn."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_mcpctl

TYPO = '[servers.good]\ncommand = "true"\narg = ["x"]\nenvs = { A = "1" }\n\n' \
       '[servers.bad]\ncomand = "x"\n'


@pytest.fixture
def typo(user_config: Path, tmp_path: Path) -> Path:
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(TYPO)
    (tmp_path / "ws" / ".git").mkdir(parents=True)
    return tmp_path / "ws"


@pytest.mark.parametrize("command", [["doctor", "--no-probe"], ["secret", "list"], ["list"],
                                     ["show", "good"], ["cost", "nothing-here-yet"]])
def test_every_command_that_reads_the_tier_reports_the_problem(
        typo: Path, user_config: Path, command: list[str]) -> None:
    done = run_mcpctl([*command, "--workspace", str(typo)])
    problem = (f"{user_config}:6:1: error: server 'bad' has neither 'command' nor 'url'; "
               "it needs exactly one (did you mean 'command' for 'comand'?)")
    assert problem in done.err.splitlines()
    assert done.code == 3


def test_cost_doctor_and_secret_list_exit_3_and_say_so_in_json(typo: Path,
                                                             user_config: Path) -> None:
    for command in (["doctor", "--no-probe"], ["secret", "list"]):
        done = run_mcpctl([*command, "--json", "--workspace", str(typo)])
        assert done.code == 3
        assert json.loads(done.out)["problems"] == [{
            "path": str(user_config), "line": 6, "column": 1,
            "message": "server 'bad' has neither 'command' nor 'url'; it needs exactly one "
                       "(did you mean 'command' for 'comand'?)"}]


def test_a_cost_run_with_a_broken_tier_exits_3_not_0(user_config: Path, tmp_path: Path) -> None:
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text("[servers.bad]\ncomand = 'x'\n")
    done = run_mcpctl(["cost", "--workspace", str(tmp_path)])
    assert done.code == 3
    assert "total: 0 tools, 0 tokens in 0 server(s)" in done.out


def test_unknown_keys_warn_with_did_you_mean(typo: Path, user_config: Path) -> None:
    done = run_mcpctl(["list", "--workspace", str(typo)])
    assert [line for line in done.err.splitlines() if "warning" in line] == [
        f"{user_config}:1: warning: server 'good': unknown key 'arg' (did you mean 'args'?)",
        f"{user_config}:1: warning: server 'good': unknown key 'envs' (did you mean 'env'?)",
    ]


def test_a_repo_file_warns_only_about_near_misses(tmp_path: Path, user_config: Path) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"t": {
        "command": "true", "disabled": False, "alwaysAllow": ["x"], "timout": 5}}}))
    done = run_mcpctl(["list", "--workspace", str(root)])
    assert done.code == 0
    assert done.err == (f"{root / '.mcp.json'}:1: warning: server 't': unknown key 'timout' "
                        "(did you mean 'timeout'?)\n")


def test_show_prints_fields_in_the_files_own_syntax(typo: Path, tmp_path: Path) -> None:
    shown = run_mcpctl(["show", "good", "--workspace", str(typo)]).out
    assert "  other:     arg = [\"x\"]\n" in shown
    assert "  other:     envs = { A = \"1\" }\n" in shown
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"j": {
        "command": "true", "disabled": True, "meta": {"api_key": "sk-abcdefabcdefabcdef1234"}}}}))
    shown = run_mcpctl(["show", "j", "--workspace", str(root)]).out
    assert '  other:     "disabled": true\n' in shown
    assert '  other:     "meta": {"api_key": "sk-a***"}\n' in shown
