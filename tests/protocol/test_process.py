"""The process edge alone: output caps, stderr capture, spawn errors, environment."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

import pytest

from mcpctl.protocol.probe import LaunchPlan
from mcpctl.protocol.process import (
    STDERR_LINE_CHARS,
    STDERR_LINES,
    Limits,
    OutputError,
    ServerProcess,
    StderrLog,
)
from tests.protocol.conftest import SCRIPTED, run_failure, run_probe, stdio_plan

# Each case proves a cap or a grace period of a few seconds; a minute means one is gone.
pytestmark = pytest.mark.timeout(60)


def collect(argv: list[str], limits: Limits) -> tuple[list[bytes], OutputError | None]:
    lines: list[bytes] = []
    ended: list[OutputError | None] = []

    async def scenario() -> None:
        process = await ServerProcess.spawn(argv, {}, None, on_line=lines.append,
                                            on_end=ended.append, limits=limits)
        deadline = time.monotonic() + 30
        while not ended:
            assert time.monotonic() < deadline, "the reader never reported the end of output"
            await asyncio.sleep(0.01)
        await process.shutdown(grace=0.5)

    asyncio.run(scenario())
    return lines, ended[0]


def test_total_bytes_cap_ends_reading() -> None:
    code = "import sys\nwhile True: sys.stdout.write('x' * 99 + '\\n')"
    lines, error = collect([sys.executable, "-c", code], Limits(max_total_bytes=100_000))
    assert str(error) == "server wrote more than 100000 bytes on stdout"
    assert len(lines) <= 1000
    assert set(lines) == {b"x" * 99}


def test_line_cap() -> None:
    code = "import sys\nsys.stdout.write('ok\\n' + 'y' * 5000)\nsys.stdout.flush()\ninput()"
    lines, error = collect([sys.executable, "-c", code], Limits(max_line_bytes=4096))
    assert lines == [b"ok"]
    assert str(error) == "line longer than 4096 bytes on stdout"


def test_last_line_without_newline_is_delivered_at_eof() -> None:
    lines, error = collect([sys.executable, "-c", "print('a'); print('b', end='')"], Limits())
    assert (lines, error) == ([b"a", b"b"], None)


def test_stderr_keeps_head_and_tail_each_line_capped() -> None:
    log = StderrLog()
    for n in range(100):
        log.feed(f"line {n}\n".encode())
    log.feed(b"z" * 10_000)
    log.close()
    assert log.head == [f"line {n}" for n in range(STDERR_LINES)]
    # 500, written out: the structural `process.py:38` widened the constant 16 times.
    assert log.lines() == (*[f"line {n}" for n in range(81, 100)], "z" * 500)
    assert STDERR_LINE_CHARS == 500


def test_stderr_that_is_not_utf_8_is_shown_with_replacement_characters() -> None:
    """Planted: decoding without `errors="replace"` raised in asyncio's callback, and
    the line was lost."""
    log = StderrLog()
    log.feed(b"caf\xe9 down\n\xff\xfe")
    log.close()
    assert log.lines() == ("caf\ufffd down", "\ufffd\ufffd")


def test_the_default_total_cap_of_stdout_is_64_mib() -> None:
    """Planted: the cap widened 16 times, and 65 MiB of output ended as an ordinary
    end of stdout."""
    code = ("import sys\nline = b'x' * 1048575 + b'\\n'\n"
            "for _ in range(65): sys.stdout.buffer.write(line)\n")
    lines, error = collect([sys.executable, "-c", code], Limits())
    assert str(error) == f"server wrote more than {64 << 20} bytes on stdout"
    assert len(lines) <= 64


def test_stderr_line_split_across_chunks() -> None:
    log = StderrLog()
    log.feed(b"hel")
    log.feed(b"lo\r\nwor")
    log.feed(b"ld\n")
    assert log.lines() == ("hello", "world")


def test_missing_command_is_diagnosed() -> None:
    failure = run_failure(stdio_plan("/nonexistent/mcp-server"))
    assert failure.diagnosis == "command not found: /nonexistent/mcp-server"


def test_missing_working_directory_is_diagnosed(tmp_path: Path) -> None:
    missing = str(tmp_path / "gone")
    failure = run_failure(stdio_plan(sys.executable, "-c", "pass", cwd=missing))
    assert failure.diagnosis == f"working directory not found: {missing}"


def test_a_missing_command_beside_a_folder_that_exists_is_the_command(tmp_path: Path) -> None:
    """Which of the two is missing is told by the whole path: the command's and the
    folder's share their first characters here. Planted: the folder compared by its
    first 8 characters called a missing command a missing working directory."""
    command = str(tmp_path / "gone-server")
    failure = run_failure(stdio_plan(command, cwd=str(tmp_path)))
    assert failure.diagnosis == f"command not found: {command}"


@pytest.mark.parametrize("argv", [(), ("",)], ids=["no argv", "empty command"])
def test_no_command_is_diagnosed_as_such(argv: tuple[str, ...]) -> None:
    """Planted: without the check, an empty command was "command not found: " with no
    name, and no argv at all reached the spawn."""
    failure = run_failure(stdio_plan(*argv))
    assert failure.diagnosis == "no command to run"


@pytest.mark.parametrize(("signum", "named"), [(9, "SIGKILL"), (40, "signal 40")])
def test_a_server_killed_by_a_signal_is_diagnosed_so(signum: int, named: str) -> None:
    """A real-time signal has no name of its own. Planted: the signal's case dropped,
    and the server "exited with code -9"."""
    code = f"import os; os.kill(os.getpid(), {signum})"
    failure = run_failure(stdio_plan(sys.executable, "-c", code, timeout=10.0))
    assert failure.diagnosis == f"server was killed by {named} before answering"


def test_a_server_that_closes_its_stdout_and_lives_on_is_diagnosed_so() -> None:
    """No exit code follows the end of stdout within its wait (3 s): the diagnosis says
    what is known. Planted: the case of no code dropped (`stdio.py:149`), the diagnosis
    raised instead, and the probe waited out its whole timeout."""
    code = "import os, time; os.close(1); time.sleep(30)"
    failure = run_failure(stdio_plan(sys.executable, "-c", code, timeout=20.0))
    assert failure.diagnosis == "server closed its stdout before answering"


def test_a_server_that_closes_its_stderr_is_still_heard_on_stdout() -> None:
    """Only the end of stdout ends the exchange. Planted: the end of any pipe taken for
    stdout's (`process.py:122`), and the probe failed with "closed its stdout"."""
    code = ("import os, runpy, sys; os.close(2); sys.argv = [sys.argv[1]]; "
            "runpy.run_path(sys.argv[0], run_name='__main__')")
    result = run_probe(stdio_plan(sys.executable, "-c", code, str(SCRIPTED), timeout=10.0))
    assert [tool["name"] for tool in result.tools] == ["tool_0", "tool_1", "tool_2", "needs_roots"]


