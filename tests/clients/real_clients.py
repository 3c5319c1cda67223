"""Running the real client CLIs (Claude Code, Gemini CLI, Codex) offline from a test.

The CLIs are installed by `.ci/run` under tests/.clients (git-ignored);
`MCPCTL_TEST_CLIENTS_BIN` points elsewhere. A missing CLI skips the test, except on
CI (`CI=true`), where it fails: the suite must not pass by not running.

Each call gets an environment built from nothing (never the test's own): a throwaway
HOME, no update checks or telemetry, and `ANTHROPIC_BASE_URL` on a closed loopback
port, without which even `claude mcp add` resolves the vendor's API host. As root,
the call also runs in a network namespace with no interface up.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

VERSIONS = {"claude": "2.1.197 (Claude Code)", "gemini": "0.61.0",
            "codex": "codex-cli 0.171.0"}
# `claude mcp list`: "NAME: COMMAND - ✔ Connected"
CLAUDE_LINE = re.compile(r"^(?P<name>[A-Za-z0-9_.-]+): (?P<target>.*) - (?P<status>[✔✘⏸!].*)$")


def clients_bin() -> Path:
    return Path(os.environ.get("MCPCTL_TEST_CLIENTS_BIN")
                or REPO / "tests" / ".clients" / "node_modules" / ".bin")


def client_program(name: str) -> Path:
    """The CLI's path; skips (fails on CI) when it is not installed."""
    program = clients_bin() / name
    if not program.exists():
        message = f"{name} is not installed under {clients_bin()} (see .ci/run)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return program


def _netns() -> list[str]:
    unshare = shutil.which("unshare")
    if os.geteuid() != 0 or unshare is None:
        return []
    probe = subprocess.run([unshare, "-n", "true"], capture_output=True, check=False,
                           timeout=30)
    return [unshare, "-n"] if probe.returncode == 0 else []


def client_env(home: Path, extra_path: Path | None = None) -> dict[str, str]:
    node = shutil.which("node")
    folders = [str(extra_path)] if extra_path else []
    folders += [str(clients_bin())] + ([str(Path(node).parent)] if node else [])
    folders += ["/usr/local/bin", "/usr/bin", "/bin"]
    return {
        "PATH": os.pathsep.join(folders), "HOME": str(home), "USER": "mcpctl-test",
        "LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1", "CI": "true",
        "DISABLE_AUTOUPDATER": "1", "NO_UPDATE_NOTIFIER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
        "GEMINI_TELEMETRY_ENABLED": "false",
    }


def run_client(argv: list[str], *, cwd: Path, env: dict[str, str],
               timeout: float = 180) -> subprocess.CompletedProcess[str]:
    program = client_program(argv[0])
    return subprocess.run([*_netns(), str(program), *argv[1:]], cwd=cwd, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=timeout, check=False)


def claude_statuses(output: str) -> dict[str, str]:
    """Server name -> status ("✔ Connected", "✘ Failed to connect", ...)."""
    return {m["name"]: m["status"] for m in map(CLAUDE_LINE.match, output.splitlines()) if m}


def mcpctl_env(env: dict[str, str], mcpctl_home: Path) -> dict[str, str]:
    """The client's environment plus where this test's mcpctl keeps its files."""
    return {**env, "MCPCTL_HOME": str(mcpctl_home)}


def run_mcpctl_as_client(args: list[str], *, cwd: Path, env: dict[str, str],
                         stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """mcpctl in the client's environment (as the client would start it)."""
    return subprocess.run([sys.executable, "-m", "mcpctl", *args], cwd=cwd,
                          env={**env, "PYTHONPATH": str(REPO)}, input=stdin,
                          capture_output=True, text=True, timeout=120, check=False)
