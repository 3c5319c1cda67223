"""Edges of the MCP conversation: late probe answers, refusals, odd pages and rounds.

Each server here is a script that answers in a fixed order, so the era race and the
listing take the same path on an idle or a loaded machine. A server that must see an
answer acted on before it sends the next one asks the client a `ping` in between: the
client answers it only after it has taken in everything sent before it.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from mcpctl.protocol.probe import LaunchPlan
from tests.protocol.conftest import (
    ROOT_URI,
    Hostile,
    run_failure,
    run_probe,
    scripted,
    survivors,
)

# A hang (a loop that never yields) fails its test at this bound instead of the run.
pytestmark = pytest.mark.timeout(60)
RACE = 6.0  # the probe is silent for half of it; then `initialize` goes behind it

SERVER = '''\
STARTS = sys.argv[0] + ".starts"
with open(STARTS, "a", encoding="utf-8") as starts:
    starts.write("start\\n")
with open(STARTS, encoding="utf-8") as starts:
    FIRST = starts.read() == "start\\n"

def answer(request, result):
    send({"jsonrpc": "2.0", "id": request["id"], "result": result})

def refuse(request, code, message, data=None):
    error = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    send({"jsonrpc": "2.0", "id": request["id"], "error": error})

def sync():
    """Ask the client a ping and wait for its answer."""
    send({"jsonrpc": "2.0", "id": "sync", "method": "ping"})
    for message in requests():
        if message.get("id") == "sync":
            return

def note():
    send({"jsonrpc": "2.0", "method": "notifications/message",
          "params": {"level": "info", "data": "starting"}})

MODERN = {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
          "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern", "version": "2"}}}
LEGACY = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
          "serverInfo": {"name": "legacy", "version": "1"}}
TOOL = {"name": "t", "inputSchema": {"type": "object"}}
NOT_FOUND = {"code": -32601, "message": "Method not found"}
LOCKED = {"code": -32022, "message": "connection is modern", "data": {"supported": ["2026-07-28"]}}

'''


def server(hostile: Hostile, code: str, timeout: float = 3.0) -> tuple[LaunchPlan, str]:
    return hostile(SERVER + textwrap.dedent(code), timeout)


def starts(plan: LaunchPlan) -> str:
    return Path(plan.argv[1] + ".starts").read_text(encoding="utf-8")


def tool_names(tools: tuple[dict[str, object], ...]) -> list[object]:
    return [tool["name"] for tool in tools]


# --- the era race: the probe silent for half the timeout, `initialize` behind it ----


def test_probe_answer_arriving_with_the_handshake_answer_wins(hostile: Hostile) -> None:
    """Both answers come in one batch after the probe was overtaken: the modern one
    decides, though `initialize` answered too.

    Planted: the probe's answer not looked at in the race (`session.py:251` drop-if,
    `session.py:271` if-true), and its modern verdict dropped (`session.py:253`
    drop-if); each time the probe ended in the handshake era."""
    plan, marker = server(hostile, """\
        for request in requests():
            if request["method"] == "server/discover":
                discover = request
            elif request["method"] == "initialize":
                send([{"jsonrpc": "2.0", "id": discover["id"], "result": MODERN},
                      {"jsonrpc": "2.0", "id": request["id"], "result": LEGACY}])
            elif request["method"] == "tools/list" and "_meta" in request["params"]:
                answer(request, {"tools": [TOOL]})
        """, RACE)
    result = run_probe(plan)
    assert (result.style, result.protocol_version) == ("discover", "2026-07-28")
    assert result.server_info == {"name": "modern", "version": "2"}
    assert tool_names(result.tools) == ["t"]
    assert starts(plan) == "start\n"
    assert survivors(marker) == []


def test_late_refused_probe_leaves_the_handshake_answer(hostile: Hostile) -> None:
    """The probe refused with -32601 in the same batch as the handshake answer: the
    handshake era, on the same connection.

    Planted: the race returning whatever the probe's verdict was, None included
    (`session.py:253` if-true): the probe failed on a handshake that was None."""
    plan, marker = server(hostile, """\
        for request in requests():
            if request["method"] == "server/discover":
                discover = request
            elif request["method"] == "initialize":
                send([{"jsonrpc": "2.0", "id": discover["id"], "error": NOT_FOUND},
                      {"jsonrpc": "2.0", "id": request["id"], "result": LEGACY}])
            elif request["method"] == "tools/list":
                answer(request, {"tools": [TOOL]})
        """, RACE)
    result = run_probe(plan)
    assert (result.style, result.protocol_version) == ("initialize", "2025-11-25")
    assert result.server_info == {"name": "legacy", "version": "1"}
    assert tool_names(result.tools) == ["t"]
    assert starts(plan) == "start\n"
    assert survivors(marker) == []


def test_late_refused_probe_then_the_handshake_answer(hostile: Hostile) -> None:
    """The probe refused with -32601 first, the handshake answered after a ping: the
    race waits on for `initialize` on the same connection.

    Planted: the handshake's outcome read before it came (`session.py:258` if-true):
    the probe failed on a future not done; the race gave the connection up as spoiled
    whenever nothing had won yet (`session.py:262` if-true): a second server started,
    and the probe failed on it."""
    plan, marker = server(hostile, """\
        for request in requests():
            if request["method"] == "server/discover":
                discover = request
            elif request["method"] == "initialize":
                refuse(discover, -32601, "Method not found")
                sync()
                answer(request, LEGACY)
            elif request["method"] == "tools/list":
                answer(request, {"tools": [TOOL]})
        """, RACE)
    result = run_probe(plan)
    assert (result.style, result.protocol_version) == ("initialize", "2025-11-25")
    assert tool_names(result.tools) == ["t"]
    assert starts(plan) == "start\n"
    assert survivors(marker) == []


def test_handshake_refused_as_modern_then_the_probe_answers(hostile: Hostile) -> None:
    """`initialize` refused with -32022 while the probe is pending, then (after a
    ping) the probe answers modern: the modern era, on the one connection.

    Planted: the -32022 taken as the verdict (`session.py:259` if-true): a second
    server was started for the handshake era; the handshake's future cancelled after
    it was given up (`session.py:254` if-true): the probe failed on None."""
    plan, marker = server(hostile, """\
        for request in requests():
            if request["method"] == "server/discover":
                discover = request
            elif request["method"] == "initialize" and FIRST:
                send({"jsonrpc": "2.0", "id": request["id"], "error": LOCKED})
                sync()
                answer(discover, MODERN)
            elif request["method"] == "initialize":
                answer(request, LEGACY)
            elif request["method"] == "tools/list":
                answer(request, {"tools": [TOOL]})
        """, RACE)
    result = run_probe(plan)
    assert (result.style, result.protocol_version) == ("discover", "2026-07-28")
    assert result.server_info == {"name": "modern", "version": "2"}
    assert starts(plan) == "start\n"
    assert survivors(marker) == []


def test_handshake_refused_as_modern_then_a_legacy_probe_answer(hostile: Hostile) -> None:
    """`initialize` refused with -32022, then the probe answers naming no modern
    version: neither era is usable here, so a fresh server hears `initialize` alone.

    Planted: the respawn when both answers are spent dropped (`session.py:262`
    drop-if, `session.py:263` drop-raise): the race looped on nothing, never yielding,
    until the test's bound."""
    plan, marker = server(hostile, """\
        for request in requests():
            if request["method"] == "server/discover":
                discover = request
            elif request["method"] == "initialize" and FIRST:
                send({"jsonrpc": "2.0", "id": request["id"], "error": LOCKED})
                sync()
                answer(discover, {"supportedVersions": ["2025-11-25"]})
            elif request["method"] == "initialize":
                answer(request, LEGACY)
            elif request["method"] == "tools/list":
                answer(request, {"tools": [TOOL]})
        """, RACE)
    result = run_probe(plan)
    assert (result.style, result.protocol_version) == ("initialize", "2025-11-25")
    assert tool_names(result.tools) == ["t"]
    assert starts(plan) == "start\nstart\n"
    assert survivors(marker) == []


