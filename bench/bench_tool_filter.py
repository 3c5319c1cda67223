"""What the tool filter adds to `tools/list` through `mcpctl run` (issue 29).

A server with 500 tools (`tests/servers/tools_server.py --count 500`, ~146 kB per
answer) is started through `mcpctl run` three times per round, interleaved: once with
no policy (run execs the server: the client talks to it directly) and twice with a
policy that switches 350 of its tools off (run relays through the filter: every client
line is parsed, a `tools/list` answer is judged and written again, or, when the
server's exact answer was judged before, written from its template): with the store
of judged answers warm (a server that answers as last time) and cold (removed before
the session: the first session ever, or a server whose answer changed). Each session:
initialize, then `tools/list` REQUESTS times.

Figures, medians over the sessions: the wall time from writing a `tools/list` request
to having read its whole answer line (the client's own decoding left out: it is the
client's, and smaller behind the filter), for the first request of a session and for
the later ones; and the CPU time on Linux's scheduler clock (`/proc/PID/task/*/schedstat`,
nanoseconds) of `mcpctl run` and its server, split into the relay's own share and the
server's, for the first request and per later request. CPU is what the load on a shared
machine disturbs least. Target: the filter adds at most 5 %.

    uv run python bench/bench_tool_filter.py [ROUNDS] [REQUESTS]
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.timing import MCPCTL, REPO

SERVER = REPO / "tests" / "servers" / "tools_server.py"
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "bench", "version": "1"}}}


class Cpu(NamedTuple):
    own: float  # seconds: the process `mcpctl run` started as (the server, when exec'd)
    children: float  # its children (the relayed server)

    def __sub__(self, other: object) -> Cpu:
        assert isinstance(other, Cpu)
        return Cpu(self.own - other.own, self.children - other.children)

    @property
    def total(self) -> float:
        return self.own + self.children


def _read(path: Path) -> str:
    """A task's file; empty when the thread has just ended (the store's writer does:
    the CPU of a thread that ended is not counted)."""
    try:
        return path.read_text()
    except FileNotFoundError:
        return ""


def _threads_cpu(pid: int) -> float:
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        total += int((_read(task / "schedstat").split() or ["0"])[0])
    return total / 1e9


def tree_cpu(pid: int) -> Cpu:
    children = [int(child) for task in Path(f"/proc/{pid}/task").iterdir()
                for child in _read(task / "children").split()]
    return Cpu(_threads_cpu(pid), sum(_threads_cpu(child) for child in children))


class Session(NamedTuple):
    first: float  # wall seconds of the first tools/list
    later: list[float]  # of each later one
    first_cpu: Cpu
    later_cpu: Cpu  # per later tools/list
    start_cpu: Cpu  # from the start to the end of initialize
    listed: int
    start: float  # wall seconds from starting `mcpctl run` to the first answer


def session(name: str, folder: str, env: dict[str, str], requests: int) -> Session:
    begun = time.perf_counter()
    process = subprocess.Popen([MCPCTL, "run", name, "-w", folder], env=env,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    assert process.stdin is not None
    assert process.stdout is not None
    send, receive = process.stdin, process.stdout

    def ask(message: dict[str, object]) -> tuple[bytes, float]:
        start = time.perf_counter()
        send.write(json.dumps(message).encode() + b"\n")
        send.flush()
        line = receive.readline()
        return line, time.perf_counter() - start

    ask(INITIALIZE)
    send.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    ask({"jsonrpc": "2.0", "id": "warm", "method": "ping"})
    samples, cpu, listed, start = [], [tree_cpu(process.pid)], 0, 0.0
    for request in range(1, requests + 1):
        line, seconds = ask({"jsonrpc": "2.0", "id": request, "method": "tools/list"})
        samples.append(seconds)
        start = start or time.perf_counter() - begun
        if request == 1:
            cpu.append(tree_cpu(process.pid))
        listed = len(json.loads(line)["result"]["tools"])
    cpu.append(tree_cpu(process.pid))
    send.close()
    process.wait(timeout=30)
    receive.close()
    later = (cpu[2] - cpu[1])
    per = Cpu(later.own / (requests - 1), later.children / (requests - 1))
    return Session(samples[0], samples[1:], cpu[1] - cpu[0], per, cpu[0], listed, start)


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

        setups: tuple[tuple[str, str, Callable[[], None]], ...] = (
            ("exec, no policy", "plain", warm), ("relay, store warm", "filtered", warm),
            ("relay, store cold", "filtered", cold))
        runs: dict[str, list[Session]] = {label: [] for label, _, _ in setups}
        session("filtered", folder, env, 2)  # the store is warm from here on
        for _ in range(rounds):
            for label, name, before in setups:
                before()
                runs[label].append(session(name, folder, env, requests))
    print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    report(runs, rounds)


def report(runs: dict[str, list[Session]], rounds: int) -> None:
    median = statistics.median
    later_count = sum(len(s.later) for s in runs["exec, no policy"])
    tables: tuple[tuple[str, Callable[[list[Session]], float], Callable[[list[Session]], float]
                        | None], ...] = (
        (f"wall: a tools/list after the first, median of {later_count} requests",
         lambda ss: median([t for s in ss for t in s.later]), None),
        ("CPU per tools/list after the first, median of sessions (relay's own share)",
         lambda ss: median([s.later_cpu.total for s in ss]),
         lambda ss: median([s.later_cpu.own for s in ss])),
        (f"wall: the first tools/list of a session, median of {rounds}",
         lambda ss: median([s.first for s in ss]), None),
        ("CPU of the first tools/list of a session (relay's own share)",
         lambda ss: median([s.first_cpu.total for s in ss]),
         lambda ss: median([s.first_cpu.own for s in ss])),
        (f"wall: start to the first tools/list answer, median of {rounds}",
         lambda ss: median([s.start for s in ss]), None),
        ("CPU from the start to the end of initialize (relay's own share: mcpctl's start "
         "included)", lambda ss: median([s.start_cpu.total for s in ss]),
         lambda ss: median([s.start_cpu.own for s in ss])),
    )
    for title, figure, own in tables:
        print(title)
        base = figure(runs["exec, no policy"])
        for label, sessions in runs.items():
            value = figure(sessions)
            relay = label != "exec, no policy"
            change = f"  {value / base - 1:+7.1%}" if relay else " " * 9
            share = f"  (relay {own(sessions) * 1000:.2f} ms)" if own and relay else ""
            print(f"  {label:<18} {value * 1000:8.2f} ms  {sessions[0].listed:3} tools"
                  f"{change}{share}")


if __name__ == "__main__":
    main()
