"""A `${secret:…}` expanded into argv is visible to every local user (issue 14): `check`
and `doctor` say so (`add` is tested with rotation), and doctor checks the keyring."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpctl.credentials.keyring_store import HEADLESS_RECIPE
from tests.conftest import run_mcpctl
from tests.tier_files import write_servers

EXPOSED = ("server 'gh' passes ${secret:gh-pat} in its arguments, which every local user "
           "can read in the process list; pass it in env instead if the server can read it "
           "from there")


def test_check_warns_about_a_secret_in_the_arguments(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    write_servers(root, {"gh": {"command": "gh-mcp", "args": ["--token", "${secret:gh-pat}"]},
                         "ok": {"command": "gh-mcp", "env": {"T": "${secret:gh-pat}"}}})
    result = run_mcpctl(["check", "--output", "json"], cwd=root)
    assert result.code == 0, result.err
    findings = [(f["code"], f["line"], f["message"]) for f in json.loads(result.out)["findings"]
                if f["code"] == "MCP013"]
    assert findings == [("MCP013", 7, f"mcpServers.gh.args[1]: {EXPOSED}")]


def doctor_lines(out: str) -> list[str]:
    return [line.strip() for line in out.splitlines()]


def write_user(user_config: Path) -> None:
    user_config.parent.mkdir(parents=True)
    user_config.write_text('[servers.gh]\ncommand = "gh-mcp"\n'
                           'args = ["--token", "${secret:gh-pat}"]\n')


@pytest.mark.usefixtures("secret_service")
def test_doctor_checks_the_keyring_and_warns_about_argv(
    tmp_path: Path, user_config: Path,
) -> None:
    write_user(user_config)
    assert run_mcpctl(["secret", "set", "gh-pat", "--stdin"], stdin="v4lue").code == 0
    result = run_mcpctl(["doctor", "--no-probe", "--workspace", str(tmp_path)])
    lines = doctor_lines(result.out)
    assert "ok    keyring: secrets are read from keyring.backends.SecretService.Keyring" in lines
    assert "ok    secret: ${secret:gh-pat} is in the keyring" in lines
    assert f"warn  argv: {EXPOSED}" in lines
    assert "v4lue" not in result.out + result.err


def test_doctor_without_a_keyring_fails_with_the_headless_recipe(
    no_keyring: None, tmp_path: Path, user_config: Path,
) -> None:
    write_user(user_config)
    result = run_mcpctl(["doctor", "--no-probe", "--json", "--workspace", str(tmp_path)])
    assert result.code == 1
    [server] = json.loads(result.out)["servers"]
    keyring = [c for c in server["checks"] if c["check"] == "keyring"]
    assert len(keyring) == 1
    assert keyring[0]["status"] == "fail"
    assert keyring[0]["message"].startswith("no OS keyring available (keyring chose ")
    assert HEADLESS_RECIPE in keyring[0]["message"]