def test_handshake_overtaken_by_the_probe_is_forgotten(hostile: Hostile) -> None:
    """The probe answers modern while `initialize` is pending: the handshake request is
    given up, so an error with a null id later can only be about tools/list.

    Planted: the pending handshake not cancelled (`session.py:255` drop-call,
    `session.py:254` drop-if): two requests were in flight, the null-id error matched
    neither, and the probe timed out on tools/list."""
    plan, marker = server(hostile, """\
        for request in requests():
            if request["method"] == "server/discover":
                discover = request
            elif request["method"] == "initialize":
                answer(discover, MODERN)
            elif request["method"] == "tools/list":
                send({"jsonrpc": "2.0", "id": None,
                      "error": {"code": -32700, "message": "Parse error"}})
        """, RACE)
    failure = run_failure(plan)
    assert failure.diagnosis == "server refused tools/list: Parse error (-32700)"
    assert survivors(marker) == []


def test_server_that_exits_on_the_handshake_before_any_answer(hostile: Hostile) -> None:
    """Silent on the probe, gone on `initialize` without a word: the exit is the
    diagnosis (nothing was answered, so a fresh server would not help).

    Planted: `_refused` reading an error code from any error (`session.py:318`
    if-true): the probe failed with an unexpected AttributeError."""
    plan, marker = server(hostile, """\
        for request in requests():
            if request["method"] == "initialize":
                sys.exit(0)
        """, RACE)
    failure = run_failure(plan)
    assert failure.diagnosis == "server exited with code 0 before answering"
    assert starts(plan) == "start\n"
    assert survivors(marker) == []


