"""Against real servers: the official Python SDK (both eras, stdio and Streamable HTTP)
and the npm reference servers `everything` and `memory`."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from pathlib import Path

import pytest

from mcpctl.model import Transport
from mcpctl.protocol.probe import LaunchPlan, ProbeFailure, ProbeResult, probe_many
from mcpctl.tokens.count import tool_tokens
from tests.protocol.conftest import (
    FIXTURES,
    SDK_SERVER,
    free_port,
    http_server,
    refusing_port,
    require_npm_server,
    run_failure,
    run_probe,
    scripted,
    stdio_plan,
)

ALL_CAPABILITIES = frozenset({"roots", "sampling", "elicitation"})


def fixture_counts(server: str) -> list[tuple[str, int]]:
    data = json.loads((FIXTURES / f"{server}.json").read_text())
    return [(entry["name"], entry["o200k_tokens"]) for entry in data["per_tool"]]


def counts(result: ProbeResult) -> list[tuple[str, int]]:
    return [(tool["name"], tool_tokens(tool)) for tool in result.tools]


def test_sdk_server_speaks_the_stateless_revision() -> None:
    result = run_probe(stdio_plan(sys.executable, str(SDK_SERVER), timeout=10))
    assert (result.style, result.protocol_version) == ("discover", "2026-07-28")
    assert result.server_info == {"name": "sdk-reference", "version": ""}
    assert [tool["name"] for tool in result.tools] == ["add", "shout"]
    assert result.tools[1]["description"] == "Upper-case the text — loudly."
    assert "tools" in result.capabilities


def test_everything_over_stdio_matches_the_fixture_token_for_token() -> None:
    entry = require_npm_server("server-everything")
    result = run_probe(stdio_plan("node", str(entry), "stdio", timeout=10),
                       capabilities=frozenset())
    assert (result.style, result.protocol_version) == ("initialize", "2025-11-25")
    assert result.server_info["name"] == "mcp-servers/everything"
    assert counts(result) == fixture_counts("everything")
    assert result.stderr_head == ("Starting default (STDIO) server...",)


@pytest.mark.parametrize(("capabilities", "tool_count"), [
    (frozenset({"roots"}), 14), (ALL_CAPABILITIES, 17),
])
def test_everything_lists_more_tools_for_more_capabilities(
    capabilities: frozenset[str], tool_count: int
) -> None:
    entry = require_npm_server("server-everything")
    result = run_probe(stdio_plan("node", str(entry), "stdio", timeout=10),
                       capabilities=capabilities)
    assert len(result.tools) == tool_count
    assert result.client_capabilities == capabilities


def test_memory_matches_the_fixture_token_for_token() -> None:
    entry = require_npm_server("server-memory")
    result = run_probe(stdio_plan("node", str(entry), timeout=10))
    assert result.server_info == {"name": "memory-server", "version": "0.6.3"}
    assert counts(result) == fixture_counts("memory")


@pytest.mark.parametrize("mode", ["json", "sse"])
def test_sdk_streamable_http_stateless(mode: str) -> None:
    port = free_port()
    argv = [sys.executable, str(SDK_SERVER), "http", str(port), mode]
    with http_server(argv, port) as url:
        result = run_probe(LaunchPlan("h", Transport.HTTP, url=url, timeout=5))
    assert (result.style, result.protocol_version) == ("discover", "2026-07-28")
    assert [tool["name"] for tool in result.tools] == ["add", "shout"]


def test_everything_streamable_http_with_a_session() -> None:
    entry = require_npm_server("server-everything")
    port = free_port()
    argv = ["node", str(entry), "streamableHttp"]
    with http_server(argv, port, env={"PORT": str(port)}) as url:
        plan = LaunchPlan("h", Transport.HTTP, url=url, timeout=5,
                          headers={"X-Extra": "kept"}, roots=("file:///w",))
        result = run_probe(plan, capabilities=ALL_CAPABILITIES)
        wrong = run_failure(LaunchPlan("h", Transport.HTTP, url=url + "-nope", timeout=5))
    assert (result.style, result.protocol_version) == ("initialize", "2025-11-25")
    assert len(result.tools) == 17
    assert wrong.diagnosis.startswith("server refused initialize: HTTP 404")


def test_plain_http_to_a_remote_host_is_refused_before_connecting() -> None:
    plan = LaunchPlan("r", Transport.HTTP, url="http://mcp.example.com/mcp", timeout=5)
    failure = run_failure(plan)
    assert failure.diagnosis == (
        "refusing plain http to mcp.example.com: only loopback hosts may be reached without "
        "TLS (allow insecure to override)"
    )


def test_nothing_listening_is_diagnosed() -> None:
    with refusing_port() as port:
        plan = LaunchPlan("r", Transport.HTTP, url=f"http://127.0.0.1:{port}/mcp", timeout=5)
        assert run_failure(plan).diagnosis.startswith("cannot reach the server: ")


def meeting(plan: LaunchPlan, mine: Path, other: Path) -> LaunchPlan:
    """`plan`'s server, started only once it has said it is up (`mine`) and seen the
    other's word (`other`): two of them both answer only if both run at once."""
    script = (f"touch {shlex.quote(str(mine))}; "
              f"while [ ! -e {shlex.quote(str(other))} ]; do sleep 0.02; done; "
              'exec "$@"')
    return LaunchPlan(plan.name, plan.transport, argv=("/bin/sh", "-c", script, "sh",
                                                       *plan.argv),
                      env=plan.env, timeout=plan.timeout)


