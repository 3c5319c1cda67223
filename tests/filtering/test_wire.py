"""The tool filter on JSON-RPC lines: what reaches the server, what the client sees."""

from __future__ import annotations

import json
from typing import Any

from mcpctl.filtering.live import LiveFilter
from mcpctl.filtering.policy import ToolPolicy
from mcpctl.filtering.wire import ToolGate

TOOLS: list[dict[str, Any]] = [{"name": "read", "annotations": {"readOnlyHint": True}},
         {"name": "write", "annotations": {"destructiveHint": True}},
         {"name": "rm"}]


def gate(policy: ToolPolicy, cached: list[dict[str, Any]] | None = None,
         tokens: list[int] | None = None) -> tuple[ToolGate, list[str]]:
    said: list[str] = []
    return ToolGate(LiveFilter("fs", policy, cached or [], tokens), said.append), said


def line(message: Any) -> bytes:
    return json.dumps(message).encode()


def call(name: str, request_id: Any = 7) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": name, "arguments": {}}}


def asked(g: ToolGate, request_id: Any = 1) -> str:
    """Send a tools/list; the id the server gets instead of the client's."""
    forward, answer = g.from_client(line({"jsonrpc": "2.0", "id": request_id,
                                          "method": "tools/list"}))
    assert answer is None
    assert forward is not None
    sent = json.loads(forward)
    assert sent["id"].startswith("mcpctl-")
    assert sent == {"jsonrpc": "2.0", "id": sent["id"], "method": "tools/list"}
    return str(sent["id"])


def listed(g: ToolGate, tools: list[dict[str, Any]], request_id: Any = 1) -> list[str]:
    slot = asked(g, request_id)
    out = g.from_server(line({"jsonrpc": "2.0", "id": slot,
                              "result": {"tools": tools, "nextCursor": "p2"}}))
    assert out is not None
    answer = json.loads(out)
    assert answer["id"] == request_id
    assert answer["result"]["nextCursor"] == "p2"  # the rest of the page is kept
    return [t["name"] for t in answer["result"]["tools"]]


def test_a_call_to_a_tool_that_is_off_is_answered_here_and_never_sent() -> None:
    g, _ = gate(ToolPolicy(disabled=("write",)))
    forward, answer = g.from_client(line(call("write", "a")))
    assert forward is None
    assert answer is not None
    assert json.loads(answer) == {"jsonrpc": "2.0", "id": "a", "error": {
        "code": -32602, "message": "mcpctl: tool 'write' of server 'fs' is switched off "
        "(disabled); switch it on with: mcpctl tools fs --enable write"}}
    sent = line(call("read"))
    assert g.from_client(sent) == (sent, None)


def test_an_escaped_method_name_is_still_a_call() -> None:
    """JSON lets `/` be written `\\/` and any letter as `\\u00XX`: a substring test for
    "tools/call" would let these through to the server."""
    g, _ = gate(ToolPolicy(disabled=("write",)))
    for text in (b'{"jsonrpc":"2.0","id":1,"method":"tools\\/call","params":{"name":"write"}}',
                 b'{"jsonrpc":"2.0","id":1,"method":"tools/c\\u0061ll",'
                 b'"params":{"name":"wr\\u0069te"}}'):
        forward, answer = g.from_client(text)
        assert forward is None
        assert answer is not None


def test_a_batch_is_split_into_what_goes_on_and_what_is_refused() -> None:
    g, _ = gate(ToolPolicy(disabled=("write",)))
    notification = {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "write"}}
    forward, answer = g.from_client(line([call("read", 1), call("write", 2), notification]))
    assert forward is not None
    assert answer is not None
    assert [m["id"] for m in json.loads(forward)] == [1]
    assert [m["id"] for m in json.loads(answer)] == [2]  # a notification gets no answer
    assert g.from_client(line(notification)) == (None, None)


def test_tools_list_answers_lose_the_tools_that_are_off() -> None:
    g, _ = gate(ToolPolicy(deny_destructive=True))
    assert listed(g, TOOLS) == ["read"]
    # Other answers with the same id later, and server requests, pass as they were.
    other = line({"jsonrpc": "2.0", "id": 1, "result": {"tools": TOOLS}})
    assert g.from_server(other) == other


def test_a_call_is_judged_by_the_definition_last_listed() -> None:
    g, _ = gate(ToolPolicy(deny_destructive=True))
    # Never listed: no annotations, which the spec's defaults make destructive.
    assert g.from_client(line(call("read")))[0] is None
    listed(g, TOOLS)
    assert g.from_client(line(call("read")))[0] is not None
    # The server redefines it as destructive: the next listing teaches the gate.
    listed(g, [{"name": "read", "annotations": {"destructiveHint": True}}], request_id=2)
    assert g.from_client(line(call("read")))[0] is None


