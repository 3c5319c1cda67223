"""The real clients' own CLIs as the oracle: Claude Code, Gemini CLI and Codex.

`.ci/run` installs the pinned versions below into `tests/.clients` (git-ignored). Each
call runs with a throwaway HOME and an environment built from scratch, so a client
never reads or writes the real home, and with the knobs that keep it off the network:
`ANTHROPIC_BASE_URL` at a closed loopback port (Claude Code otherwise looks up its API
host even for `mcp add`), no telemetry, no update checks. Only `mcp` subcommands and
`--version` are run; no chat is ever started. On CI a missing CLI fails the test.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.components import missing
from tests.conftest import MEASURED_ENV, REPO

BIN = REPO / "tests" / ".clients" / "node_modules" / ".bin"
VERSIONS = {  # exactly what `--version` prints for the pinned packages
    "claude": "2.1.197 (Claude Code)",
    "gemini": "0.61.0",
    "codex": "codex-cli 0.171.0",
}
QUIET = {
    "CI": "true", "DISABLE_AUTOUPDATER": "1", "NO_UPDATE_NOTIFIER": "1", "NO_COLOR": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
    "GEMINI_TELEMETRY_ENABLED": "false", "GEMINI_CLI_NO_RELAUNCH": "true",
    "LANG": "C.UTF-8", "TERM": "dumb", "USER": "mcpctl-test",
}
# What `mcpctl run` needs from the test: its own folders and the keyring's bus.
MCPCTL_ENV = ("MCPCTL_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME",
              "DBUS_SESSION_BUS_ADDRESS")
CLAUDE_LINE = re.compile(r"^(?P<name>[A-Za-z0-9_.-]+): .* - (?P<status>[✔✘⏸!].*)$")
GEMINI_LINE = re.compile(r"^\S+ (?P<name>[A-Za-z0-9_.-]+)(?: \(from [^)]*\))?: .* - "
                         r"(?P<status>Connected|Disconnected|Disabled|Blocked|Connecting)$")


def client(name: str) -> Path:
    """The installed CLI; skipped locally, a failure on CI, when it is missing."""
    path = BIN / name
    if not path.exists() or shutil.which("node") is None:
        missing(f"the {name} CLI", "npm install --prefix tests/.clients: see .ci/run")
    return path


def client_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    node = Path(shutil.which("node") or "/usr/bin/node").parent
    env = {**QUIET, "HOME": str(home), "PATH": f"{BIN}{os.pathsep}{node}{os.pathsep}/usr/bin:/bin"}
    env.update({key: os.environ[key] for key in (*MCPCTL_ENV, *MEASURED_ENV)
                if key in os.environ})
    env.update(extra or {})
    return env


def run_client(name: str, args: Sequence[str], *, home: Path, cwd: Path,
               env: Mapping[str, str] | None = None, timeout: float = 240
               ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(client(name)), *args], cwd=cwd, env=client_env(home, env),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=timeout, check=False)


# Claude Code 2.1.332 and later add a reason after "✘ Failed to connect" (issue 26);
# the pinned 2.1.197 prints none. Both read as the one status.
_CLAUDE_FAILED = re.compile(r"^✘ Failed to connect\b.*$", re.DOTALL)


def claude_statuses(output: str) -> dict[str, str]:
    """`claude mcp list`: NAME → its status (`✔ Connected`, `✘ Failed to connect`, …),
    any reason after "Failed to connect" left out."""
    return {m["name"]: _CLAUDE_FAILED.sub("✘ Failed to connect", m["status"])
            for m in map(CLAUDE_LINE.match, output.splitlines()) if m}


def gemini_statuses(output: str) -> dict[str, str]:
    """`gemini mcp list` (it writes to stderr): NAME → connected, disconnected, …"""
    return {m["name"]: m["status"].lower()
            for m in map(GEMINI_LINE.match, output.splitlines()) if m}


def path_with(home: Path, folder: Path) -> dict[str, str]:
    """The `env` for `run_client` that puts `folder` (an `mcpctl` shim) first on PATH."""
    return {"PATH": f"{folder}{os.pathsep}{client_env(home)['PATH']}"}


def run_mcpctl_as_client(args: Sequence[str], *, home: Path, cwd: Path,
                         env: Mapping[str, str] | None = None
                         ) -> subprocess.CompletedProcess[str]:
    """mcpctl in the environment a client gives the servers it starts."""
    import sys  # noqa: PLC0415

    return subprocess.run([sys.executable, "-m", "mcpctl", *args], cwd=cwd,
                          env={**client_env(home, env), "PYTHONPATH": str(REPO)},
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120, check=False)
