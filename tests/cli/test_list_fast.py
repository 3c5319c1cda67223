"""`list` and `show` without typer print what the typer commands print, byte for byte.

Every case runs twice on the same files: through `cli.main.run` (the entry point, which
takes the common lines past typer) and through `cli.app.run` (typer, always). Lines the
hand parser does not take must reach typer, which gives the usual help and errors.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcpctl.cli import app
from mcpctl.cli.list_start import ListLine, parse_fast
from mcpctl.cli.main import run
from mcpctl.model import Tier
from tests.conftest import run_mcpctl
from tests.tier_files import make_workspace, write

MCP_JSON = (
    '{\n  "mcpServers": {\n'
    '    "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]},\n'
    '    "tasks": {"command": "bash", "args": ["scripts/tasks.sh"], "alwaysAllow": ["x"]},\n'
    '    "docs": {"url": "https://docs.example.com/mcp?key=${env:DOCS_KEY}", "type": "sse"},\n'
    '    "fs": {"command": "npx", "args": ["-y", "@scope/fs", "/Users/me/My Documents"]}\n'
    "  }\n}\n"
)
VSCODE_JSON = '{\n  "servers": {\n    "memory": {"command": "node", "args": ["old.js"]},\n  },\n}\n'
USER_TOML = ('# mine\n[servers.fs]\ncommand = "fs-server"\nargs = ["--token", "${secret:fs}"]\n'
             'comand = "typo"\n\n[servers.web]\nurl = "https://api.example.com/mcp"\n'
             'headers = { Authorization = "Bearer ${secret:web}" }\n')
BAD_TOML = '[servers.broken\ncommand = "x"\n'

CASES = {
    "list": ["list", "-w", "ws"],
    "list --json": ["list", "--json", "--workspace", "ws"],
    "list, options first": ["list", "--config", "user.toml", "--workspace=ws", "--json"],
    "list --tier user": ["list", "--tier", "user", "-w", "ws"],
    "list --tier=workspace --json": ["list", "--tier=workspace", "--json", "-w", "ws"],
    "list --needs-attention": ["list", "--needs-attention", "-w", "ws"],
    "list --needs-attention --json": ["list", "-w", "ws", "--needs-attention", "--json"],
    "list, a broken config": ["list", "-w", "ws", "--config", "bad.toml"],
    "list --json, a broken config": ["list", "--json", "-w", "ws", "--config", "bad.toml"],
    "list, no servers": ["list", "-w", "empty", "--config", "none.toml"],
    "show": ["show", "memory", "-w", "ws"],
    "show --json": ["show", "memory", "--json", "-w", "ws"],
    "show, user tier, shadowing": ["show", "fs", "--workspace", "ws"],
    "show, name last": ["show", "-w", "ws", "--json", "tasks"],
    "show, url server": ["show", "web", "-w", "ws", "--json"],
    "show, unknown name": ["show", "memroy", "-w", "ws"],
    "show --json, unknown name": ["show", "memroy", "-w", "ws", "--json"],
    "show, a broken config": ["show", "memory", "-w", "ws", "--config", "bad.toml"],
}


@pytest.fixture
def files(tmp_path: Path, user_config: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write(user_config, USER_TOML)
    write(tmp_path / "user.toml", USER_TOML)
    write(tmp_path / "bad.toml", BAD_TOML)
    make_workspace(tmp_path, {".mcp.json": MCP_JSON, ".vscode/mcp.json": VSCODE_JSON,
                              "scripts/tasks.sh": "#!/bin/sh\nexec node tasks.js\n"}, name="ws")
    make_workspace(tmp_path, {}, name="empty")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def outputs(capsys: pytest.CaptureFixture[str], entry: object, args: list[str]) -> tuple[
        int, str, str]:
    capsys.readouterr()
    code = entry(list(args))  # type: ignore[operator]
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.usefixtures("files")
@pytest.mark.parametrize("case", CASES)
def test_the_fast_path_prints_what_typer_prints(capsys: pytest.CaptureFixture[str],
                                                case: str) -> None:
    args = CASES[case]
    assert parse_fast(args[0], args[1:]) is not None, "the case must take the fast path"
    fast = outputs(capsys, run, args)
    typer = outputs(capsys, app.run, args)
    assert fast == typer
    assert fast[1] or fast[2]  # something was said: the comparison compared something


@pytest.mark.usefixtures("files")
def test_as_real_processes_too() -> None:
    for args in (CASES["list --json"], CASES["show"], CASES["list, a broken config"]):
        fast = run_mcpctl(args)
        typer = subprocess.run(
            [sys.executable, "-c", "import sys; from mcpctl.cli import app; "
             "sys.exit(app.run(sys.argv[1:]))", *args],
            capture_output=True, text=True, timeout=60, env={**os.environ}, check=False)
        assert (fast.code, fast.out, fast.err) == (typer.returncode, typer.stdout, typer.stderr)


@pytest.mark.usefixtures("files")
def test_the_fast_path_imports_no_typer() -> None:
    probe = ("import sys; from mcpctl.cli.main import run; code = run(sys.argv[1:]); "
             "print('typer' in sys.modules, 'click' in sys.modules, file=sys.stderr)")
    for args in (CASES["list --json"], CASES["show --json"]):
        done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True,
                              text=True, timeout=60, env={**os.environ}, check=False)
        assert (done.returncode, done.stderr.splitlines()[-1]) == (0, "False False")


def test_the_common_lines_are_parsed(tmp_path: Path) -> None:
    folder = str(tmp_path)
    assert parse_fast("list", []) == ListLine("list")
    assert parse_fast("list", ["--json", "--tier", "workspace", "--needs-attention",
                               f"--workspace={folder}", "--config", "c.toml"]) == ListLine(
        "list", None, as_json=True, needs_attention=True, tier=Tier.WORKSPACE,
        workspace=tmp_path, config=Path("c.toml"))
    assert parse_fast("show", ["x", "-w", folder, "--json"]) == ListLine(
        "show", "x", as_json=True, workspace=tmp_path)


@pytest.mark.parametrize("args", [
    ["list", "--help"], ["list", "-h"], ["list", "--jsn"], ["list", "extra"],
    ["list", "--json", "--json"], ["list", "-w", "a", "-w", "b"], ["list", "--tier", "client"],
    ["list", "--tier", "User"], ["list", "--tier"], ["list", "--workspace"],
    ["list", "-w", "--json"], ["list", "-w=."], ["list", "-w."], ["list", "--output", "json"],
    ["list", "--", "x"], ["list", "-w", "missing"], ["list", "-w", "file.txt"],
    ["list", "--config", ""], ["show"], ["show", "a", "b"], ["show", ""], ["show", "--json"],
    ["show", "x", "--tier", "user"], ["show", "x", "--needs-attention"], ["show", "-x"],
])
def test_unusual_lines_go_to_typer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   args: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "file.txt", "not a folder\n")
    assert parse_fast(args[0], args[1:]) is None


@pytest.mark.usefixtures("files")
@pytest.mark.parametrize("args", [
    ["list", "--tier", "client", "-w", "ws"], ["show", "-w", "ws"], ["list", "-w", "missing"],
    ["list", "--jsn"], ["list", "--help"], ["show", "--help"],
])
def test_typer_still_gives_its_help_and_errors(capsys: pytest.CaptureFixture[str],
                                               args: list[str]) -> None:
    assert outputs(capsys, run, args) == outputs(capsys, app.run, args)
