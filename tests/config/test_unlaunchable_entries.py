"""Definitions no launch can carry out are refused when read, with their location
(issue 23, item 7): before, `list` and `trust` accepted them and `run` ended in exit 70
(Python's exec raises on a NUL byte; a bad port raised from the URL parser)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from tests.conftest import run_mcpctl
from tests.protocol.loopback_server import serving

UNLAUNCHABLE = [
    ({"command": "bash", "args": ["-c", "true\u0000evil"]},
     "server 's': args[1] holds a NUL byte, which no launch can pass on"),
    ({"command": "python3", "args": ["-m", "tool\u0000x"]},
     "server 's': args[1] holds a NUL byte, which no launch can pass on"),
    ({"command": "bash", "env": {"A": "x\u0000y"}},
     "server 's': env 'A' holds a NUL byte, which no launch can pass on"),
    ({"command": "bash", "cwd": "sub\u0000"},
     "server 's': cwd holds a NUL byte, which no launch can pass on"),
    ({"command": "bash", "env": {"A=B": "x"}},
     "server 's': env has a variable named 'A=B'; a name must be non-empty, without '=' or "
     "a NUL byte"),
    ({"command": "bash", "env": {"": "x"}},
     "server 's': env has a variable named ''; a name must be non-empty, without '=' or "
     "a NUL byte"),
    ({"url": "http://127.0.0.1:99999/sse", "type": "sse"},
     "server 's': 'url' is not a valid url: its port is not a number from 0 to 65535"),
    ({"url": "http://[::1/mcp"},
     "server 's': 'url' is not a valid url: its IPv6 host has no closing ']'"),
    ({"url": "http://127.0.0.1:80a/mcp"},
     "server 's': 'url' is not a valid url: its port is not a number from 0 to 65535"),
]


def test_exec_cannot_carry_a_nul_byte() -> None:
    """What the checks spare the launch: the OS interface refuses such an argument."""
    with pytest.raises(ValueError, match="null byte"):
        subprocess.run(["bash", "-c", "true\0evil"], check=False)


@pytest.mark.parametrize(("entry", "problem"), UNLAUNCHABLE)
def test_an_unlaunchable_definition_is_a_problem_where_it_is_written(
    tmp_path: Path, entry: dict[str, object], problem: str
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"s": entry}}))
    for command in (["list"], ["trust", "s", "--yes"], ["run", "s"]):
        result = run_mcpctl([*command, "-w", str(root)])
        assert result.code in (2, 3), (command, result)  # never 70
        assert f"{root / '.mcp.json'}:1:" in result.err
        assert problem in result.err
        assert "Traceback" not in result.err


@pytest.fixture
def sse_server() -> Iterator[str]:
    """An SSE server whose `endpoint` event names a port no URL can have."""
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"event: endpoint\ndata: http://127.0.0.1:99999/messages\n\n"
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: object) -> None:
            return

    with serving(Handler) as base:
        yield f"{base}/sse"


def test_an_endpoint_with_an_unparsable_port_is_refused(sse_server: str,
                                                         user_config: Path) -> None:
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(f'[servers.r]\nurl = "{sse_server}"\ntype = "sse"\ntimeout = 5\n')
    result = run_mcpctl(["cost", "r", "--json"])
    assert result.code != 70, result
    assert "Traceback" not in result.err
    assert ("server named a message endpoint on another origin: "
            "http://127.0.0.1:99999/messages") in result.out + result.err