def test_probe_many_is_concurrent_and_isolates_failures(tmp_path: Path) -> None:
    slow = stdio_plan(sys.executable, "-c", "import time; time.sleep(600)", timeout=1.0,
                      name="slow")
    # Concurrent: "a" answers only once "b" has started, and "b" only once "a" has; one
    # at a time, the first would wait for the other until its timeout, and fail.
    a_up, b_up = tmp_path / "a-up", tmp_path / "b-up"
    plans = [meeting(scripted(name="a", timeout=60), a_up, b_up), slow,
             meeting(scripted("--version", "2024-11-05", name="b", timeout=60), b_up, a_up),
             stdio_plan(sys.executable, "-c", "raise SystemExit(2)", name="dead")]
    results = asyncio.run(probe_many(plans))
    assert [r.name for r in results] == ["a", "slow", "b", "dead"]
    assert isinstance(results[0], ProbeResult), results[0]
    assert isinstance(results[2], ProbeResult), results[2]
    assert results[2].protocol_version == "2024-11-05"
    assert isinstance(results[1], ProbeFailure)
    assert (results[1].name, results[1].diagnosis, results[1].stderr_tail) == (
        "slow", "timed out after 1.0 s waiting for the first answer", ())
    assert isinstance(results[3], ProbeFailure)
    assert results[3].diagnosis == "server exited with code 2 before answering"


def test_servers_that_exit_at_once_are_each_diagnosed_by_their_code() -> None:
    """Twenty servers started side by side that exit with code 2 at once: a server's
    stdout can end before its start has returned it to the channel, and the channel
    then had no process to read the code from. Without the channel's wait for its
    start (the two lines taken out by hand) this fails: 194 and 196 of 200 such servers
    (ten rounds, on a loaded machine) read "server closed its stdout before answering"."""
    plans = [stdio_plan(sys.executable, "-S", "-c", "raise SystemExit(2)", name=f"d{number}",
                        timeout=60.0) for number in range(20)]
    results = asyncio.run(probe_many(plans))
    assert [(r.name, r.diagnosis) for r in results if isinstance(r, ProbeFailure)] == [
        (f"d{number}", "server exited with code 2 before answering") for number in range(20)]


def test_everything_over_the_deprecated_http_sse_transport() -> None:
    entry = require_npm_server("server-everything")
    port = free_port()
    with http_server(["node", str(entry), "sse"], port, env={"PORT": str(port)}):
        url = f"http://127.0.0.1:{port}/sse"
        result = run_probe(LaunchPlan("old", Transport.SSE, url=url, timeout=5))
        wrong = run_failure(LaunchPlan("old", Transport.SSE, url=url + "-nope", timeout=5))
    assert (result.style, result.protocol_version) == ("initialize", "2025-11-25")
    assert len(result.tools) == 14
    assert wrong.diagnosis.startswith("cannot open the event stream: HTTP 404")
