"""Descendants that leave the server's process group are still stopped (issue 11, item 8)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from tests.protocol.conftest import Hostile, run_probe, survivors, survivors_after_settling

linux = pytest.mark.skipif(not sys.platform.startswith("linux"),
                           reason="a child subreaper is Linux only; elsewhere it is documented")

ESCAPE = textwrap.dedent("""\
    import os
    if os.fork() == 0:  # a double fork whose grandchild leaves the session
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)",
                                      MARKER])
        os._exit(0)
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", MARKER],
                     start_new_session=True)
    time.sleep(0.3)
    for request in requests():
        handshake_answer(request)
    """)


@linux
def test_a_setsid_grandchild_does_not_outlive_the_probe(hostile: Hostile) -> None:
    plan, marker = hostile(ESCAPE, timeout=10.0)
    result = run_probe(plan)
    assert result.server_info == {"name": "hostile", "version": "0"}
    assert survivors_after_settling(marker) == []


@linux
def test_the_escape_works_without_the_subreaper(hostile: Hostile) -> None:
    """The control: the same grandchildren outlive a plain kill of the group."""
    plan, marker = hostile(ESCAPE, timeout=10.0)
    server = subprocess.Popen(list(plan.argv), stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 10
    while len(survivors(marker)) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(server.pid, signal.SIGKILL)
    server.wait(timeout=10)
    time.sleep(0.3)
    escaped = survivors(marker)
    try:
        assert len(escaped) == 2
    finally:
        for pid in escaped:
            os.kill(pid, signal.SIGKILL)
        for pid in escaped:  # this test process may be their subreaper: reap them
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