def test_server_that_exits_on_the_handshake_after_speaking_is_restarted(
    hostile: Hostile,
) -> None:
    """Silent on the probe after a notification, gone on `initialize`: the connection
    is spoiled, and a fresh server hears `initialize` alone.

    Planted: the closed probe not set aside in the race (`session.py:271` drop-if):
    the probe failed with the first server's exit."""
    plan, marker = server(hostile, """\
        if FIRST:
            note()
        for request in requests():
            if request["method"] == "initialize" and FIRST:
                sys.exit(0)
            elif request["method"] == "initialize":
                answer(request, LEGACY)
            elif request["method"] == "tools/list":
                answer(request, {"tools": [TOOL]})
        """, RACE)
    result = run_probe(plan)
    assert (result.style, result.protocol_version) == ("initialize", "2025-11-25")
    assert tool_names(result.tools) == ["t"]
    assert starts(plan) == "start\nstart\n"
    assert survivors(marker) == []


# --- the probe answered in time ---------------------------------------------------------


def test_server_that_exits_on_the_probe_after_speaking_is_restarted(
    hostile: Hostile,
) -> None:
    """A notification, then exit on `server/discover`: the connection ended after the
    server spoke, so a fresh server hears `initialize` alone.

    Planted: the respawn after a closed probe dropped (`session.py:234` drop-raise):
    the probe failed with the first server's exit."""
    plan, marker = server(hostile, """\
        if FIRST:
            note()
        for request in requests():
            if request["method"] == "server/discover":
                sys.exit(0)
            elif request["method"] == "initialize":
                answer(request, LEGACY)
            elif request["method"] == "tools/list":
                answer(request, {"tools": [TOOL]})
        """, RACE)
    result = run_probe(plan)
    assert (result.style, result.protocol_version) == ("initialize", "2025-11-25")
    assert starts(plan) == "start\nstart\n"
    assert survivors(marker) == []


@pytest.mark.parametrize("code", [-32020, -32021])
def test_modern_error_to_the_probe_is_a_refusal(hostile: Hostile, code: int) -> None:
    """A 2026-07-28 error code in reply to `server/discover` marks a modern server that
    refused: no handshake is tried.

    Planted: the check of modern codes dropped (`session.py:202` drop-if) or its raise
    dropped (`session.py:203` drop-raise): the probe went on to the legacy handshake
    and listed the tools."""
    plan, marker = server(hostile, f"""\
        for request in requests():
            if request["method"] == "server/discover":
                refuse(request, {code}, "needs sampling")
            elif request["method"] == "initialize":
                answer(request, LEGACY)
            elif request["method"] == "tools/list":
                answer(request, {{"tools": [TOOL]}})
        """)
    failure = run_failure(plan)
    assert failure.diagnosis == "server refused server/discover: needs sampling"
    assert survivors(marker) == []


