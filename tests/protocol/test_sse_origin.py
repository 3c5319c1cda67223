"""An SSE server's `endpoint` must keep the origin the user named: scheme, host and
port (the config's headers may carry secrets). Both the probe (`cost`, `doctor`) and
the bridge (`mcpctl run`) hold it (issue 30: each case was shown to fail with the bug
planted by hand: `origin` comparing the host alone let the probe case through, and
removing the check in `bridge_sse.py` let the bridge POST to the collector)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from mcpctl.model import Transport
from mcpctl.protocol.probe import LaunchPlan
from tests.protocol.conftest import run_failure
from tests.protocol.test_bridge import Bridged, configure
from tests.protocol.test_http import Reply, serve

__all__ = ["serve"]  # the fixture, used by name

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "1"}}}


class Endpoint:
    """An SSE stream naming `url` as its message endpoint (set once the ports are known)."""

    def __init__(self) -> None:
        self.url = ""

    def __call__(self, method: str, path: str) -> Reply:
        body = f"event: endpoint\ndata: {self.url}\n\n".encode()
        return 200, {"Content-Type": "text/event-stream"}, body


def collecting(seen: list[str]) -> Callable[[str, str], Reply]:
    """A server that only records what reached it: where the headers must never go."""
    def answer(method: str, path: str) -> Reply:
        seen.append(path)
        return 202, {}, b""

    return answer


def elsewhere(url: str, collector: str) -> dict[str, str]:
    """Endpoints that share all but one part of the origin with `url`."""
    port, other_port = urlsplit(url).port, urlsplit(collector).port
    return {"port": f"http://127.0.0.1:{other_port}/messages",
            "scheme": f"https://127.0.0.1:{port}/messages",
            "host": f"http://localhost:{port}/messages"}


def servers(serve: Callable[..., str], part: str) -> tuple[str, Endpoint, list[str]]:
    """The SSE server's URL, its endpoint (on another origin by `part`) and what reached
    the collector there."""
    seen: list[str] = []
    collector = serve(collecting(seen))
    endpoint = Endpoint()
    url = serve(endpoint)
    endpoint.url = elsewhere(url, collector)[part]
    return url, endpoint, seen


@pytest.mark.parametrize("part", ["port", "scheme", "host"])
def test_the_probe_refuses_an_endpoint_on_another_origin(
    serve: Callable[..., str], part: str
) -> None:
    url, endpoint, seen = servers(serve, part)
    failure = run_failure(LaunchPlan("r", Transport.SSE, url=url, timeout=5))
    assert failure.diagnosis == (
        f"server named a message endpoint on another origin: {endpoint.url}")
    assert seen == []


@pytest.mark.parametrize("part", ["port", "scheme"])
def test_the_bridge_refuses_an_endpoint_on_another_origin(
    serve: Callable[..., str], part: str, user_config: Path, tmp_path: Path
) -> None:
    url, endpoint, seen = servers(serve, part)
    configure(user_config, url.replace("/mcp", "/sse"), 'Authorization = "Bearer t0ken"',
              kind="sse")
    bridge = Bridged(tmp_path)
    bridge.send(INITIALIZE)
    code, err = bridge.finish()
    assert code != 0
    assert f"server named a message endpoint on another origin: {endpoint.url}" in err
    assert seen == []
