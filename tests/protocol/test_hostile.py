"""Servers that misbehave on purpose: each must end in time, bounded, leaving no process."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from mcpctl.protocol.probe import probe
from mcpctl.protocol.process import MAX_LINE_BYTES, SHUTDOWN_GRACE, ServerProcess
from mcpctl.protocol.session import MAX_PAGES
from tests.processes import signal_and_wait, started, wait_for
from tests.protocol.conftest import (
    REPO,
    Hostile,
    peak_rss_mib,
    run_failure,
    run_probe,
    stdio_plan,
    survivors,
    survivors_after_settling,
)

# Issue 5: each probe ends within its timeout plus a shutdown grace. The servers here
# run for 600 s unless stopped, and the longest plan timeout is 30 s (a signal or a
# cancel ends it sooner): a probe that lost its bound is still running at 60 s, and the
# test fails there instead of hanging the suite. The diagnosis names the timeout that
# fired. No test here times the probe (tests/test_no_timed_assertions.py).
pytestmark = pytest.mark.timeout(60)
SLACK = 5.0  # a signal's answer: idle, well under a second


def test_never_answers(hostile: Hostile) -> None:
    plan, marker = hostile("time.sleep(600)\n")
    failure = run_failure(plan)
    assert failure.diagnosis == "timed out after 1.0 s waiting for the first answer"
    assert survivors(marker) == []


def test_answers_then_hangs(hostile: Hostile) -> None:
    plan, marker = hostile(textwrap.dedent("""\
        for request in requests():
            if request["method"] != "tools/list":
                handshake_answer(request)
        """))
    failure = run_failure(plan)
    assert failure.diagnosis == "timed out after 1.0 s waiting for tools/list"
    assert survivors(marker) == []


def test_garbage_on_stdout(hostile: Hostile) -> None:
    plan, marker = hostile('print("Hello")\nsys.stderr.write("starting up\\n")\n'
                           "time.sleep(600)\n")
    failure = run_failure(plan)
    assert failure.diagnosis == (
        "stdout pollution: server printed 'Hello' (not JSON-RPC) on stdout"
    )
    assert failure.stderr_tail == ("starting up",)
    assert survivors(marker) == []


def test_garbage_before_the_first_request_is_never_missed() -> None:
    """A shell prints at once, often before spawning has returned: the line must still
    be diagnosed, not dropped (dropping it turned pollution into a timeout)."""
    for _ in range(5):
        # A dropped line would leave the probe waiting out the timeout, past the bound.
        plan = stdio_plan("/bin/sh", "-c", "echo Hello; exec sleep 600", timeout=600)
        failure = run_failure(plan)
        assert failure.diagnosis == (
            "stdout pollution: server printed 'Hello' (not JSON-RPC) on stdout"
        )


def test_json_that_is_not_json_rpc_is_pollution(hostile: Hostile) -> None:
    plan, marker = hostile('print(json.dumps({"status": "ready"}))\ntime.sleep(600)\n')
    failure = run_failure(plan)
    assert failure.diagnosis == (
        """stdout pollution: server printed '{"status": "ready"}' (not JSON-RPC) on stdout"""
    )
    assert survivors(marker) == []


def test_100_mb_without_a_newline(hostile: Hostile) -> None:
    plan, marker = hostile(textwrap.dedent("""\
        chunk = b"x" * (1024 * 1024)
        for _ in range(100):
            sys.stdout.buffer.write(chunk)
            sys.stdout.buffer.flush()
        time.sleep(600)
        """), timeout=3.0)
    before = peak_rss_mib()
    failure = run_failure(plan)
    assert failure.diagnosis == f"line longer than {MAX_LINE_BYTES} bytes on stdout"
    assert peak_rss_mib() - before < 64  # the cap tripped at 8 MiB; nothing near 100 MB
    assert survivors(marker) == []


def test_exits_at_once(hostile: Hostile) -> None:
    plan, marker = hostile('sys.stderr.write("fatal: no config\\n")\nsys.exit(3)\n')
    failure = run_failure(plan)
    assert failure.diagnosis == "server exited with code 3 before answering"
    assert failure.stderr_tail == ("fatal: no config",)
    assert survivors(marker) == []


def test_ignores_sigterm_and_stdin_close(hostile: Hostile) -> None:
    plan, marker = hostile(textwrap.dedent("""\
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for request in requests():
            handshake_answer(request)
        time.sleep(600)
        """))
    started = time.monotonic()
    result = run_probe(plan)
    waited = time.monotonic() - started
    assert [tool["name"] for tool in result.tools] == ["t"]
    # stdin closed → wait; SIGTERM ignored → wait; SIGKILL (a server never killed would
    # sleep past the module's bound). A lower bound: load only lengthens the waits.
    assert waited >= 2 * SHUTDOWN_GRACE
    assert survivors(marker) == []


def test_a_server_deaf_to_the_end_and_sigterm_is_killed_not_outwaited(
        hostile: Hostile, tmp_path: Path) -> None:
    """Each step of the shutdown (stdin closed, SIGTERM) waits one grace: the SIGKILL
    comes about 2 s after the probe is done, long before this server, 8 s after its
    stdin ended, would leave by itself and say so. Planted: the grace widened 16 times
    (`process.py:42`), and the server outlived both steps and exited on its own."""
    outlived = tmp_path / "outlived"
    plan, marker = hostile(textwrap.dedent(f"""\
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for request in requests():
            handshake_answer(request)
        time.sleep(8)
        open({str(outlived)!r}, "w").close()
        """))
    result = run_probe(plan)
    assert [tool["name"] for tool in result.tools] == ["t"]
    assert survivors(marker) == []
    assert not outlived.exists()


def test_answers_to_a_server_that_closed_its_stdin_are_not_written(
        hostile: Hostile, caplog: pytest.LogCaptureFixture) -> None:
    """A server that closed its stdin and still asks (eight pings) gets no answer written
    to the closed pipe; the probe lists its tools. Planted: the write made whatever the
    pipe's state (`process.py:204` taken always), and asyncio, past its fifth write to a
    lost pipe, logged a warning for each (on the user's stderr, as `mcpctl` sets up no
    logging)."""
    plan, marker = hostile(textwrap.dedent("""\
        for request in requests():
            if request["method"] == "tools/list":
                os.close(0)
                time.sleep(0.5)
                for number in range(8):
                    send({"jsonrpc": "2.0", "id": f"p{number}", "method": "ping"})
                time.sleep(0.5)
            handshake_answer(request)
            if request["method"] == "tools/list":
                break
        time.sleep(600)
        """), timeout=10.0)
    result = run_probe(plan)
    assert [tool["name"] for tool in result.tools] == ["t"]
    assert [record.getMessage() for record in caplog.records] == []
    assert survivors(marker) == []


def test_grandchild_ignoring_sigterm_dies_with_the_group(hostile: Hostile) -> None:
    plan, marker = hostile(textwrap.dedent("""\
        grandchild_ignoring_sigterm()
        for request in requests():
            handshake_answer(request)
        """))
    result = run_probe(plan)
    assert result.server_info == {"name": "hostile", "version": "0"}
    assert survivors(marker) == []


def test_unsupported_server_requests_are_refused(hostile: Hostile) -> None:
    plan, marker = hostile(textwrap.dedent("""\
        answers = []
        for request in requests():
            if request["method"] == "initialize":
                for n, method in enumerate(["sampling/createMessage", "elicitation/create",
                                            "roots/list", "ping", "custom/thing"]):
                    send({"jsonrpc": "2.0", "id": f"q{n}", "method": method, "params": {}})
                    answers.append(json.loads(sys.stdin.readline()))
            if request["method"] == "tools/list":
                send({"jsonrpc": "2.0", "id": request["id"], "result": {"tools": [
                    {"name": "a", "description": json.dumps(answers)}]}})
            else:
                handshake_answer(request)
        """))
    result = run_probe(plan, capabilities=frozenset())
    refused = "mcpctl does not support"
    assert json.loads(result.tools[0]["description"]) == [
        {"jsonrpc": "2.0", "id": "q0",
         "error": {"code": -32601, "message": f"{refused} sampling/createMessage"}},
        {"jsonrpc": "2.0", "id": "q1",
         "error": {"code": -32601, "message": f"{refused} elicitation/create"}},
        {"jsonrpc": "2.0", "id": "q2",
         "error": {"code": -32601, "message": f"{refused} roots/list"}},
        {"jsonrpc": "2.0", "id": "q3", "result": {}},
        {"jsonrpc": "2.0", "id": "q4",
         "error": {"code": -32601, "message": f"{refused} custom/thing"}},
    ]
    assert survivors(marker) == []


def test_ten_thousand_tools(hostile: Hostile) -> None:
    plan, marker = hostile(textwrap.dedent("""\
        tools = [{"name": f"tool_{i}", "description": "d" * 50,
                  "inputSchema": {"type": "object", "properties": {}}} for i in range(10000)]
        for request in requests():
            if request["method"] == "tools/list":
                send({"jsonrpc": "2.0", "id": request["id"], "result": {"tools": tools}})
            else:
                handshake_answer(request)
        """), timeout=3.0)
    result = run_probe(plan)
    assert len(result.tools) == 10000
    assert result.tools[9999] == {"name": "tool_9999", "description": "d" * 50,
                                  "inputSchema": {"type": "object", "properties": {}}}
    assert survivors(marker) == []


def test_endless_pages_stop_at_the_page_cap(hostile: Hostile) -> None:
    plan, marker = hostile(textwrap.dedent("""\
        for n, request in enumerate(requests()):
            if request["method"] == "tools/list":
                send({"jsonrpc": "2.0", "id": request["id"], "result": {
                    "tools": [{"name": f"t{n}"}], "nextCursor": str(n)}})
            else:
                handshake_answer(request)
        """), timeout=3.0)
    failure = run_failure(plan)
    assert failure.diagnosis == f"tools/list still had more pages after {MAX_PAGES}; stopped"
    assert survivors(marker) == []


def test_cancellation_leaves_no_process(hostile: Hostile) -> None:
    plan, marker = hostile("grandchild_ignoring_sigterm()\ntime.sleep(600)\n", timeout=30.0)

    async def cancel_midway() -> None:
        task = asyncio.create_task(probe(plan))
        deadline = time.monotonic() + 15
        while len(survivors(marker)) < 2:  # the server and its grandchild are up
            assert time.monotonic() < deadline, "the server and its grandchild did not start"
            await asyncio.sleep(0.02)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return
        raise AssertionError("the probe was not cancelled")

    asyncio.run(cancel_midway())
    assert survivors_after_settling(marker) == []


def test_a_start_cancelled_before_its_pipes_connect_leaves_no_process() -> None:
    """The cancel lands after the fork, while asyncio still connects the pipes: the test
    gives the loop no turn between the step that forks and the cancel, and waits
    (blocking) until the child has started its grandchild. asyncio's own clean-up of
    such a start kills the child alone, then waits for its pipes, which the grandchild
    holds open: with `spawn` awaiting the start unshielded (as before this test) the
    cancel hung until the test's 60 s bound and the grandchild was left running."""
    marker = f"mcpctl-cancelled-start-{uuid.uuid4().hex}"
    code = textwrap.dedent("""\
        import subprocess, sys, time
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", sys.argv[1]])
        time.sleep(600)
        """)

    async def cancel_during_start() -> None:
        task = asyncio.create_task(ServerProcess.spawn(
            [sys.executable, "-c", code, marker], dict(os.environ), None,
            on_line=lambda line: None, on_end=lambda error: None,
        ))
        deadline = time.monotonic() + 15
        while not survivors(marker):  # one loop turn at a time: the fork's step is seen
            assert time.monotonic() < deadline, "the child did not start"
            await asyncio.sleep(0)
        assert not task.done()
        while len(survivors(marker)) < 2:  # blocking: the loop gets no turn meanwhile
            assert time.monotonic() < deadline, "the child and its grandchild did not start"
            time.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_during_start())
    assert survivors_after_settling(marker) == []


def test_ctrl_c_in_a_real_process_leaves_no_child(hostile: Hostile) -> None:
    plan, marker = hostile("grandchild_ignoring_sigterm()\ntime.sleep(600)\n", timeout=30.0)
    code = textwrap.dedent(f"""\
        import asyncio, os
        from mcpctl.protocol.probe import LaunchPlan, probe
        from mcpctl.model import Transport
        plan = LaunchPlan("x", Transport.STDIO, argv={plan.argv!r}, env=dict(os.environ),
                          timeout=30.0)
        asyncio.run(probe(plan))
        """)
    with started([sys.executable, "-c", code], cwd=REPO, stderr=subprocess.PIPE,
                 env=dict(os.environ)) as runner:
        # The runner's own command line holds the marker too (in its code).
        wait_for(lambda: len(set(survivors(marker)) - {runner.pid}) == 2, within=15,
                 what="the server and its grandchild start")
        _, stderr = signal_and_wait(runner, signal.SIGINT, within=SLACK)
        assert runner.returncode != 0
        assert b"KeyboardInterrupt" in stderr
        assert survivors_after_settling(marker) == []
