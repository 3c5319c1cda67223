"""What the stdio bridge (`mcpctl run NAME` for a url server) adds, per message and at start.

Per message: the official SDK client calls `add` N times on the SDK test server over
Streamable HTTP directly, then N times through `mcpctl run sdk` over stdio (the bridge
relays to the same server); the figure is the difference of the medians of each call's
round trip. Target: a few milliseconds at most.

At start: `mcpctl run sdk` as a whole process, with stdin holding one `initialize`
(start, connect, answer, DELETE, exit) and with stdin empty (start and exit, no
connection), against `python -c pass` in the same run.

    uv run python bench/bench_bridge.py [--calls N] [--mode sse|json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from bench.timing import MCPCTL, bare_python, median_seconds, report

REPO = Path(__file__).resolve().parent.parent
SDK_SERVER = REPO / "tests" / "protocol" / "sdk_server.py"
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "bench", "version": "1"}}}) + "\n"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_server(port: int, mode: str) -> subprocess.Popen[bytes]:
    process = subprocess.Popen([sys.executable, str(SDK_SERVER), "http", str(port), mode],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                sys.exit("the SDK server did not start")
            time.sleep(0.05)
        else:
            return process


async def round_trips(session: ClientSession, calls: int) -> list[float]:
    await session.initialize()
    samples = []
    for index in range(calls + 5):  # five warm-up calls
        started = time.perf_counter()
        await session.call_tool("add", {"a": index, "b": 1})
        if index >= 5:
            samples.append(time.perf_counter() - started)
    return samples


async def direct(url: str, calls: int) -> list[float]:
    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as s:
        return await round_trips(s, calls)


async def bridged(env: dict[str, str], folder: str, calls: int) -> list[float]:
    params = StdioServerParameters(command=MCPCTL, args=["run", "sdk", "-w", folder], env=env)
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            return await round_trips(session, calls)


def median_ms(run: Callable[[], Coroutine[Any, Any, list[float]]]) -> float:
    return statistics.median(asyncio.run(run())) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--mode", choices=("sse", "json"), default="sse")
    args = parser.parse_args()
    port = free_port()
    server = start_server(port, args.mode)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        with tempfile.TemporaryDirectory() as folder:
            home = Path(folder)
            (home / "config").mkdir()
            (home / "config" / "config.toml").write_text(f'[servers.sdk]\nurl = "{url}"\n')
            env = {"MCPCTL_HOME": folder, "HOME": os.environ.get("HOME", folder),
                   "PATH": os.environ.get("PATH", "")}
            plain = median_ms(lambda: direct(url, args.calls))
            through = median_ms(lambda: bridged(env, folder, args.calls))
            print(f"tools/call round trip, median of {args.calls} ({args.mode} replies)")
            print(f"{'  SDK client over HTTP, direct':<58} {plain:8.2f} ms")
            print(f"{'  SDK client over stdio, through mcpctl run':<58} {through:8.2f} ms")
            print(f"{'  added by the bridge per request':<58} {through - plain:8.2f} ms")
            baseline = bare_python()
            idle = median_seconds([MCPCTL, "run", "sdk", "-w", folder], env=env, stdin="")
            one = median_seconds([MCPCTL, "run", "sdk", "-w", folder], env=env,
                                 stdin=INITIALIZE)
            report("python -c pass", baseline)
            report("mcpctl run sdk, stdin empty (start, exit)", idle, baseline)
            report("mcpctl run sdk, one initialize (and DELETE)", one, baseline)
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