def test_blank_lines_between_a_server_s_messages_are_passed_over() -> None:
    """A blank line (or one of only a carriage return) carries nothing and is tolerated,
    not taken for stdout pollution. Planted: the channel's skip of blank lines dropped
    (`stdio.py:106`), and the probe failed with "not JSON-RPC"."""
    code = ("import runpy, sys; sys.stdout.write('\\n\\r\\n  \\n'); sys.stdout.flush(); "
            "sys.argv = [sys.argv[1]]; runpy.run_path(sys.argv[0], run_name='__main__')")
    result = run_probe(stdio_plan(sys.executable, "-c", code, str(SCRIPTED), timeout=10.0))
    assert [tool["name"] for tool in result.tools] == ["tool_0", "tool_1", "tool_2", "needs_roots"]


def marking_server(mark: Path, *, then: str) -> LaunchPlan:
    """The scripted server, which writes `SIGTERM` to `mark` when it gets that signal
    (and exits), and runs `then` once its stdin has ended."""
    code = ("import runpy, signal, sys, time; mark = sys.argv[2]; "
            "signal.signal(signal.SIGTERM, lambda *_: (open(mark, 'a').write('SIGTERM'), "
            "sys.exit(0))); sys.argv = [sys.argv[1]]; "
            f"runpy.run_path(sys.argv[0], run_name='__main__'); {then}")
    return stdio_plan(sys.executable, "-c", code, str(SCRIPTED), str(mark), timeout=10.0)