# --- refusals ---------------------------------------------------------------------------


def test_refused_handshake(hostile: Hostile) -> None:
    """`initialize` refused with an ordinary error: the message and code are the
    diagnosis.

    Planted: the raise of the refusal dropped (`session.py:283` drop-raise) and the
    RpcError case of `_refused` dropped (`session.py:318` drop-if): the probe failed
    with an unexpected RpcError."""
    plan, marker = server(hostile, """\
        for request in requests():
            if request["method"] == "server/discover":
                refuse(request, -32601, "Method not found")
            elif request["method"] == "initialize":
                refuse(request, -32603, "not today")
        """)
    failure = run_failure(plan)
    assert failure.diagnosis == "server refused initialize: not today (-32603)"
    assert survivors(marker) == []


def test_refused_handshake_on_the_fresh_connection(hostile: Hostile) -> None:
    """The first connection is spoiled (-32022 after a legacy probe answer); the fresh
    one refuses `initialize`: that refusal is the diagnosis.

    Planted: the raise of the refusal on the fresh connection dropped
    (`session.py:293` drop-raise): the probe failed with an unexpected
    UnboundLocalError."""
    plan, marker = server(hostile, """\
        for request in requests():
            if request["method"] == "server/discover":
                answer(request, {"supportedVersions": ["2025-11-25"]})
            elif request["method"] == "initialize" and FIRST:
                send({"jsonrpc": "2.0", "id": request["id"], "error": LOCKED})
            elif request["method"] == "initialize":
                refuse(request, -32603, "not today")
        """)
    failure = run_failure(plan)
    assert failure.diagnosis == "server refused initialize: not today (-32603)"
    assert starts(plan) == "start\nstart\n"
    assert survivors(marker) == []


def test_refused_tools_list(hostile: Hostile) -> None:
    """tools/list refused: the message and code are the diagnosis.

    Planted: the raise of the refusal dropped (`session.py:411` drop-raise): the probe
    failed with an unexpected AttributeError."""
    plan, marker = server(hostile, """\
        for request in requests():
            if request["method"] == "tools/list":
                refuse(request, -32603, "no tools today")
            else:
                handshake_answer(request)
        """)
    failure = run_failure(plan)
    assert failure.diagnosis == "server refused tools/list: no tools today (-32603)"
    assert survivors(marker) == []


# --- pages ------------------------------------------------------------------------------


@pytest.mark.parametrize("page", [{"tools": {"t": {"name": "t"}}}, {"tools": [1]}, {}])
def test_page_without_a_list_of_tools(hostile: Hostile, page: dict[str, object]) -> None:
    """A tools/list result whose `tools` is missing, not a list, or holds a non-object.

    Planted: the check dropped (`session.py:336` drop-if) or its raise dropped
    (`session.py:337` drop-raise): the probe failed with an unexpected TypeError or
    AttributeError."""
    plan, marker = server(hostile, f"""\
        for request in requests():
            if request["method"] == "tools/list":
                answer(request, {json.dumps(page)})
            else:
                handshake_answer(request)
        """)
    failure = run_failure(plan)
    assert failure.diagnosis == "tools/list result has no list of tool objects"
    assert survivors(marker) == []


def test_non_string_cursor(hostile: Hostile) -> None:
    """A nextCursor of 7 is not followed: a cursor is a string.

    Planted: the check dropped (`session.py:344` drop-if) or its raise dropped
    (`session.py:345` drop-raise): the probe sent 7 back as a cursor and listed two
    pages."""
    plan, marker = server(hostile, """\
        for request in requests():
            if request["method"] == "tools/list":
                cursor = request.get("params", {}).get("cursor")
                answer(request, {"tools": [TOOL], **({} if cursor else {"nextCursor": 7})})
            else:
                handshake_answer(request)
        """)
    failure = run_failure(plan)
    assert failure.diagnosis == "tools/list returned a non-string nextCursor 7"
    assert survivors(marker) == []


