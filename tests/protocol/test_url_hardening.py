"""A url server's errors and hosts (issue 23, items 6 and 8), through the CLI.

- A malformed url that holds a keyring value is refused without quoting the value
  (`run` bridges it; before, its error quoted the resolved url whole). Without the
  `_redacted` call in `protocol/bridge.serve` the value is on stderr.
- `*.localhost` is loopback only where the resolver says so; this machine's resolver
  asks DNS for it, so a plain-http header to it would go wherever DNS answers. mcpctl
  resolves it first and refuses unless every address is loopback; `check` flags it.
  Without `_resolves_to_loopback` in `http_wire.is_loopback` the bridge hands the name
  to the resolver and sends the header wherever it answers (here nowhere, and the
  refusal is missing); without the change to `lint.fields._is_local` MCP042 is silent.
"""

from __future__ import annotations

import ipaddress
import json
import socket
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.conftest import run_mcpctl


@pytest.mark.usefixtures("secret_service")
def test_a_malformed_url_is_refused_without_its_secret(user_config: Path) -> None:
    name = f"pw-{uuid.uuid4().hex[:8]}"
    value = "Zq7-pass-" + uuid.uuid4().hex[:10]
    assert run_mcpctl(["secret", "set", name, "--stdin"], stdin=value + "\n").code == 0
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(
        f'[servers.r]\nurl = "http://u:${{secret:{name}}}@127.0.0.1:99999/mcp"\n')
    result = run_mcpctl(["run", "r"], stdin="")
    assert result.code == 6, result
    assert "not a valid url" in result.err
    assert value not in result.out + result.err


def resolves_to_loopback(host: str) -> bool:
    """What this machine's resolver says, asked directly."""
    try:
        found = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return False
    return all(ipaddress.ip_address(info[4][0]).is_loopback for info in found)


@pytest.fixture
def listener() -> Iterator[tuple[int, list[str]]]:
    """A loopback listener recording each request's Authorization header."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            seen.append(self.headers.get("Authorization", ""))
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1], seen
    finally:
        server.shutdown()
        server.server_close()


INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"}}}) + "\n"


def test_a_localhost_subdomain_is_resolved_before_any_header(
    user_config: Path, listener: tuple[int, list[str]]
) -> None:
    port, seen = listener
    host = f"mcp-{uuid.uuid4().hex[:8]}.localhost"
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(f'[servers.r]\nurl = "http://{host}:{port}/mcp"\n'
                           '[servers.r.headers]\nAuthorization = "Bearer t0ken"\n')
    result = run_mcpctl(["run", "r"], stdin=INITIALIZE)
    if resolves_to_loopback(host):  # a resolver that keeps the convention: allowed
        assert seen == ["Bearer t0ken"]
        return
    assert result.code == 6, result
    assert f"refusing plain http to {host}" in result.err
    assert seen == []  # nothing was sent anywhere


def test_check_flags_plain_http_to_a_localhost_subdomain(tmp_path: Path) -> None:
    config = tmp_path / ".mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        "a": {"type": "http", "url": "http://api.localhost:3000/mcp"},
        "b": {"type": "http", "url": "http://localhost:3000/mcp"}}}))
    result = run_mcpctl(["check", str(config)])
    assert result.code == 1, result
    assert 'mcpServers.a.url: plain http:// to "api.localhost"' in result.out
    assert "mcpServers.b" not in result.out
