"""What the tool filter adds to `tools/list` through `mcpctl run` (issue 29).

A server with 500 tools (`tests/servers/tools_server.py --count 500`, ~150 kB per
answer) is started through `mcpctl run` three times per round, interleaved: once with
no policy (run execs the server: the client talks to it directly) and twice with a
policy that switches 350 of its tools off (run relays through the filter: every client
line is parsed, a `tools/list` answer is judged and written again, or, when the
server's exact answer was judged before, written from its template). For each, one
session: initialize, then `tools/list` REQUESTS times; the figures are the time from
writing a `tools/list` request to reading its whole answer, for the first of a session
and for the later ones, and the CPU of `mcpctl run` and its server. The relay runs with its store of
judged answers warm (a server that answers as last time) and cold (removed before the
session: the first session ever, or a server that changed). Target: the filter adds
at most 5 %. The filtered answer is smaller, so the client also reads less.

    uv run python bench/bench_tool_filter.py [ROUNDS] [REQUESTS]
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
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


def session_cpu(name: str, folder: str, env: dict[str, str], requests: int,
                before: Callable[[], None]) -> float:
    """CPU seconds of `mcpctl run` and its server over one session."""
    before()
    start = children_cpu()
    session(name, folder, env, requests)
    return children_cpu() - start


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    requests = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
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
        store = Path(home) / "cache" / "tool-answers"

        def cold() -> None:  # the first session ever: nothing judged yet
            shutil.rmtree(store, ignore_errors=True)

        def warm() -> None:
            pass

        # (label, server, what to do before the session)
        setups = (("exec, no policy", "plain", warm),
                  ("relay, store warm", "filtered", warm),
                  ("relay, store cold", "filtered", cold))
        first: dict[str, list[float]] = {label: [] for label, _, _ in setups}
        later: dict[str, list[float]] = {label: [] for label, _, _ in setups}
        starts: dict[str, list[float]] = {label: [] for label, _, _ in setups}
        listed: dict[str, int] = {}
        session("filtered", folder, env, 1)  # the store is warm from here on
        for _ in range(rounds):
            for label, name, before in setups:
                before()
                samples, listed[label], begun = session(name, folder, env, requests)
                first[label].append(samples[0])
                later[label] += samples[1:]
                starts[label].append(begun)
        slopes: dict[str, list[float]] = {label: [] for label, _, _ in setups[:2]}
        whole: dict[str, list[float]] = {label: [] for label, _, _ in setups}
        for _ in range(max(3, rounds // 2)):
            for label, name, before in setups:
                one = session_cpu(name, folder, env, 1, before)
                whole[label].append(one)
                if label in slopes:
                    many = session_cpu(name, folder, env, 41, before)
                    slopes[label].append((many - one) / 40)
    print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    median = statistics.median
    for title, figures in (
        (f"tools/list round trip after the first, median of {len(later['exec, no policy'])} "
         "requests each (wall)", {k: median(v) for k, v in later.items()}),
        ("CPU of mcpctl run and its server per tools/list after the first (slope of 41 "
         "against 1 request)", {k: median(v) for k, v in slopes.items()}),
        (f"the first tools/list round trip of a session, median of {rounds} sessions (wall)",
         {k: median(v) for k, v in first.items()}),
        ("CPU of mcpctl run and its server over a whole session of one tools/list "
         "(start-up included)", {k: median(v) for k, v in whole.items()}),
        (f"start to the first tools/list answer, median of {rounds} sessions (wall)",
         {k: median(v) for k, v in starts.items()}),
    ):
        print(title)
        base = figures["exec, no policy"]
        for label, value in figures.items():
            change = "" if label == "exec, no policy" else f"  {value / base - 1:+.1%}"
            print(f"  {label:<18} {value * 1000:8.2f} ms  ({listed[label]} tools){change}")


if __name__ == "__main__":
    main()
