"""What the guard costs `trust` and `sync`, as whole processes.

Against `python -c pass` in the same run, median of 5 runs (after a warm-up run):

- `trust NAME --yes` with the guard off (claude-code not in `[clients] sync`) and on,
  with a `~/.claude.json` of 2,000 projects (about 10 MB, the size heavy users report);
  re-approving an unchanged server, so the wiring is already current and the file is
  read but not written;
- `sync` wiring 50 trusted workspaces of 4 servers each into that file from scratch
  (each run starts from the unwired file), in-process: the edit alone;
- with 200 trusted workspaces of 4 servers each (issue 22): `sync` and `trust` with
  everything current (the allowlist and 800 guard entries read, nothing written), and
  what `run --guard` (the definition found from the client's folder, as Claude Code
  finds it) costs over `run -w ROOT NAME` for a server that exits at once.

    uv run python bench/bench_guard.py
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.timing import MCPCTL, bare_python, median_seconds, report

RUNS = 5


def claude_json(projects: int) -> str:
    """A ~/.claude.json shaped like Claude Code's, with `projects` folders."""
    history = [{"display": "refactor the parser and run the tests " * 4,
                "pastedContents": {}}] * 12
    data: dict[str, Any] = {"numStartups": 412, "projects": {
        f"/home/u/src/project-{i:04d}": {
            "allowedTools": ["Bash(git log:*)", "Bash(uv run pytest:*)"] * 6,
            "history": history, "mcpServers": {}, "enabledMcpjsonServers": [],
            "hasTrustDialogAccepted": True} for i in range(projects)}}
    return json.dumps(data, indent=2)


def workspace(folder: Path, servers: int) -> Path:
    (folder / ".git").mkdir(parents=True)
    (folder / ".mcp.json").write_text(json.dumps({"mcpServers": {
        f"s{i}": {"command": "npx", "args": ["-y", f"@scope/s{i}@1.0.0"]}
        for i in range(servers)}}))
    return folder


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        home = base / "home"
        home.mkdir()
        text = claude_json(2000)
        (home / ".claude.json").write_text(text)
        env = {"HOME": str(home), "MCPCTL_HOME": str(base / "mcpctl")}
        root = workspace(base / "repo", 4)
        trust = [MCPCTL, "trust", "s0", "--yes", "-w", str(root)]
        config = base / "mcpctl" / "config" / "config.toml"
        config.parent.mkdir(parents=True)
        bare = bare_python(RUNS)
        report("python -c pass", bare)
        print(f"~/.claude.json: {len(text) / 1e6:.1f} MB, 2,000 projects")
        config.write_text("")
        report("trust s0 --yes (guard off)", median_seconds(trust, runs=RUNS, env=env), bare)
        config.write_text('[clients]\nsync = ["claude-code"]\n')
        report("trust s0 --yes (guard on, wiring current)",
               median_seconds(trust, runs=RUNS, env=env), bare)
        print(f"in-process, 50 workspaces x 4 servers wired into it: "
              f"{_edit_seconds(text) * 1000:.0f} ms (median of {RUNS})")
        os.sync()


def _edit_seconds(text: str) -> float:
    from mcpctl.clients.write.guard import Workspace, plan_guards  # noqa: PLC0415
    from mcpctl.syntax.json_edit import json_edit_at  # noqa: PLC0415

    workspaces = [Workspace(f"/home/u/src/new-{i}", tuple(f"s{n}" for n in range(4)))
                  for i in range(50)]
    samples = []
    for _ in range(RUNS):
        started = time.perf_counter()
        plan = plan_guards(workspaces, {}, "mcpctl", "0" * 32)
        edits: dict[tuple[str, ...], dict[str, Any]] = {}
        for change in plan.changes:
            edits.setdefault(("projects", change.workspace or "", "mcpServers"), {})[
                change.name] = change.entry
        new = json_edit_at(text, edits)
        json.loads(new)  # the re-parse every edit is checked with
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main_200() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        home = base / "home"
        home.mkdir()
        env = {"HOME": str(home), "MCPCTL_HOME": str(base / "mcpctl")}
        config = base / "mcpctl" / "config" / "config.toml"
        config.parent.mkdir(parents=True)
        config.write_text("")
        roots = [workspace(base / f"repo-{i:03d}", 4) for i in range(200)]
        for root in roots:  # the guard off while the store fills: the setup, not measured
            done = subprocess.run([MCPCTL, "trust", "--all", "--yes", "-w", str(root)],
                                  env={**os.environ, **env}, capture_output=True,
                                  check=False)
            assert done.returncode == 0, done.stderr
        config.write_text('[clients]\nsync = ["claude-code"]\n')
        synced = subprocess.run([MCPCTL, "sync"], env={**os.environ, **env},
                                capture_output=True, check=False)
        assert synced.returncode == 0, synced.stderr
        bare = bare_python(RUNS)
        report("python -c pass", bare)
        print("200 trusted workspaces x 4 servers, everything current:")
        report("  sync", median_seconds([MCPCTL, "sync"], runs=RUNS, env=env), bare)
        report("  trust s0 --yes", median_seconds(
            [MCPCTL, "trust", "s0", "--yes", "-w", str(roots[0])], runs=RUNS, env=env), bare)
        quick = workspace(base / "quick", 0)
        (quick / ".mcp.json").write_text(json.dumps({"mcpServers": {"q": {
            "command": sys.executable, "args": ["-c", "pass"]}}}))
        subprocess.run([MCPCTL, "trust", "q", "--yes", "-w", str(quick)],
                       env={**os.environ, **env}, capture_output=True, check=True)
        # Interleaved, so a drift of the shared machine falls on both alike.
        plain_line = [MCPCTL, "run", "-w", str(quick), "q"]
        guard_env = {**os.environ, **env, "MCPCTL_GUARD_SERVER": "q"}
        plain, guard = [], []
        for _ in range(RUNS * 3):
            plain.append(_once(plain_line, {**os.environ, **env}, quick))
            guard.append(_once([MCPCTL, "run", "--guard"], guard_env, quick / ".git"))
        report("run -w ROOT q (exits at once)", statistics.median(plain), bare)
        report("run --guard, MCPCTL_GUARD_SERVER=q, from a subfolder",
               statistics.median(guard), bare)


def _once(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, capture_output=True, check=False)
    return time.perf_counter() - started


if __name__ == "__main__":
    main()
    main_200()
