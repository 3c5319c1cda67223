"""`mcpctl cost --refresh` over the four reference servers, against the slowest one alone.

DESIGN §6: servers are probed concurrently, so `cost` should take about as long as its
slowest server, not the sum. Each run times `mcpctl cost --refresh` (all four, as a
whole process), then `mcpctl cost --refresh NAME` for each; the ratio is the first
over the slowest single one of the same run. Target: median ratio below 1.3.
Also: `mcpctl list` with a warm probe cache against an empty one.

    uv run python bench/bench_cost.py [--runs N]

Servers: `everything` and `memory` from tests/.npm (see .ci/run), the SDK-based test
server, and `mcp-server-time` through uvx (a second SDK server when uvx cannot run it).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.timing import MCPCTL, median_seconds, report

REPO = Path(__file__).resolve().parent.parent
NPM = REPO / "tests" / ".npm" / "node_modules" / "@modelcontextprotocol"
SDK_SERVER = REPO / "tests" / "client" / "sdk_server.py"
TIME_SERVER = "mcp-server-time@2026.10.19"


def servers() -> dict[str, list[str]]:
    for package in ("server-everything", "server-memory"):
        if not (NPM / package / "dist" / "index.js").is_file():
            sys.exit(f"missing {package}: run .ci/run, or npm install --prefix tests/.npm "
                     f"@modelcontextprotocol/{package}")
    found = {
        "everything": ["node", str(NPM / "server-everything/dist/index.js"), "stdio"],
        "memory": ["node", str(NPM / "server-memory/dist/index.js")],
        "sdk": [sys.executable, str(SDK_SERVER)],
    }
    uvx = shutil.which("uvx")
    found["time"] = [uvx, TIME_SERVER] if uvx else [sys.executable, str(SDK_SERVER)]
    return found


def config_text(found: dict[str, list[str]]) -> str:
    tables = []
    for name, (command, *args) in found.items():
        quoted = ", ".join(f'"{arg}"' for arg in args)
        tables.append(f'[servers.{name}]\ncommand = "{command}"\nargs = [{quoted}]\n'
                      "timeout = 60\n")
    return "\n".join(tables)


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    result = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True,
                            check=False)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"{' '.join(argv[1:])} failed ({result.returncode}): {result.stdout}"
                 f"{result.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    found = servers()
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        (home / "config").mkdir()
        (home / "config" / "config.toml").write_text(config_text(found))
        env = {**os.environ, "MCPCTL_HOME": str(home)}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        cost = [MCPCTL, "cost", "--refresh", "-w", folder]
        cold_list = median_seconds([MCPCTL, "list", "-w", folder], env=env)
        timed(cost, env, home)  # warm caches (node modules, uvx, bytecode); not counted
        ratios, together, slowest = [], [], []
        for n in range(runs):
            wall = timed(cost, env, home)
            alone = {name: timed([*cost, name], env, home) for name in found}
            worst = max(alone.values())
            together.append(wall)
            slowest.append(worst)
            ratios.append(wall / worst)
            singles = "  ".join(f"{name} {seconds:.2f}" for name, seconds in alone.items())
            print(f"run {n + 1}: all {wall:.2f} s | alone: {singles} | ratio {ratios[-1]:.2f}")
        warm_list = median_seconds([MCPCTL, "list", "-w", folder], env=env)
    print(f"servers: {', '.join(found)}; {os.cpu_count()} CPUs")
    print(f"median `cost --refresh` of all {statistics.median(together):.2f} s, "
          f"median slowest alone {statistics.median(slowest):.2f} s")
    ratio = statistics.median(ratios)
    print(f"median ratio {ratio:.2f} (target < 1.3): {'ok' if ratio < 1.3 else 'OVER'}")
    report("mcpctl list, empty probe cache", cold_list)
    report("mcpctl list, warm probe cache", warm_list, cold_list)


if __name__ == "__main__":
    main()
