"""Helpers for client tests: plans for real subprocesses, hostile scripts, process scans."""

from __future__ import annotations

import asyncio
import os
import resource
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from mcpctl.model import Transport
from mcpctl.protocol.probe import (
    DEFAULT_CAPABILITIES,
    LaunchPlan,
    ProbeFailed,
    ProbeFailure,
    ProbeResult,
    probe,
)
from tests.components import missing
from tests.processes import kill_all, stop

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SCRIPTED = HERE / "scripted_server.py"
SDK_SERVER = HERE / "sdk_server.py"
NPM = REPO / "tests" / ".npm" / "node_modules" / "@modelcontextprotocol"
FIXTURES = REPO / "tests" / "fixtures" / "real-servers"
ROOT_URI = "file:///work/space%20dir"


def stdio_plan(*argv: str, timeout: float = 3.0, name: str = "s", cwd: str | None = None,
               roots: tuple[str, ...] = (ROOT_URI,)) -> LaunchPlan:
    return LaunchPlan(name, Transport.STDIO, argv=argv, env=dict(os.environ), cwd=cwd,
                      timeout=timeout, roots=roots)


def scripted(*flags: str, timeout: float = 3.0, name: str = "s") -> LaunchPlan:
    return stdio_plan(sys.executable, str(SCRIPTED), *flags, timeout=timeout, name=name)


def run_probe(plan: LaunchPlan, capabilities: frozenset[str] = DEFAULT_CAPABILITIES,
              ) -> ProbeResult:
    return asyncio.run(probe(plan, capabilities=capabilities))


def run_failure(plan: LaunchPlan, capabilities: frozenset[str] = DEFAULT_CAPABILITIES,
                ) -> ProbeFailure:
    with pytest.raises(ProbeFailed) as caught:
        run_probe(plan, capabilities)
    return caught.value.failure


# --- hostile servers -------------------------------------------------------------------


Hostile = Callable[..., tuple[LaunchPlan, str]]


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[Hostile]:
    """Write `code` as a server script whose command line carries a unique marker; after
    the test, kill whatever still carries it (the test itself asserts there is none, so
    this only spares later tests a failed one's stragglers)."""
    markers: list[str] = []

    def make(code: str, timeout: float = 1.0) -> tuple[LaunchPlan, str]:
        marker = f"mcpctl-test-{uuid.uuid4().hex}"
        markers.append(marker)
        script = tmp_path / f"{marker}.py"
        script.write_text(PRELUDE + code, encoding="utf-8")
        return stdio_plan(sys.executable, str(script), marker, timeout=timeout), marker

    yield make
    for marker in markers:
        kill_all(survivors(marker))


PRELUDE = '''\
import json, os, signal, subprocess, sys, time
MARKER = sys.argv[1]

def send(message):
    sys.stdout.write(json.dumps(message) + "\\n")
    sys.stdout.flush()

def requests():
    for line in sys.stdin:
        yield json.loads(line)

def handshake_answer(request):
    """Answer discover with -32601 and initialize like a handshake-era server."""
    if request["method"] == "server/discover":
        send({"jsonrpc": "2.0", "id": request["id"],
              "error": {"code": -32601, "message": "Method not found"}})
    elif request["method"] == "initialize":
        send({"jsonrpc": "2.0", "id": request["id"], "result": {
            "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile", "version": "0"}}})
    elif request["method"] == "tools/list":
        send({"jsonrpc": "2.0", "id": request["id"], "result": {"tools": [
            {"name": "t", "inputSchema": {"type": "object"}}]}})

def grandchild_ignoring_sigterm():
    return subprocess.Popen([sys.executable, "-c",
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)",
        MARKER])

'''


def survivors(marker: str) -> list[int]:
    """Live processes whose command line holds `marker` (zombies have an empty one)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def survivors_after_settling(marker: str, within: float = 3.0) -> list[int]:
    """`survivors`, once a SIGKILL already sent has had time to land on a loaded machine
    (delivery is asynchronous); a process still alive after `within` seconds is a leak."""
    deadline = time.monotonic() + within
    while survivors(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    return survivors(marker)


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# --- real servers ----------------------------------------------------------------------


def require_npm_server(package: str) -> Path:
    """The entry of an npm reference server; skipped locally, a failure in CI."""
    entry = NPM / package / "dist" / "index.js"
    if not (entry.is_file() and shutil.which("node")):
        missing(f"{entry} (or node)",
                f"run: npm install --prefix tests/.npm @modelcontextprotocol/{package}")
    return entry


def free_port() -> int:
    """A loopback port free now, for a server the test is about to start there
    (`http_server` then checks that server is the one listening)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def refusing_port() -> Iterator[int]:
    """A loopback port where every connection is refused, for the block: bound by this
    process and never listened on, so no other process (another worker's server) can
    take it meanwhile, as it could a port that was only free when asked."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        yield port


def listening_sockets(port: int) -> set[str]:
    """The inodes of the TCP sockets listening on `port` (any address), from the
    kernel's tables: which process owns one is then a question of its open files."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            # local address "0100007F:1F90", state 0A (LISTEN), inode in field 9
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                found.add(fields[9])
    return found


def sockets_of(pid: int) -> set[str]:
    """The inodes of the sockets process `pid` holds open."""
    inodes = set()
    with suppress(OSError):
        for entry in os.scandir(f"/proc/{pid}/fd"):
            with suppress(OSError):
                target = os.readlink(entry.path)
                if target.startswith("socket:["):
                    inodes.add(target[len("socket:["):-1])
    return inodes


@contextmanager
def http_server(argv: list[str], port: int, env: dict[str, str] | None = None) -> Iterator[str]:
    """Run an HTTP MCP server on 127.0.0.1:`port` for the block; yields its /mcp url
    once that process itself listens there (issue 25). A connection alone proved only
    that something listened: under a parallel run another worker's server may hold the
    port, and the test would have talked to it."""
    process = subprocess.Popen(argv, env={**os.environ, **(env or {})},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # The SDK server takes seconds to import on a busy machine: 10 s was not enough.
        deadline = time.monotonic() + 60
        while not listening_sockets(port) & sockets_of(process.pid):
            if process.poll() is not None:
                taken = " (the port is another process's)" if listening_sockets(port) else ""
                raise RuntimeError(f"{argv} exited with {process.returncode} before "
                                   f"listening on {port}{taken}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{argv} did not listen on {port} within 60 s")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)
