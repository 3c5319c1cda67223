"""Hostile or odd config that once ended in a traceback, a lost edit or a lost line."""

from __future__ import annotations

import json
import os
import platform
import re
import stat
from pathlib import Path

import pytest

from mcpctl import __version__
from mcpctl.cli.handler import unexpected
from tests.conftest import Cli, run_mcpctl


def repo_with(tmp_path: Path, mcp_json: str) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".mcp.json").write_text(mcp_json)
    return root


@pytest.mark.parametrize("command", [["list"], ["show", "t"], ["trust", "--all", "--yes"]])
def test_a_lone_surrogate_escape_is_a_parse_error(tmp_path: Path, cli: Cli,
                                                  command: list[str]) -> None:
    root = repo_with(tmp_path, '{"mcpServers":{"t":{"command":"y","args":["\\udfff"]}}}')
    result = cli(*command, "-w", str(root))
    assert result.code == 3
    assert result.err.startswith(f"{root / '.mcp.json'}:1:44: error: \\udfff is half of a "
                                 "surrogate pair, not a character\n")


def test_check_reports_a_lone_surrogate_as_a_parse_error(tmp_path: Path, cli: Cli) -> None:
    root = repo_with(tmp_path, '{"mcpServers":{"t":{"command":"y","args":["\\ud800"]}}}')
    result = cli("check", str(root / ".mcp.json"))
    assert result.code == 1
    assert "MCP001" in result.out
    assert "half of a surrogate pair" in result.out


def test_dates_in_unknown_toml_fields_print_as_json(user_config: Path, tmp_path: Path,
                                                    cli: Cli) -> None:
    user_config.parent.mkdir(parents=True)
    user_config.write_text('[servers.d]\ncommand = "x"\nadded = 1979-05-27T07:32:00Z\n')
    result = cli("list", "-w", str(tmp_path), "--json")
    assert result.code == 0
    assert json.loads(result.out)["servers"][0]["extra"] == {"added": "1979-05-27 07:32:00+00:00"}
    assert cli("show", "d", "-w", str(tmp_path), "--json").code == 0


def test_nan_elsewhere_in_config_does_not_block_edits(user_config: Path, cli: Cli) -> None:
    user_config.parent.mkdir(parents=True)
    user_config.write_text('limit = nan\n\n[servers.a]\ncommand = "x"\n')
    assert cli("add", "b", "--", "y").code == 0
    assert cli("remove", "a").code == 0
    assert user_config.read_text() == 'limit = nan\n\n[servers.b]\ncommand = "y"\n'


def test_a_crlf_config_stays_crlf_and_only_the_new_lines_change(user_config: Path,
                                                                 cli: Cli) -> None:
    user_config.parent.mkdir(parents=True)
    before = b'# mine\r\n[servers.a]\r\ncommand = "x"\r\n'
    user_config.write_bytes(before)
    assert cli("add", "b", "--", "y").code == 0
    assert user_config.read_bytes() == before + b'\r\n[servers.b]\r\ncommand = "y"\r\n'
    assert cli("remove", "b").code == 0
    assert user_config.read_bytes() == before


def test_a_folder_in_the_way_of_the_lock_is_a_clear_error(user_config: Path, cli: Cli) -> None:
    (user_config.parent / "config.toml.lock").mkdir(parents=True)
    result = cli("add", "a", "--", "x")
    assert result.code == 8  # cannot write, not a broken file (issue 26)
    assert result.err.startswith(f"mcpctl: error: cannot lock {user_config}.lock: ")
    assert not user_config.exists()


def test_mcpctl_home_that_is_a_file_is_a_clear_error(tmp_path: Path) -> None:
    home = tmp_path / "not-a-folder"
    home.write_text("")
    result = run_mcpctl(["add", "a", "--", "x"], env={"MCPCTL_HOME": str(home)})
    assert result.code == 8
    assert "Traceback" not in result.err
    assert result.err.startswith("mcpctl: error: cannot lock ")


def test_non_utf8_pyproject_is_a_clear_check_error(tmp_path: Path, cli: Cli) -> None:
    root = repo_with(tmp_path, '{"mcpServers": {}}')
    (root / "pyproject.toml").write_bytes(b"[tool.mcpctl.check]\nignore = ['\xff']\n")
    result = cli("check", "--workspace", str(root))
    assert result.code == 3
    assert result.err == f"mcpctl: error: {root / 'pyproject.toml'}: not UTF-8 text (byte 31)\n"


def test_unexpected_error_log_is_private(tmp_path: Path, mcpctl_home: Path) -> None:
    assert unexpected(RuntimeError("boom")) == 70
    log = mcpctl_home / "cache" / "mcpctl.log"
    assert stat.S_IMODE(os.stat(log).st_mode) == 0o600
    text = log.read_text()
    assert "RuntimeError: boom" in text
    header = text.splitlines()[0]
    assert re.fullmatch(rf"--- \S+ mcpctl {re.escape(__version__)}, Python "
                        rf"{re.escape(platform.python_version())}, .+", header), header
