"""The command line as a whole: help, documentation, errors and exit codes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer

from mcpctl.cli.app import app
from mcpctl.cli.commands import register_all
from mcpctl.errors import ExitCode
from tests.conftest import REPO, Cli, run_mcpctl


def command_paths() -> list[list[str]]:
    register_all(app)
    paths: list[list[str]] = []
    for info in app.registered_commands:
        assert info.name is not None
        paths.append([info.name])
    for group in app.registered_groups:
        assert group.name is not None
        assert isinstance(group.typer_instance, typer.Typer)
        paths += [[group.name, info.name or ""]
                  for info in group.typer_instance.registered_commands]
    return paths


def test_every_command_has_help_with_an_example(cli: Cli) -> None:
    for path in command_paths():
        result = cli(*path, "--help")
        assert result.code == 0, path
        assert "Example" in result.out, f"{' '.join(path)} --help has no example"


def test_every_command_is_in_the_readme() -> None:
    readme = (REPO / "README.md").read_text()
    for path in command_paths():
        assert f"mcpctl {path[0]}" in readme, f"README does not mention mcpctl {path[0]}"


def test_readme_exit_codes_match_the_table() -> None:
    readme = (REPO / "README.md").read_text()
    documented = {int(code) for code in re.findall(r"^\| (\d+) \|", readme, re.MULTILINE)}
    assert documented == {int(code) for code in ExitCode}


@pytest.mark.parametrize(("argv", "message"), [
    (["list", "--bogus"], "No such option: --bogus"),
    (["nosuch"], "No such command 'nosuch'."),
    (["list", "--tier", "bogus"], "Invalid value for '--tier'"),
])
def test_usage_errors_exit_2_without_traceback(argv: list[str], message: str) -> None:
    result = run_mcpctl(argv)
    assert result.code == 2
    assert message in result.err
    assert "Traceback" not in result.err + result.out


def test_empty_workspace_lists_nothing(tmp_path: Path) -> None:
    result = run_mcpctl(["list", "--workspace", str(tmp_path), "--json"])
    assert result.code == 0
    assert '"servers": []' in result.out
