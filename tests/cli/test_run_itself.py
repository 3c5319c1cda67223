"""A server that launches itself through mcpctl is refused at its second start, and
`import --from claude-code` leaves the guard's own entries alone (issue 23 item 9).

Without the chain (`CHAIN` in run_start.py, set only for a command that is mcpctl),
`run loop` execs `mcpctl run loop` forever: each test here would then hit its bound.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.clients import guard_key, mcpctl_shim
from tests.conftest import run_mcpctl


def run(name: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcpctl", "run", name], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60, check=False,
                          stdin=subprocess.DEVNULL)


def test_a_server_that_runs_itself_or_a_cycle_stops_with_the_chain(
    tmp_path: Path, user_config: Path
) -> None:
    shim = mcpctl_shim(tmp_path / "bin")
    env = {**os.environ, "PATH": f"{shim.parent}{os.pathsep}{os.environ['PATH']}"}
    here = tmp_path / "here"
    here.mkdir()
    assert run_mcpctl(["add", "loop", "--", "mcpctl", "run", "loop"]).code == 0
    assert run_mcpctl(["add", "a", "--", str(shim), "run", "b"]).code == 0
    assert run_mcpctl(["add", "b", "--", sys.executable, "-m", "mcpctl", "run", "a"]).code == 0
    looped = run("loop", here, env)
    assert (looped.returncode, looped.stdout) == (3, "")
    assert looped.stderr == (
        f"mcpctl: error: server 'loop' launches itself: its command runs `mcpctl run` of "
        f"loop ({user_config}:1) → loop ({user_config}:1), which would start again forever; "
        "give it the real server's command\n")
    cycled = run("a", here, env)
    assert cycled.returncode == 3
    assert (f"of a ({user_config}:5) → b ({user_config}:9) → a ({user_config}:5), which"
            in cycled.stderr), cycled.stderr


def test_a_server_run_through_mcpctl_starts_and_gets_no_chain(tmp_path: Path) -> None:
    shim = mcpctl_shim(tmp_path / "bin")
    env = {**os.environ, "PATH": f"{shim.parent}{os.pathsep}{os.environ['PATH']}",
           "MCPCTL_RUN_CHAIN": "stale in /elsewhere"}
    show_env = "import os; print(os.environ.get('MCPCTL_RUN_CHAIN', 'none'))"
    assert run_mcpctl(["add", "real", "--", sys.executable, "-c", show_env]).code == 0
    assert run_mcpctl(["add", "outer", "--", "mcpctl", "run", "real"]).code == 0
    ran = run("outer", tmp_path, env)
    assert (ran.returncode, ran.stdout) == (0, "none\n"), ran.stderr


def test_import_from_claude_code_skips_the_guards_entries(tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".mcp.json").write_text(json.dumps(
        {"mcpServers": {"tasks": {"command": "node", "args": ["tasks.js"]}}}))
    assert run_mcpctl(["clients", "enable", "claude-code"]).code == 0
    assert run_mcpctl(["trust", "tasks", "--yes", "-w", str(root)]).code == 0
    claude = json.loads((home / ".claude.json").read_text())
    guard = claude["projects"][os.path.realpath(root)]["mcpServers"]["tasks"]
    # The guard's one launch shape (issue 22): the name travels in the entry's env, and
    # the machine's guard key in its args.
    assert (guard["args"], guard["env"]) == (["run", "--guard", "--key", guard_key()],
                                             {"MCPCTL_GUARD_SERVER": "tasks"})
    # The user's own local-scope server beside it is imported as before.
    claude["projects"][os.path.realpath(root)]["mcpServers"]["mine"] = {
        "type": "stdio", "command": "/usr/bin/env", "args": ["true"]}
    (home / ".claude.json").write_text(json.dumps(claude))
    imported = run_mcpctl(["import", "--from", "claude-code", "-w", str(root), "--json"])
    assert imported.code == 0, imported.err
    statuses = {s["name"]: (s["status"], s["reason"])
                for s in json.loads(imported.out)["servers"]}
    assert statuses["tasks"] == ("skipped", "it launches through mcpctl (`mcpctl run …`): "
                                 "the server it starts is mcpctl's already")
    assert statuses["mine"][0] == "added"
    listed = json.loads(run_mcpctl(["list", "--json", "-w", str(root), "--tier", "user"]).out)
    assert [row["name"] for row in listed["servers"]] == ["mine"]