def test_a_new_tool_under_only_is_left_out_and_reported_once() -> None:
    g, said = gate(ToolPolicy(only=("*",), known=("read", "write")))
    assert listed(g, TOOLS) == ["read", "write"]
    assert listed(g, TOOLS, request_id=2) == ["read", "write"]
    assert said == ["mcpctl: server 'fs' lists a new tool 'rm'; it is off until you switch "
                    "it on: mcpctl tools fs --enable rm"]
    assert g.from_client(line(call("rm")))[0] is None


def test_the_budget_is_spent_on_the_cached_probe() -> None:
    g, _ = gate(ToolPolicy(budget=100, known=("read", "write", "rm")), TOOLS, [60, 50, 40])
    assert listed(g, TOOLS) == ["write", "rm"]  # the cheapest two fit in 100
    # Without a cached probe there is nothing to measure by: fail closed.
    g, _ = gate(ToolPolicy(budget=100, known=("read", "write", "rm")))
    assert listed(g, TOOLS) == []


def test_lines_that_are_not_json_or_not_awaited_pass_unchanged() -> None:
    g, _ = gate(ToolPolicy(disabled=("write",)))
    assert g.from_client(b"not json") == (b"not json", None)
    assert g.from_server(b'{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"write"}]}}') \
        == b'{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"write"}]}}'


