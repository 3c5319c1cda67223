"""JSON-RPC framing and routing, on plain values."""

from __future__ import annotations

import asyncio
import json

import pytest

from mcpctl.protocol import jsonrpc
from mcpctl.protocol.jsonrpc import (
    Dispatcher,
    Json,
    Notification,
    NotJsonRpc,
    Request,
    Response,
    RpcError,
)


def test_encode_is_one_compact_line_keeping_unicode() -> None:
    line = jsonrpc.encode(jsonrpc.request(1, "tools/list", {"text": "a\nb é"}))
    expected = '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"text":"a\\nb é"}}\n'
    assert line == expected.encode()
    assert line.count(b"\n") == 1


def test_notification_has_no_id() -> None:
    assert jsonrpc.notification("notifications/initialized") == {
        "jsonrpc": "2.0", "method": "notifications/initialized"
    }


def test_decode_each_kind() -> None:
    assert jsonrpc.decode(b'{"jsonrpc":"2.0","id":7,"result":{"a":1}}') == [
        Response(7, {"a": 1}, None)
    ]
    assert jsonrpc.decode('{"jsonrpc":"2.0","id":"x","method":"ping"}') == [
        Request("x", "ping", {})
    ]
    note = '{"jsonrpc":"2.0","method":"notifications/message","params":{"l":1}}'
    assert jsonrpc.decode(note) == [Notification("notifications/message", {"l": 1})]


def test_decode_error_object() -> None:
    [response] = jsonrpc.decode(
        '{"jsonrpc":"2.0","id":2,"error":{"code":-32022,"message":"no","data":{"supported":[]}}}'
    )
    assert isinstance(response, Response)
    assert response.error is not None
    assert (response.error.code, response.error.message, response.error.data) == (
        -32022, "no", {"supported": []}
    )


def test_decode_batch_keeps_order() -> None:
    batch = [
        {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
        {"jsonrpc": "2.0", "id": 1, "result": {}},
    ]
    assert jsonrpc.decode(json.dumps(batch)) == [
        Notification("notifications/tools/list_changed", {}), Response(1, {}, None)
    ]


@pytest.mark.parametrize("text", [
    "Hello", "", "[]", "42", '{"id":1,"result":{}}', '{"jsonrpc":"1.0","id":1,"result":{}}',
    '{"jsonrpc":"2.0","id":true,"result":{}}', "[" * 100_000,
])
def test_not_json_rpc(text: str) -> None:
    with pytest.raises(NotJsonRpc) as caught:
        jsonrpc.decode(text)
    assert caught.value.text == text


def test_dispatcher_routes_replies_requests_and_notifications() -> None:
    sent: list[Json] = []

    def answer(request: Request) -> Json:
        return jsonrpc.result_reply(request.id, {"echo": request.method})

    async def scenario() -> tuple[Json, Json, BaseException | None]:
        dispatcher = Dispatcher(sent.append, answer)
        first, first_future = dispatcher.open("a", None)
        second, second_future = dispatcher.open("b", {"x": 1})
        assert (first["id"], second["id"]) == (1, 2)
        dispatcher.receive(jsonrpc.decode(json.dumps([
            {"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "nope"}},
            {"jsonrpc": "2.0", "method": "notifications/message"},
            {"jsonrpc": "2.0", "id": "s1", "method": "roots/list"},
            {"jsonrpc": "2.0", "id": 1, "result": {"ok": True}},
            {"jsonrpc": "2.0", "id": 1, "result": {"late": True}},  # a duplicate is ignored
            {"jsonrpc": "2.0", "id": 99, "result": {}},  # an unknown id is ignored
        ])))
        return await first_future, second, second_future.exception()

    result, second, error = asyncio.run(scenario())
    assert result == {"ok": True}
    assert second == {"jsonrpc": "2.0", "id": 2, "method": "b", "params": {"x": 1}}
    assert isinstance(error, RpcError)
    assert (error.code, error.message) == (-32601, "nope")
    assert sent == [{"jsonrpc": "2.0", "id": "s1", "result": {"echo": "roots/list"}}]


def test_null_id_error_answers_the_only_request_in_flight() -> None:
    async def scenario() -> BaseException | None:
        dispatcher = Dispatcher(lambda _: None, lambda r: {})
        _, future = dispatcher.open("initialize", {})
        dispatcher.receive(jsonrpc.decode(
            '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}'
        ))
        return future.exception()

    error = asyncio.run(scenario())
    assert isinstance(error, RpcError)
    assert error.code == -32700
