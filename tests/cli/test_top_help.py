"""`mcpctl --help` without typer prints exactly what typer prints, at every width."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from mcpctl.cli.top_help_text import TEXT
from tests.cli.test_terminal import screen
from tests.conftest import imported_by_mcpctl, run_mcpctl

TYPER_HELP = "import sys\nfrom mcpctl.cli import app\nsys.exit(app.run(['--help']))\n"


def typer_help(columns: str | None) -> str:
    """The help as the typer app itself renders it, with COLUMNS as given."""
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = columns
    done = subprocess.run([sys.executable, "-c", TYPER_HELP], env=env, capture_output=True,
                          text=True, timeout=60, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    return done.stdout


def test_the_stored_help_is_what_typer_renders_at_80_columns() -> None:
    assert typer_help("80") == TEXT, "regenerate: uv run python -m mcpctl.cli.top_help"


@pytest.mark.parametrize("columns", ["80", "120", "200", None, "0", "wide"])
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_the_help_is_typers_at_80_columns_and_wider(
        columns: str | None, flag: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # No COLUMNS (or one click ignores) and no terminal: click's fallback of 80 columns.
    monkeypatch.delenv("COLUMNS", raising=False)
    done = run_mcpctl([flag], env={"COLUMNS": columns} if columns is not None else {})
    assert (done.code, done.out, done.err) == (0, TEXT, "")
    assert done.out == typer_help(columns)


@pytest.mark.parametrize("columns", ["60", "79", "40"])
def test_a_narrower_terminal_gets_typers_own_narrower_help(columns: str) -> None:
    done = run_mcpctl(["--help"], env={"COLUMNS": columns})
    assert (done.code, done.err) == (0, "")
    assert done.out == typer_help(columns)
    assert done.out != TEXT


def test_the_fast_help_imports_no_typer_and_the_narrow_one_does() -> None:
    assert not {"typer", "click"} & imported_by_mcpctl(["--help"], {**os.environ, "COLUMNS": "100"})
    # The same probe sees typer when the help goes through it: the check can fail.
    assert "typer" in imported_by_mcpctl(["--help"], {**os.environ, "COLUMNS": "60"})


def test_a_real_terminal_of_100_columns_gets_the_stored_help() -> None:
    # No COLUMNS: the width is the terminal's own, read from stdout as click reads it.
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    env["PWD"] = str(os.getcwd())
    shown = screen(env, 100, ["--help"])
    assert shown == TEXT.rstrip("\n")
    assert "Commands:" in shown

