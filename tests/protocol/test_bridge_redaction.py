"""What the bridge says itself (a JSON-RPC error it answers, a warning on stderr) is
redacted with the values the launch substituted, even where the server's own text
carries one: a redirect's `Location`, a JSON-RPC error in a refusal's body (issue 30:
planted by hand, `shown = text` in `_answer_error` sent the token to the client, and
the same in `_warn` wrote it to stderr)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.protocol.test_bridge import Bridged, configure
from tests.protocol.test_http import Reply, serve
from tests.protocol.test_sse_origin import INITIALIZE

__all__ = ["serve"]  # the fixture, used by name

TOKEN = "tok-9f8e7d6c5b4a3f2e1d0c"
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
JSON = {"Content-Type": "application/json"}


@pytest.fixture(autouse=True)
def _token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REMOTE_TOKEN", TOKEN)


def bridged(serve: Callable[..., str], answer: Callable[[str, str], Reply],
            user_config: Path, tmp_path: Path) -> Bridged:
    url = serve(answer)
    configure(user_config, url, 'Authorization = "Bearer ${env:REMOTE_TOKEN}"')
    return Bridged(tmp_path)


def test_a_redirect_that_carries_the_token_is_answered_without_it(
    serve: Callable[..., str], user_config: Path, tmp_path: Path
) -> None:
    def answer(method: str, path: str) -> Reply:
        return 302, {"Location": f"http://127.0.0.1:9/collect?t={TOKEN}"}, b""

    bridge = bridged(serve, answer, user_config, tmp_path)
    bridge.send(INITIALIZE)
    message = bridge.receive()["error"]["message"]
    code, err = bridge.finish()
    assert message.startswith("mcpctl bridge: server redirected to http://127.0.0.1:9/collect")
    assert TOKEN not in message
    assert TOKEN not in err
    assert code == 6


def test_a_refused_notification_whose_error_carries_the_token_is_warned_without_it(
    serve: Callable[..., str], user_config: Path, tmp_path: Path
) -> None:
    posts: list[int] = []

    def answer(method: str, path: str) -> Reply:
        if method != "POST":
            return 405, {}, b""
        posts.append(1)
        if len(posts) == 2:  # notifications/initialized
            refused = {"jsonrpc": "2.0", "id": None,
                       "error": {"code": -32600, "message": f"bad Bearer {TOKEN}"}}
            return 400, JSON, json.dumps(refused).encode()
        result = {"protocolVersion": "2025-06-18", "capabilities": {},
                  "serverInfo": {"name": "s", "version": "1"}} if len(posts) == 1 \
            else {"tools": []}
        return 200, JSON, json.dumps({"jsonrpc": "2.0", "id": len(posts) // 2 + 1,
                                      "result": result}).encode()

    bridge = bridged(serve, answer, user_config, tmp_path)
    bridge.send(INITIALIZE)
    assert "result" in bridge.receive()
    bridge.send(INITIALIZED)
    bridge.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert bridge.receive()["result"] == {"tools": []}
    code, err = bridge.finish()
    assert "server did not accept notifications/initialized: HTTP 400: bad Bearer " in err
    assert TOKEN not in err
    assert code == 0
