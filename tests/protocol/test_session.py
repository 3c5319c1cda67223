"""Era detection, the handshake, paging and server requests, against a scripted server."""

from __future__ import annotations

import json
import time
from pathlib import Path

from mcpctl.protocol.session import CLIENT_INFO
from tests.protocol.conftest import ROOT_URI, run_failure, run_probe, scripted

THREE_TOOLS = ["tool_0", "tool_1", "tool_2"]


def names(tools: tuple[dict[str, object], ...]) -> list[object]:
    return [tool["name"] for tool in tools]


def test_handshake_era_server_after_a_refused_probe() -> None:
    result = run_probe(scripted())
    assert (result.style, result.protocol_version) == ("initialize", "2025-11-25")
    assert result.server_info == {"name": "old-server", "version": "1.0"}
    assert result.capabilities == {"tools": {}}
    assert result.client_capabilities == frozenset({"roots"})
    assert names(result.tools) == [*THREE_TOOLS, "needs_roots"]
    assert result.first_answer > 0
    assert result.elapsed - result.first_answer > 0  # the first answer came before the end


def test_declared_capabilities_reach_the_server() -> None:
    result = run_probe(scripted(), capabilities=frozenset({"roots", "sampling", "elicitation"}))
    assert names(result.tools) == [*THREE_TOOLS, "needs_elicitation", "needs_roots",
                                   "needs_sampling"]
    assert names(run_probe(scripted(), capabilities=frozenset()).tools) == THREE_TOOLS


def test_pages_are_followed_and_an_empty_cursor_is_a_cursor() -> None:
    # Cursors: first "" (must not end the listing), then "page-2", "page-3".
    result = run_probe(scripted("--pages", "4", "--tools", "7"))
    assert names(result.tools) == [f"tool_{i}" for i in range(7)] + ["needs_roots"]


def test_batch_reply_with_a_notification_in_it() -> None:
    assert names(run_probe(scripted("--batch")).tools) == [*THREE_TOOLS, "needs_roots"]


def test_roots_list_is_answered_with_the_workspace_root() -> None:
    result = run_probe(scripted("--ask", "roots/list"))
    assert json.loads(result.tools[0]["description"]) == {
        "roots": [{"uri": ROOT_URI, "name": "space dir"}]
    }


def test_roots_list_refused_without_the_roots_capability() -> None:
    result = run_probe(scripted("--ask", "roots/list"), capabilities=frozenset())
    assert json.loads(result.tools[0]["description"]) == {
        "code": -32601, "message": "mcpctl does not support roots/list"
    }


def test_ping_from_the_server_is_answered() -> None:
    result = run_probe(scripted("--ask", "ping"))
    assert json.loads(result.tools[0]["description"]) == {}


def test_older_handshake_version_is_accepted() -> None:
    result = run_probe(scripted("--version", "2024-11-05"))
    assert (result.style, result.protocol_version) == ("initialize", "2024-11-05")


def test_version_older_than_2024_11_05_is_refused() -> None:
    failure = run_failure(scripted("--version", "2024-10-07"))
    assert failure.diagnosis == (
        "server answered initialize with protocol version '2024-10-07'; "
        "mcpctl speaks 2024-11-05 to 2025-11-25"
    )


def test_modern_server_lists_with_meta_on_every_request() -> None:
    result = run_probe(scripted("--discover", "modern", "--pages", "2"))
    assert (result.style, result.protocol_version) == ("discover", "2026-07-28")
    assert result.server_info == {"name": "old-server", "version": "1"}
    # The capabilities came from `_meta` of each tools/list, not from a handshake.
    assert names(result.tools) == [*THREE_TOOLS, "needs_roots"]


def test_modern_input_required_roots_round_trip() -> None:
    result = run_probe(scripted("--discover", "modern", "--mrtr"))
    assert json.loads(result.tools[0]["description"]) == [
        {"r": {"roots": [{"uri": ROOT_URI, "name": "space dir"}]}}, "s1"
    ]


def test_modern_input_request_for_sampling_fails_clearly() -> None:
    failure = run_failure(scripted("--discover", "modern", "--mrtr"),
                          capabilities=frozenset())
    assert failure.diagnosis == "server needs roots/list input to list its tools"


def test_silent_probe_gets_initialize_behind_it_within_one_timeout(tmp_path: Path) -> None:
    log = tmp_path / "starts"
    started = time.monotonic()
    result = run_probe(scripted("--discover", "silent", "--log", str(log), timeout=2.0))
    waited = time.monotonic() - started
    assert result.style == "initialize"
    # `initialize` went out after half the timeout (a lower bound: load only lengthens
    # it), on the same connection: one start, not a second server after a timeout.
    assert waited >= 1.0
    assert log.read_text() == "start\n"


def test_unsupported_version_listing_a_handshake_version_falls_back(tmp_path: Path) -> None:
    log = tmp_path / "starts"
    result = run_probe(scripted("--discover", "unsupported:2025-11-25", "--log", str(log)))
    assert (result.style, result.protocol_version) == ("initialize", "2025-11-25")
    assert log.read_text() == "start\n"  # the same connection served the handshake


def test_unsupported_version_with_nothing_in_common_fails() -> None:
    failure = run_failure(scripted("--discover", "unsupported:2027-01-01,2027-06-01"))
    assert failure.diagnosis == (
        "server speaks protocol versions 2027-01-01, 2027-06-01; "
        "mcpctl speaks 2026-07-28 and 2024-11-05 to 2025-11-25"
    )


def test_connection_locked_modern_is_replaced_by_a_fresh_one(tmp_path: Path) -> None:
    log = tmp_path / "starts"
    plan = scripted("--discover", "legacy-result", "--lock", "--log", str(log))
    result = run_probe(plan)
    assert (result.style, result.protocol_version) == ("initialize", "2025-11-25")
    assert log.read_text() == "start\nstart\n"


def test_server_that_exits_after_answering_the_probe_is_restarted(tmp_path: Path) -> None:
    log = tmp_path / "starts"
    result = run_probe(scripted("--discover", "exit", "--log", str(log)))
    assert result.style == "initialize"
    assert log.read_text() == "start\nstart\n"


def test_client_info_names_mcpctl() -> None:
    assert CLIENT_INFO["name"] == "mcpctl"
