"""What a person sees in a real terminal (tmux), at 80 and 200 columns and narrower.

NAME and SOURCE (`file:line`) are never cut, COMMAND is cut in the middle, a table too
wide even then is stacked, and states are coloured unless NO_COLOR is set.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.components import require_program
from tests.conftest import REPO

EXAMPLE = REPO / "examples"
# Every source of the example as `file:line`, as shown from the workspace's root.
SOURCES = {"docs": "~/.mcpctl/config/config.toml:10", "github": "~/.mcpctl/config/config.toml:4",
           "memory": ".mcp.json:3", "tasks": ".mcp.json:12", "time": ".vscode/mcp.json:13"}


@pytest.fixture
def demo(tmp_path: Path) -> dict[str, str]:
    """The bundled example as a user has it: a repo under home, config under ~/.mcpctl."""
    home = Path(os.environ["HOME"])
    repo = home / "src" / "demo"
    shutil.copytree(EXAMPLE / "demo-repo", repo)
    (repo / ".git").mkdir()
    config = home / ".mcpctl" / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    shutil.copy(EXAMPLE / "config.toml", config)
    return {**os.environ, "MCPCTL_HOME": str(home / ".mcpctl"), "TERM": "xterm-256color",
            "PWD": str(repo)}


def screen(env: dict[str, str], width: int, args: list[str], *, colour: bool = False) -> str:
    """Run `mcpctl ARGS` in a fresh tmux window `width` columns wide; return the screen."""
    tmux = require_program("tmux")
    socket, signal = f"mcpctl-test-{uuid.uuid4().hex[:8]}", f"done-{uuid.uuid4().hex[:8]}"
    command = " ".join(shlex.quote(word) for word in [sys.executable, "-m", "mcpctl", *args])
    unset = "env -u NO_COLOR " if colour else ""
    script = f"cd {shlex.quote(env['PWD'])} && {unset}{command}; tmux wait-for -S {signal}; " \
             "sleep 30"
    base = [tmux, "-L", socket, "-f", "/dev/null"]
    try:
        subprocess.run([*base, "new-session", "-d", "-x", str(width), "-y", "60", script],
                       env=env, check=True, timeout=30)
        subprocess.run([*base, "wait-for", signal], env=env, check=True, timeout=60)
        captured = subprocess.run([*base, "capture-pane", "-p", *(["-e"] if colour else [])],
                                  env=env, check=True, timeout=30, capture_output=True,
                                  text=True)
    finally:
        subprocess.run([*base, "kill-server"], env=env, check=False, timeout=30,
                       capture_output=True)
    return captured.stdout.rstrip("\n")


def test_at_80_columns_name_and_source_are_whole_and_command_is_cut(
        demo: dict[str, str]) -> None:
    shown = screen(demo, 80, ["list"])
    lines = shown.splitlines()
    assert all(len(line) <= 80 for line in lines)
    assert lines[0].split() == ["NAME", "STATE", "COMMAND", "SOURCE", "COST"]
    for name, source in SOURCES.items():
        assert any(line.startswith(f"{name} ") and source in line for line in lines), name
    github = next(line for line in lines if line.startswith("github ") and "user" in line)
    assert "docker run" in github
    assert "…" in github
    assert "v0.20.1" in github  # the end of the command survives a middle cut


def test_at_200_columns_every_column_is_shown_and_commands_whole(
        demo: dict[str, str]) -> None:
    lines = screen(demo, 200, ["list"]).splitlines()
    assert all(len(line) <= 200 for line in lines)
    assert lines[0].split() == ["NAME", "TIER", "STATE", "TRANSPORT", "COMMAND", "SOURCE",
                                "COST"]
    # The table is 204 columns wide in full: a state's note gives way, never a command.
    assert any("docker run -i --rm -e GITHUB_PERSONAL_ACCESS_TOKEN "
               "ghcr.io/github/github-mcp-server:v0.20.1" in line for line in lines)
    assert any("uvx mcp-server-time==2026.10.19 --local-timezone '${input:time-zone}'" in line
               for line in lines)
    assert [line.split("  ")[0] for line in lines if "…" in line] == ["github"]
    for name, source in SOURCES.items():
        assert any(line.startswith(f"{name} ") and source in line for line in lines), name


def test_too_narrow_for_a_table_every_server_is_a_block(demo: dict[str, str]) -> None:
    lines = screen(demo, 44, ["list"]).splitlines()
    assert all(len(line) <= 44 for line in lines)
    assert lines[:2] == ["docs", "  TIER       user"]
    blocks = "\n".join(lines).split("\n\n")
    assert [block.splitlines()[0] for block in blocks] == [
        "docs", "github", "github", "memory", "memory", "tasks", "time"]
    for name, source in SOURCES.items():
        assert f"  SOURCE     {source}" in "\n".join(lines), name


def test_states_are_coloured_unless_no_color(demo: dict[str, str]) -> None:
    coloured = screen(demo, 200, ["list"], colour=True)
    assert "\x1b[33muntrusted" in coloured
    assert "\x1b[2mshadowed by" in coloured
    plain = screen(demo, 200, ["list"])  # NO_COLOR=1, as the test session sets it
    assert "\x1b[" not in plain
    assert "untrusted" in plain
