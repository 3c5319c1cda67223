"""A number longer than Python converts (4,300 digits by default) in any file mcpctl
reads: a syntax error at its place, never an internal error.

json and tomllib refuse such a number with a bare ValueError. Before the readers turned
it into their own syntax error, a repo's `.mcp.json` or `.codex/config.toml` holding
one stopped `list`, `check` (the pre-commit hook) and `trust` with exit 70
("unexpected ValueError"), and the user's own config.toml did the same.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from mcpctl.syntax.long_numbers import long_number
from tests.conftest import Cli, run_mcpctl
from tests.tier_files import make_workspace

LONG = "1" + "0" * sys.get_int_max_str_digits()  # one digit more than converts
SAID = f"a number of more than {sys.get_int_max_str_digits():,} digits"


@pytest.mark.parametrize(("file", "text", "line", "column"), [
    (".mcp.json", '{"mcpServers": {"a": {"command": "x",\n  "timeout": ' + LONG + "}}}\n",
     2, 14),
    (".codex/config.toml", '[mcp_servers.a]\ncommand = "x"\nstartup_timeout_sec = ' + LONG
     + "\n", 3, 23),
])
def test_a_repos_file_with_a_long_number_is_a_syntax_error(
        tmp_path: Path, file: str, text: str, line: int, column: int) -> None:
    root = make_workspace(tmp_path, {file: text})
    listed = run_mcpctl(["list", "--json", "--workspace", str(root)])
    assert listed.code == 3, listed.err
    assert json.loads(listed.out)["problems"] == [
        {"path": str(root / file), "line": line, "column": column, "message": SAID}]
    checked = run_mcpctl(["check"], cwd=root)
    assert checked.code == 1, checked.err
    assert checked.out.startswith(f"{file}:{line}:{column}: MCP001 error: {SAID} ")
    trusted = run_mcpctl(["trust", "--all", "--yes", "--workspace", str(root)])
    assert "unexpected" not in trusted.err


def test_the_users_config_with_a_long_number_is_an_error_not_a_crash(
        cli: Cli, user_config: Path) -> None:
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text('[servers.a]\ncommand = "x"\nn = ' + LONG + "\n")
    listed = cli("list")
    assert listed.code == 3
    assert listed.err == f"{user_config}:3:5: error: {SAID}\n"


def test_check_settings_with_a_long_number_exit_3(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {".mcpctl.toml": "[check]\nn = " + LONG + "\n"})
    checked = run_mcpctl(["check"], cwd=root)
    assert checked.code == 3
    assert checked.err == (f"mcpctl: error: {root / '.mcpctl.toml'}: invalid TOML: {SAID} "
                           "(at line 2, column 5)\n")


def test_the_place_is_the_first_run_of_too_many_digits() -> None:
    """Digits are counted as written, TOML's `_` between them left out: the first run
    past the bound is the one named, a shorter one before it passed over."""
    bound = sys.get_int_max_str_digits()
    short = "9" * bound  # converts
    grouped = "1_" + "0" * bound  # bound + 1 digits, one `_`
    assert long_number(f"a = {short}\nb = [1, {grouped}]\n") == (SAID, 2, 9)
    assert long_number(f"{short}_") == (SAID, 1, 1)  # no run past the bound: the start


def test_check_settings_that_are_not_utf8_are_still_said_to_be(tmp_path: Path) -> None:
    """A UnicodeDecodeError is a ValueError too: the long number's clause comes after
    it. With the two the other way round, bytes that are not UTF-8 were reported as a
    number of more than 4,300 digits."""
    root = make_workspace(tmp_path, {".mcp.json": '{"mcpServers": {}}\n'})
    (root / ".mcpctl.toml").write_bytes(b"[check]\n\xff\n")
    checked = run_mcpctl(["check"], cwd=root)
    assert (checked.code, checked.err) == (
        3, f"mcpctl: error: {root / '.mcpctl.toml'}: not UTF-8 text (byte 8)\n")
