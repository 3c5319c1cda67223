"""The check path imports only what it needs (DESIGN §1.6), measured in a real process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

# `dataclasses` (with `inspect`, `ast` and `dis`) costs the hook more than its own rules.
HEAVY = ("typer", "rich", "keyring", "jsonschema", "tomlkit", "httpx", "asyncio", "platformdirs",
         "dataclasses", "inspect")
PROBE = (
    "import sys\n"
    "from mcpctl.cli.check_cmd import run_check\n"
    "code = run_check(sys.argv[1:])\n"
    f"print(code, *[name for name in {HEAVY!r} if name in sys.modules])\n"
)


def modules_after_check(folder: Path, *args: str) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=folder, text=True,
                          capture_output=True, check=True, timeout=60)
    return done.stdout.splitlines()[-1]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".mcp.json").write_text(
        '{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time==2025.9.25"]}}}')
    return tmp_path


def test_a_clean_repo_needs_no_heavy_module(repo: Path) -> None:
    assert modules_after_check(repo) == "0"


def test_jsonschema_is_imported_only_to_explain_a_schema_error(repo: Path) -> None:
    (repo / ".mcp.json").write_text('{"mcpServers": {"time": {"command": "uvx", "args": "x"}}}')
    code, *modules = modules_after_check(repo).split()
    # jsonschema brings dataclasses (and inspect) of its own: only the clean path is bare.
    assert (code, set(modules) - {"dataclasses", "inspect"}) == ("1", {"jsonschema"})