def test_the_answers_to_a_batch_are_filtered_too() -> None:
    """Without this, a client that batched its tools/list saw every tool."""
    g, _ = gate(ToolPolicy(disabled=("write",)))
    forward, _ = g.from_client(line([{"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                     {"jsonrpc": "2.0", "id": 2, "method": "ping"}]))
    assert forward is not None
    slot, ping = (m["id"] for m in json.loads(forward))
    assert ping == 2
    out = g.from_server(line([{"jsonrpc": "2.0", "id": 2, "result": {}},
                              {"jsonrpc": "2.0", "id": slot, "result": {"tools": TOOLS}}]))
    assert out is not None
    answers = json.loads(out)
    assert answers[0] == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert answers[1]["id"] == 1
    assert [t["name"] for t in answers[1]["result"]["tools"]] == ["read", "rm"]


def test_a_key_written_twice_is_refused_whatever_this_parser_makes_of_it() -> None:
    """Python's json keeps the last of two keys; a server whose parser keeps the first
    would run `tools/call` of `write` where the gate read a ping. Without the check the
    first line below is forwarded."""
    g, _ = gate(ToolPolicy(disabled=("write",)))
    sneaky = (b'{"jsonrpc":"2.0","id":5,"method":"tools/call","method":"ping",'
              b'"params":{"name":"write"}}')
    forward, answer = g.from_client(sneaky)
    assert forward is None
    assert answer is not None
    assert json.loads(answer) == {"jsonrpc": "2.0", "id": 5, "error": {
        "code": -32600, "message": "mcpctl: key 'method' written twice in one object; not "
        "sent to the server"}}
    nested = (b'{"jsonrpc":"2.0","id":6,"method":"tools/call",'
              b'"params":{"name":"read","name":"write"}}')
    assert g.from_client(nested)[0] is None


def test_a_call_whose_name_is_not_a_string_is_refused() -> None:
    g, _ = gate(ToolPolicy(disabled=("write",)))
    forward, answer = g.from_client(line({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                          "params": {"name": ["write"]}}))
    assert forward is None
    assert answer is not None
    assert json.loads(answer)["error"]["message"] == \
        "mcpctl: tools/call refused: a tool name must be a string"


def test_a_tool_listed_with_two_names_reaches_the_client_with_the_one_judged() -> None:
    """Passing the answer on as it came (nothing removed) would let a client that keeps
    the first of two keys see `write`, which is off."""
    g, _ = gate(ToolPolicy(disabled=("write",)))
    slot = asked(g)
    out = g.from_server(b'{"jsonrpc":"2.0","id":"' + slot.encode() + b'","result":{"tools":'
                        b'[{"name":"write","name":"read"}]}}')
    assert out is not None
    assert b'"write"' not in out
    assert json.loads(out)["result"]["tools"] == [{"name": "read"}]


def answer_line(slot: str, tools: list[dict[str, Any]]) -> bytes:
    return line({"jsonrpc": "2.0", "id": slot, "result": {"tools": tools}})


def test_the_server_never_sees_the_clients_id_and_the_client_gets_its_own_back() -> None:
    g, _ = gate(ToolPolicy(disabled=("write",)))
    slots = [asked(g, "x"), asked(g, 9)]
    assert len(set(slots)) == 2
    assert "x" not in slots[0]
    second = g.from_server(answer_line(slots[1], TOOLS))
    first = g.from_server(answer_line(slots[0], TOOLS))
    assert second is not None
    assert first is not None
    assert json.loads(second)["id"] == 9
    assert json.loads(first)["id"] == "x"
    assert g.slots == {}


def test_an_answer_seen_before_is_written_from_its_template_and_a_changed_one_is_judged() -> None:
    """The second answer is the first with another id: the same tools reach the client
    (from the template). The third adds a tool and changes one: judged again."""
    g, said = gate(ToolPolicy(only=("read*", "rm"), known=("read", "rm", "write"),
                              deny_destructive=True))
    tools: list[dict[str, Any]] = [{"name": "read", "annotations": {"readOnlyHint": True}},
                                   {"name": "rm", "annotations": {"readOnlyHint": True}},
                                   {"name": "write"}]
    outs = []
    for request_id in (1, 2):
        out = g.from_server(answer_line(asked(g, request_id), tools))
        assert out is not None
        outs.append(json.loads(out))
    assert outs[0]["result"] == outs[1]["result"]
    assert [t["name"] for t in outs[1]["result"]["tools"]] == ["read", "rm"]
    assert len(g.templates.entries) == 1
    pulled = [*tools, {"name": "read_secrets", "annotations": {"readOnlyHint": True}}]
    pulled[1] = {"name": "rm", "annotations": {"destructiveHint": True}}
    out = g.from_server(answer_line(asked(g, 3), pulled))
    assert out is not None
    assert [t["name"] for t in json.loads(out)["result"]["tools"]] == ["read"]
    assert said == ["mcpctl: server 'fs' lists a new tool 'read_secrets'; it is off until "
                    "you switch it on: mcpctl tools fs --enable read_secrets"]
    assert g.from_client(line(call("rm")))[0] is None  # judged by its new definition
    # The first answer again: its template, and its definitions are the last seen again.
    out = g.from_server(answer_line(asked(g, 4), tools))
    assert out is not None
    assert [t["name"] for t in json.loads(out)["result"]["tools"]] == ["read", "rm"]
    assert g.from_client(line(call("rm")))[0] is not None


def test_an_answer_to_the_clients_own_id_comes_from_the_server_only_by_forgery() -> None:
    """The server was sent the gate's id; an answer under the client's id would reach
    the client unjudged if it were passed on (as a line no tools/list awaits is)."""
    g, _ = gate(ToolPolicy(disabled=("write",)))
    slot = asked(g, 5)
    assert g.from_server(line({"jsonrpc": "2.0", "id": 5, "result": {"tools": TOOLS}})) is None
    batch = g.from_server(line([{"jsonrpc": "2.0", "id": 5, "result": {"tools": TOOLS}},
                                {"jsonrpc": "2.0", "id": slot, "result": {"tools": TOOLS}}]))
    assert batch is not None
    assert [[t["name"] for t in a["result"]["tools"]] for a in json.loads(batch)] == \
        [["read", "rm"]]
    # Once answered, lines pass as they are again.
    late = line({"jsonrpc": "2.0", "id": 5, "result": {"tools": TOOLS}})
    assert g.from_server(late) == late


def test_a_cancellation_names_the_id_the_server_was_sent() -> None:
    g, _ = gate(ToolPolicy(disabled=("write",)))
    slot = asked(g, 5)
    forward, _ = g.from_client(line({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                     "params": {"requestId": 5, "reason": "bored"}}))
    assert forward is not None
    assert json.loads(forward)["params"] == {"requestId": slot, "reason": "bored"}
    other = line({"jsonrpc": "2.0", "method": "notifications/cancelled",
                  "params": {"requestId": 6}})
    assert g.from_client(other) == (other, None)


def test_a_listing_whose_id_cannot_be_mapped_back_is_refused() -> None:
    """Before, an id of null (or a float) was not awaited, so its answer passed unjudged."""
    g, _ = gate(ToolPolicy(disabled=("write",)))
    for request_id in (None, 1.5, True, [1]):
        forward, answer = g.from_client(line({"jsonrpc": "2.0", "id": request_id,
                                              "method": "tools/list"}))
        assert forward is None
        assert answer is not None
        assert json.loads(answer)["error"] == {
            "code": -32600, "message": "mcpctl: a request id must be a string or an integer"}
    assert g.slots == {}


def test_an_error_answer_gets_the_clients_id_back() -> None:
    g, _ = gate(ToolPolicy(disabled=("write",)))
    slot = asked(g, "a")
    out = g.from_server(line({"jsonrpc": "2.0", "id": slot,
                              "error": {"code": -32601, "message": "no"}}))
    assert out is not None
    assert json.loads(out) == {"id": "a", "jsonrpc": "2.0",
                               "error": {"code": -32601, "message": "no"}}


def test_a_line_read_in_place_is_replayed_only_when_it_is_exactly_a_template() -> None:
    g, _ = gate(ToolPolicy(disabled=("write",)))
    assert g.from_server(answer_line(asked(g, 1), TOOLS)) is not None
    slot = asked(g, 2)
    buffer = bytearray(answer_line(slot, TOOLS) + b"\n")
    changed = bytearray(answer_line(slot, [*TOOLS, {"name": "new"}]) + b"\n")
    assert g.replayed(changed, len(changed) - 1) is None
    out = g.replayed(buffer, len(buffer) - 1)
    assert out is not None
    assert json.loads(out)["id"] == 2
    assert [t["name"] for t in json.loads(out)["result"]["tools"]] == ["read", "rm"]
    assert g.replayed(buffer, len(buffer) - 1) is None  # answered: no id in flight