def test_endless_pages_stop_at_200(hostile: Hostile) -> None:
    """A server with a next page forever is asked for 200 pages, not one more.

    Planted: the bound widened to 3200 (`session.py:34` widen-bound): the probe asked
    a 201st page, and the server (which ends there) was diagnosed as exited."""
    plan, marker = server(hostile, """\
        pages = 0
        for request in requests():
            if request["method"] == "tools/list":
                pages += 1
                if pages > 200:
                    sys.exit(0)
                answer(request, {"tools": [], "nextCursor": str(pages)})
            else:
                handshake_answer(request)
        """)
    failure = run_failure(plan)
    assert failure.diagnosis == "tools/list still had more pages after 200; stopped"
    assert survivors(marker) == []


# --- server requests and input rounds ---------------------------------------------------


def test_request_named_like_roots_list_is_not_answered_with_roots() -> None:
    """Only `roots/list` itself gets the roots; `roots/listing` is not supported.

    Planted: the method compared by its first 8 characters (`session.py:114`
    prefix-eq): `roots/listing` was answered with the roots."""
    result = run_probe(scripted("--ask", "roots/listing"))
    assert json.loads(result.tools[0]["description"]) == {
        "code": -32601, "message": "mcpctl does not support roots/listing"
    }


MODERN_LIST = """\
rounds = []
for request in requests():
    if request["method"] == "server/discover":
        answer(request, MODERN)
    elif request["method"] == "tools/list":
        params = dict(request["params"])
        params.pop("_meta")
        rounds.append(params)
        if len(rounds) > 3:
            sys.exit(0)
"""


def test_input_wanted_forever_stops_after_three_rounds(hostile: Hostile) -> None:
    """A modern server that wants roots on every round is asked three times.

    Planted: the bound widened to 48 (`session.py:35` widen-bound): the probe asked a
    fourth time, and the server (which ends there) was diagnosed as exited; the raise
    after the last round dropped (`session.py:384` drop-raise): an unexpected
    AttributeError."""
    plan, marker = server(hostile, MODERN_LIST + """\
        answer(request, {"resultType": "input_required", "requestState": "s",
                         "inputRequests": {"r": {"method": "roots/list"}}})
""")
    failure = run_failure(plan)
    assert failure.diagnosis == "server still wanted input after 3 rounds"
    assert survivors(marker) == []


def test_result_type_like_input_required_is_a_complete_result(hostile: Hostile) -> None:
    """Only `input_required` asks for another round; `input_requested` is a result.

    Planted: the result type compared by its first 8 characters (`session.py:381`
    prefix-eq): the probe answered it as a request for input, round after round."""
    plan, marker = server(hostile, MODERN_LIST + """\
        answer(request, {"resultType": "input_requested", "tools": [TOOL]})
""")
    result = run_probe(plan)
    assert tool_names(result.tools) == ["t"]
    assert survivors(marker) == []


def test_input_request_named_like_roots_list_fails(hostile: Hostile) -> None:
    """An input request for `roots/listing` is not one mcpctl can answer.

    Planted: the method compared by its first 8 characters (`session.py:393`
    prefix-eq): the probe answered it with the roots and listed the tools."""
    plan, marker = server(hostile, MODERN_LIST + """\
        if len(rounds) == 1:
            answer(request, {"resultType": "input_required",
                             "inputRequests": {"r": {"method": "roots/listing"}}})
        else:
            answer(request, {"tools": [TOOL]})
""")
    failure = run_failure(plan)
    assert failure.diagnosis == "server needs roots/listing input to list its tools"
    assert survivors(marker) == []


def test_input_round_without_request_state(hostile: Hostile) -> None:
    """An input request with no requestState is answered with the roots alone.

    Planted: requestState copied whether or not it was a string (`session.py:397`
    if-true): the probe failed with an unexpected KeyError."""
    plan, marker = server(hostile, MODERN_LIST + """\
        if len(rounds) == 1:
            answer(request, {"resultType": "input_required",
                             "inputRequests": {"r": {"method": "roots/list"}}})
        else:
            answer(request, {"tools": [{**TOOL, "description": json.dumps(rounds)}]})
""")
    result = run_probe(plan)
    assert json.loads(result.tools[0]["description"]) == [
        {}, {"inputResponses": {"r": {"roots": [{"uri": ROOT_URI, "name": "space dir"}]}}},
    ]
    assert survivors(marker) == []