def test_a_probed_server_is_ended_by_the_end_of_its_stdin_first(tmp_path: Path) -> None:
    """The stdio transport's shutdown: stdin closed, and a server that exits then never
    hears SIGTERM. Planted: stdin left open at the shutdown (`process.py:264`), and the
    server was ended by SIGTERM a second later."""
    mark = tmp_path / "ended"
    run_probe(marking_server(mark, then="open(mark, 'a').write('EOF')"))
    assert mark.read_text() == "EOF"


def test_a_probed_server_that_outlives_its_stdin_hears_sigterm_before_sigkill(
        tmp_path: Path) -> None:
    """A server still running a grace after its stdin closed is asked to end (SIGTERM),
    and may tidy up, before it is killed. Planted: the SIGTERM left out
    (`process.py:269`), and the server was SIGKILLed a grace later, its handler never
    run."""
    mark = tmp_path / "ended"
    run_probe(marking_server(mark, then="time.sleep(30)"))
    assert mark.read_text() == "SIGTERM"


def test_the_last_stderr_line_without_a_newline_is_kept() -> None:
    """A server's last words often lack their newline. Planted: the end of stderr not
    handed to its log (`process.py:124`), and the line was lost."""
    code = "import sys; sys.stderr.write('first\\nfatal: no token'); sys.exit(1)"
    failure = run_failure(stdio_plan(sys.executable, "-c", code, timeout=10.0))
    assert failure.diagnosis == "server exited with code 1 before answering"
    assert failure.stderr_tail == ("first", "fatal: no token")


def test_a_stderr_line_is_not_cut_where_the_server_closed_its_stdin() -> None:
    """Only the end of stderr ends its last line; the end of stdin (the server closed
    it, or the probe's write found it closed) is not stderr's. Planted: the end of any
    pipe but stdout's taken for stderr's (`process.py:124` taken always), and the line
    the server was writing when its stdin went came out in two."""
    code = ("import os, sys, time; sys.stderr.write('fatal: no conf'); sys.stderr.flush(); "
            "time.sleep(1); os.close(0); time.sleep(1); sys.stderr.write('ig\\n'); "
            "sys.exit(3)")
    failure = run_failure(stdio_plan(sys.executable, "-c", code, timeout=10.0))
    assert failure.diagnosis == "server exited with code 3 before answering"
    assert failure.stderr_tail == ("fatal: no config",)


def test_stdout_pollution_is_quoted_to_80_characters() -> None:
    """Planted: the quote widened 16 times showed the whole 200-character line."""
    code = "print('p' * 200); import time; time.sleep(30)"
    failure = run_failure(stdio_plan(sys.executable, "-c", code, timeout=5.0))
    assert failure.diagnosis == (
        f"stdout pollution: server printed '{'p' * 80}…' (not JSON-RPC) on stdout")


def test_not_executable_is_diagnosed(tmp_path: Path) -> None:
    script = tmp_path / "server.sh"
    script.write_text("#!/bin/sh\n")
    failure = run_failure(stdio_plan(str(script)))
    assert failure.diagnosis == f"cannot start {script}: Permission denied"


def test_child_gets_exactly_the_given_environment_and_cwd(tmp_path: Path) -> None:
    code = "import json, os; print(json.dumps([dict(os.environ), os.getcwd()]))"
    env = {"ONLY": "this", "PATH": "/usr/bin"}
    lines: list[bytes] = []
    ended: list[OutputError | None] = []

    async def scenario() -> None:
        process = await ServerProcess.spawn([sys.executable, "-c", code], env, str(tmp_path),
                                            on_line=lines.append, on_end=ended.append)
        await process.wait_exit(5)
        await process.shutdown()

    asyncio.run(scenario())
    seen_env, seen_cwd = json.loads(lines[0])
    seen_env.pop("LC_CTYPE", None)  # Python may coerce the C locale for itself
    assert (seen_env, seen_cwd) == (env, str(tmp_path))
