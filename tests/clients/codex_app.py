"""Codex's own MCP startup status, the oracle for Codex (`codex mcp list` connects
nothing, and the app-server's `mcpServerStatus/list` without a thread reads no
project): its app-server in a folder, a thread started there (no turn is ever sent, so
no model is called), then `mcpServerStatus/list` for that thread. A server it started
has tools; one it disabled (requirements, an untrusted project) has none or is absent.

Nothing reaches the network: as root the app-server runs in a network namespace of its
own (`unshare -n`), and every proxy variable points at a closed loopback port either way.

Run as a script (`python codex_app.py FOLDER`, with HOME and PATH as the test sets
them) it prints `{name: [tools]}` as JSON, so a test can run it inside a namespace.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any

CODEX = Path(__file__).resolve().parents[1] / ".clients" / "node_modules" / ".bin" / "codex"
CLOSED = "http://127.0.0.1:9"
STATUS_POLLS = 600  # asked at most this often, 0.1 s apart, while a server is starting
OFFLINE = dict.fromkeys(("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy",
                         "https_proxy", "all_proxy"), CLOSED)


def _offline(argv: list[str]) -> list[str]:
    if os.geteuid() == 0 and shutil.which("unshare"):
        return ["unshare", "-n", *argv]
    return argv


def _answer(stdout: IO[str], wanted: int) -> dict[str, Any]:
    for _ in range(2000):  # a bounded read: the answer comes after a few notices
        line = stdout.readline()
        if not line:
            break
        message: dict[str, Any] = json.loads(line)
        if message.get("id") == wanted:
            return message
    raise AssertionError(f"codex app-server gave no answer to request {wanted}")


def startup_status(cwd: Path, env: Mapping[str, str]) -> dict[str, list[str]]:
    """Each MCP server of a thread started in `cwd`: the names of its tools."""
    return {server["name"]: sorted(server["tools"]) for server in servers(cwd, env)}


def servers(cwd: Path, env: Mapping[str, str], *,
            offline: Callable[[list[str]], list[str]] = _offline,
            program: Path = CODEX, ephemeral: bool = False) -> list[dict[str, Any]]:
    """What `mcpServerStatus/list` reports for a thread started in `cwd`, asked again
    while a server is still starting. `offline` wraps the command line (a network
    namespace); an `ephemeral` thread is not recorded in Codex's history."""
    process = subprocess.Popen(offline([str(program), "app-server"]), cwd=cwd,
                               env={**env, **OFFLINE, "NO_PROXY": ""},
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    assert process.stdin is not None
    assert process.stdout is not None

    def send(message: dict[str, Any]) -> None:
        assert process.stdin is not None
        process.stdin.write(json.dumps(message) + "\n")
        process.stdin.flush()

    try:
        send({"method": "initialize", "id": 0,
              "params": {"clientInfo": {"name": "mcpctl-tests", "version": "1"}}})
        _answer(process.stdout, 0)
        send({"method": "initialized"})
        start: dict[str, Any] = {"cwd": str(cwd), **({"ephemeral": True} if ephemeral else {})}
        send({"method": "thread/start", "id": 1, "params": start})
        thread = _answer(process.stdout, 1)["result"]["thread"]["id"]
        for request in range(2, 2 + STATUS_POLLS):
            send({"method": "mcpServerStatus/list", "id": request,
                  "params": {"threadId": thread}})
            data: list[dict[str, Any]] = _answer(process.stdout, request)["result"]["data"]
            # A server still starting has no tools yet: ask again (bounded; the status,
            # not a clock, ends the wait).
            if all(server.get("runtimeStatus") != "starting" for server in data):
                break
            time.sleep(0.1)
        return data
    finally:
        process.stdin.close()
        process.wait(timeout=60)
        process.stdout.close()


if __name__ == "__main__":
    print(json.dumps(startup_status(Path(sys.argv[1]), os.environ)))
