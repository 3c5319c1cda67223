"""What the tool filter adds to `tools/list` through `mcpctl run` (issue 29).

A server with 500 tools (`tests/servers/tools_server.py --count 500`, ~150 kB per
answer) is started through `mcpctl run` twice per round, interleaved: once with no
policy (run execs the server: the client talks to it directly) and once with a policy
that switches 350 of its tools off (run relays through the filter: every client line is
parsed, the `tools/list` answer is parsed, filtered and written again). For each, one
session: initialize, then `tools/list` REQUESTS times; the figure is the median time
from writing a `tools/list` request to reading its whole answer. Target: the filter
adds at most 5 %. The filtered answer is smaller, so the client also reads less.

    uv run python bench/bench_tool_filter.py [ROUNDS] [REQUESTS]
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.timing import MCPCTL, REPO

SERVER = REPO / "tests" / "servers" / "tools_server.py"
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "bench", "version": "1"}}}


def session(name: str, folder: str, env: dict[str, str], requests: int
            ) -> tuple[list[float], int, float]:
    """Round-trip seconds of each tools/list, how many tools the last one listed, and
    the seconds from starting `mcpctl run` to the first tools/list answer."""
    begun = time.perf_counter()
    process = subprocess.Popen([MCPCTL, "run", name, "-w", folder], env=env,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    assert process.stdin is not None
    assert process.stdout is not None
    send, receive = process.stdin, process.stdout

    def ask(message: dict[str, object]) -> dict[str, object]:
        send.write(json.dumps(message).encode() + b"\n")
        send.flush()
        answer: dict[str, object] = json.loads(receive.readline())
        return answer

    ask(INITIALIZE)
    send.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    samples, listed, first = [], 0, 0.0
    for request in range(1, requests + 1):
        start = time.perf_counter()
        answer = ask({"jsonrpc": "2.0", "id": request, "method": "tools/list"})
        samples.append(time.perf_counter() - start)
        first = first or time.perf_counter() - begun
        result = answer["result"]
        assert isinstance(result, dict)
        listed = len(result["tools"])
    send.close()
    process.wait(timeout=30)
    receive.close()
    return samples, listed, first


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cpu_per_list(name: str, folder: str, env: dict[str, str], rounds: int) -> float:
    """CPU seconds that `mcpctl run` and its server spend per tools/list: the slope
    between sessions of 41 and of 1 request (start-up cancels out), median of rounds."""
    slopes = []
    for _ in range(rounds):
        cpu = []
        for requests in (1, 41):
            before = children_cpu()
            session(name, folder, env, requests)
            cpu.append(children_cpu() - before)
        slopes.append((cpu[1] - cpu[0]) / 40)
    return statistics.median(slopes)


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    requests = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as folder:
        config = Path(home) / "config" / "config.toml"
        config.parent.mkdir(parents=True)
        command = f'command = "{sys.executable}"\nargs = ["{SERVER}", "--count", "500"]\n'
        # tool_0000..tool_0199 off by pattern, and the odd ones of the rest (not
        # read-only) by the annotation rule: 350 off, 150 on.
        config.write_text(f"[servers.plain]\n{command}\n[servers.filtered]\n{command}\n"
                          '[tools.filtered]\ndisabled = ["tool_00*", "tool_01*"]\n'
                          "deny_destructive = true\n")
        env = {**os.environ, "MCPCTL_HOME": home}
        names = ("plain", "filtered")
        times: dict[str, list[float]] = {name: [] for name in names}
        starts: dict[str, list[float]] = {name: [] for name in names}
        listed: dict[str, int] = {}
        for _ in range(rounds):
            for name in names:
                samples, listed[name], first = session(name, folder, env, requests)
                times[name] += samples[1:]  # the first answer also warms the server up
                starts[name].append(first)
        cpu = {name: cpu_per_list(name, folder, env, max(3, rounds // 3)) for name in names}
    wall = {name: statistics.median(times[name]) for name in names}
    start = {name: statistics.median(starts[name]) for name in names}
    for title, figures in (
        (f"tools/list round trip, median of {len(times['plain'])} requests each", wall),
        ("CPU of mcpctl run and its server per tools/list (slope of 41 against 1 "
         "request; steadier than wall time on a loaded machine)", cpu),
        (f"start to the first tools/list answer, median of {rounds} sessions each", start),
    ):
        print(title)
        print(f"  no policy (exec):         {figures['plain'] * 1000:7.2f} ms  "
              f"({listed['plain']} tools listed)")
        print(f"  policy (filtering relay): {figures['filtered'] * 1000:7.2f} ms  "
              f"({listed['filtered']} tools listed)  "
              f"{figures['filtered'] / figures['plain'] - 1:+.1%}")


if __name__ == "__main__":
    main()
