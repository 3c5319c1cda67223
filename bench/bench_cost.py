"""Probe the four reference servers together and each alone; report the wall-time ratio.

DESIGN §6: all servers are probed concurrently, so `cost` should take about as long as
its slowest server, not the sum. Each run probes the four at once, then each alone;
the ratio is the concurrent wall time over the slowest single one of the same run.
Target: median ratio below 1.3.

    uv run python bench/bench_cost.py [--runs N]

Servers: `everything` and `memory` from tests/.npm (see .ci/run), the SDK-based test
server, and `mcp-server-time` through uvx (a second SDK server when uvx cannot run it).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

from mcpctl.client.probe import LaunchPlan, ProbeFailure, ProbeResult, probe_many
from mcpctl.model import Transport

REPO = Path(__file__).resolve().parent.parent
NPM = REPO / "tests" / ".npm" / "node_modules" / "@modelcontextprotocol"
SDK_SERVER = REPO / "tests" / "client" / "sdk_server.py"
TIME_SERVER = "mcp-server-time@2026.10.19"
TIMEOUT = 60.0


def plan(name: str, *argv: str) -> LaunchPlan:
    return LaunchPlan(name, Transport.STDIO, argv=argv, env=dict(os.environ),
                      timeout=TIMEOUT, roots=(REPO.as_uri(),))


def reference_plans() -> list[LaunchPlan]:
    for package in ("server-everything", "server-memory"):
        if not (NPM / package / "dist" / "index.js").is_file():
            sys.exit(f"missing {package}: npm install --prefix tests/.npm "
                     f"@modelcontextprotocol/{package}")
    plans = [
        plan("everything", "node", str(NPM / "server-everything/dist/index.js"), "stdio"),
        plan("memory", "node", str(NPM / "server-memory/dist/index.js")),
        plan("sdk", sys.executable, str(SDK_SERVER)),
    ]
    uvx = shutil.which("uvx")
    time_plan = plan("time", uvx, TIME_SERVER) if uvx else None
    if time_plan and isinstance(asyncio.run(probe_many([time_plan]))[0], ProbeResult):
        plans.append(time_plan)
    else:
        print(f"{TIME_SERVER} is not runnable through uvx; using a second SDK server")
        plans.append(plan("sdk-2", sys.executable, str(SDK_SERVER)))
    return plans


async def timed(plans: list[LaunchPlan]) -> float:
    started = time.monotonic()
    results = await probe_many(plans)
    failed = [r for r in results if isinstance(r, ProbeFailure)]
    if failed:
        sys.exit(f"probe failed: {failed}")
    return time.monotonic() - started


async def one_run(plans: list[LaunchPlan]) -> tuple[float, dict[str, float]]:
    together = await timed(plans)
    alone = {p.name: await timed([p]) for p in plans}
    return together, alone


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    plans = reference_plans()
    asyncio.run(timed(plans))  # warm caches (node modules, uvx, bytecode); not counted
    together: list[float] = []
    slowest: list[float] = []
    sums: list[float] = []
    ratios: list[float] = []
    for n in range(runs):
        wall, alone = asyncio.run(one_run(plans))
        worst = max(alone, key=lambda name: alone[name])
        together.append(wall)
        slowest.append(alone[worst])
        sums.append(sum(alone.values()))
        ratios.append(wall / alone[worst])
        singles = "  ".join(f"{name} {seconds:.2f}" for name, seconds in alone.items())
        print(f"run {n + 1}: together {wall:.2f} s | alone: {singles} | ratio {ratios[-1]:.2f}")
    print(f"servers: {', '.join(p.name for p in plans)}; {os.cpu_count()} CPUs")
    print(f"median together {statistics.median(together):.2f} s, "
          f"median slowest alone {statistics.median(slowest):.2f} s, "
          f"median sum of the singles {statistics.median(sums):.2f} s")
    ratio = statistics.median(ratios)
    print(f"median ratio {ratio:.2f} (target < 1.3): {'ok' if ratio < 1.3 else 'OVER'}")


if __name__ == "__main__":
    main()
