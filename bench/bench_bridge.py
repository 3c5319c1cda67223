"""What the stdio bridge (`mcpctl run NAME` for a url server) adds, per message and at start.

Per message, two ways, each alternating its two sides call by call so both see the
same load: the official SDK client calling `add` on the SDK test server over Streamable
HTTP directly and over stdio through `mcpctl run sdk` (what a client sees, the SDK's
own stdio cost included); and the bridge alone, the same stateless `tools/call` POSTed
by httpx directly and written as a line to `mcpctl run sdk`. The figure is the
difference of the medians of the round trips. Target: a few milliseconds at most.

At start: `mcpctl run sdk` as a whole process, with stdin holding one `initialize`
(start, connect, answer, DELETE, exit) and with stdin empty (start and exit, no
connection), against `python -c pass` and `mcpctl run sdk --print` (the same command
up to the bridge) in the same run.

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
MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
          "io.modelcontextprotocol/clientCapabilities": {}}
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


CallTimer = Callable[[int], Coroutine[Any, Any, None]]


async def alternate(direct: CallTimer, bridged: CallTimer, calls: int
                    ) -> tuple[list[float], list[float]]:
    """Time `calls` round trips of each, alternating, so both see the same load."""
    times: tuple[list[float], list[float]] = ([], [])
    for index in range(calls + 5):  # five warm-up rounds
        for side, call in enumerate((direct, bridged)):
            started = time.perf_counter()
            await call(index)
            if index >= 5:
                times[side].append(time.perf_counter() - started)
    return times


async def sdk_pair(url: str, env: dict[str, str], folder: str, calls: int
                   ) -> tuple[list[float], list[float]]:
    """The SDK client over Streamable HTTP, and the SDK client over stdio to the bridge."""
    params = StdioServerParameters(command=MCPCTL, args=["run", "sdk", "-w", folder], env=env)
    with open(os.devnull, "w") as errlog:
        async with streamable_http_client(url) as (read, write), \
                ClientSession(read, write) as http, \
                stdio_client(params, errlog=errlog) as (bread, bwrite), \
                ClientSession(bread, bwrite) as stdio:
            await http.initialize()
            await stdio.initialize()

            async def over_http(index: int) -> None:
                await http.call_tool("add", {"a": index, "b": 1})

            async def through_bridge(index: int) -> None:
                await stdio.call_tool("add", {"a": index, "b": 1})

            return await alternate(over_http, through_bridge, calls)


def call_line(index: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": index, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": index, "b": 1}, "_meta": MODERN}}


async def raw_pair(url: str, env: dict[str, str], folder: str, calls: int
                   ) -> tuple[list[float], list[float]]:
    """The bridge alone: the same stateless POST from httpx directly, and as a line to
    `mcpctl run` read back from its stdout (no SDK on either side)."""
    import httpx  # noqa: PLC0415

    headers = {"Accept": "application/json, text/event-stream", "Mcp-Method": "tools/call",
               "Content-Type": "application/json", "MCP-Protocol-Version": "2026-07-28",
               "Mcp-Name": "add"}
    bridge = await asyncio.create_subprocess_exec(
        MCPCTL, "run", "sdk", "-w", folder, env=env, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE)
    assert bridge.stdin is not None
    assert bridge.stdout is not None
    stdin, stdout = bridge.stdin, bridge.stdout
    async with httpx.AsyncClient(timeout=30) as client:

        async def over_http(index: int) -> None:
            async with client.stream("POST", url, headers=headers,
                                     content=json.dumps(call_line(index))) as reply:
                await reply.aread()

        async def through_bridge(index: int) -> None:
            stdin.write(json.dumps(call_line(index)).encode() + b"\n")
            await stdin.drain()
            await stdout.readline()

        try:
            return await alternate(over_http, through_bridge, calls)
        finally:
            stdin.close()
            await bridge.wait()


def show(title: str, times: tuple[list[float], list[float]], labels: tuple[str, str]) -> None:
    direct, bridged = (statistics.median(side) * 1000 for side in times)
    print(title)
    print(f"  {labels[0]:<56} {direct:8.2f} ms")
    print(f"  {labels[1]:<56} {bridged:8.2f} ms")
    print(f"  {'added by the bridge per request':<56} {bridged - direct:8.2f} ms")


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
            show(f"tools/call round trip, median of {args.calls} ({args.mode} replies), "
                 "official SDK client", asyncio.run(sdk_pair(url, env, folder, args.calls)),
                 ("over HTTP, direct", "over stdio, through mcpctl run"))
            show(f"tools/call round trip, median of {args.calls} ({args.mode} replies), "
                 "raw JSON-RPC", asyncio.run(raw_pair(url, env, folder, args.calls)),
                 ("POST from httpx, direct", "a line to mcpctl run's stdin, back on stdout"))
            baseline = bare_python()
            idle = median_seconds([MCPCTL, "run", "sdk", "-w", folder], env=env, stdin="")
            one = median_seconds([MCPCTL, "run", "sdk", "-w", folder], env=env,
                                 stdin=INITIALIZE)
            printed = median_seconds([MCPCTL, "run", "sdk", "-w", folder, "--print"], env=env)
            report("python -c pass", baseline)
            report("mcpctl run sdk --print (the same command, no bridge)", printed, baseline)
            report("mcpctl run sdk, stdin empty (start, exit)", idle, baseline)
            report("mcpctl run sdk, one initialize (and DELETE)", one, baseline)
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
