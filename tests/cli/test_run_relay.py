"""The relay's own process handling (`protocol/filter_relay.py`), which only a policy
brings in: `mcpctl run NAME` stays between the client and the server, so what an exec'd
server would get from the client (its stdin's end, a signal, a line cut at the cap) it
gets from the relay. Each server here is a few lines of Python written by the test;
none speaks MCP, since none of this depends on what the lines say.

Each test names the bug it was shown to catch, planted by hand."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import run_mcpctl
from tests.processes import wait_for
from tests.protocol.conftest import SDK_SERVER, free_port, http_server
from tests.protocol.test_bridge import INITIALIZE, INITIALIZED

pytestmark = pytest.mark.timeout(300)
PARSE_ERROR = ('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":'
               '"mcpctl: message longer than the line limit"}}\n')
PING = '{"jsonrpc":"2.0","id":7,"method":"ping"}\n'


def relayed(user_config: Path, tmp_path: Path, body: str) -> Path:
    """A user-tier server `s` running BODY, with a tool switched off so `run` relays it."""
    script = tmp_path / "server.py"
    script.write_text(body)
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(f'[servers.s]\ncommand = "{sys.executable}"\nargs = ["{script}"]\n'
                           '[tools.s]\ndisabled = ["off"]\n')
    return script


def start(tmp_path: Path, *, shell_prefix: str = "", parser: str = "fast"
          ) -> subprocess.Popen[bytes]:
    """`mcpctl run s` in the background. `parser="typer"`: the line names the workspace
    twice, which `run`'s own parser leaves to typer's (the command then ends through
    the interpreter's exit, which waits for every thread not made a daemon)."""
    command = [sys.executable, "-m", "mcpctl", "run", "s", "--workspace", str(tmp_path)]
    if parser == "typer":
        command += ["--workspace", str(tmp_path)]
    if shell_prefix:
        command = ["sh", "-c", f'{shell_prefix}; exec "$@"', "sh", *command]
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=tmp_path)


def ended(process: subprocess.Popen[bytes], within: float) -> tuple[int, bytes, bytes]:
    """Close `run`'s stdin (the client's EOF) and wait for its end: (code, out, err)."""
    try:
        out, err = process.communicate(b"", timeout=within)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate(timeout=30)
        pytest.fail(f"mcpctl run did not end within {within} s")
    return process.returncode, out, err


# --- the end of the client's stdin --------------------------------------------------


@pytest.mark.parametrize(("ignored", "code"), [("", 143), ("signal.SIGTERM", 137)])
def test_a_server_that_ignores_the_end_of_stdin_is_stopped_by_signal(
        user_config: Path, tmp_path: Path, ignored: str, code: int) -> None:
    """After the client's EOF the server gets 5 s, then SIGTERM, then a second later
    SIGKILL: a server that never reads stdin cannot hold `run` (and its client) open.
    Planted: no stop after EOF (`_stop_after_eof` not called, or its loop skipped, or its
    signal not sent) kept `run` waiting until the server left by itself, 12 s after it
    began (code 0); the loop's first turn alone left a server that ignores SIGTERM
    running; the second before SIGKILL widened 16 times (`filter_relay.py:42`), and the
    server that ignores SIGTERM outlived it and left by itself."""
    pids = tmp_path / "pid"
    ignoring = f"signal.signal({ignored}, signal.SIG_IGN)\n" if ignored else ""
    relayed(user_config, tmp_path, "import os, signal, time\n" + ignoring +
            f"open({str(pids)!r}, 'w').write(str(os.getpid()))\ntime.sleep(12)\n")
    process = start(tmp_path)
    wait_for(pids.exists, within=30, what="the server writes its pid")
    assert ended(process, 45) == (code, b"", b"")
    server = int(pids.read_text())
    assert not Path(f"/proc/{server}").exists() or \
        Path(f"/proc/{server}/stat").read_text().split()[2] == "Z"


@pytest.mark.parametrize("parser", ["fast", "typer"])
def test_a_server_that_exits_ends_run_while_the_client_holds_stdin_open(
        user_config: Path, tmp_path: Path, parser: str) -> None:
    """The server's exit ends `run` with its code; the reader of the client's stdin,
    still blocked in a read, does not hold the process, whichever parser read the line.
    Planted: the reader's thread made a non-daemon (`filter_relay.py:109`), and `run`
    through typer's parser waited on it at exit (the fast path ends by `os._exit`)."""
    relayed(user_config, tmp_path, "import sys\nsys.exit(3)\n")
    process = start(tmp_path, parser=parser)
    try:
        assert process.wait(timeout=30) == 3
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=30)


@pytest.mark.parametrize("parser", ["fast", "typer"])
def test_a_grandchild_that_keeps_the_server_s_stdout_does_not_hold_run(
        user_config: Path, tmp_path: Path, parser: str) -> None:
    """A server that leaves a process of its own behind holding its stdout (only: its
    stderr, the client's, is closed to it): `run` ends with the server, after at most a
    second's wait for that pipe, whichever parser read the line. Planted: the wait for
    the server's side without its bound made `run` wait for the grandchild; that side's
    reader made a non-daemon thread (`filter_relay.py:132`), the same through typer."""
    left = tmp_path / "grandchild"
    relayed(user_config, tmp_path,
            "import subprocess, sys\n"
            "left = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'],\n"
            "                        stderr=subprocess.DEVNULL)\n"
            f"open({str(left)!r}, 'w').write(str(left.pid))\n"
            "sys.exit(0)\n")
    process = start(tmp_path, parser=parser)
    try:
        code, out, _ = ended(process, 60)
    finally:
        if left.exists():
            os.kill(int(left.read_text()), signal.SIGKILL)
    assert (code, out) == (0, b"")


# --- lines at the cap -----------------------------------------------------------------


def test_a_client_line_over_the_cap_is_answered_and_never_sent(
        user_config: Path, tmp_path: Path) -> None:
    """A client line longer than 8 MiB gets a JSON-RPC parse error from the relay, one
    line and nothing else, and the server gets only the lines after it. Planted: the
    cut line sent on (the server got the relay's marker), no answer at all, and the
    answer written with a second newline (an empty line on the client's stdout)."""
    got = tmp_path / "got"
    relayed(user_config, tmp_path,
            "import sys\n"
            f"with open({str(got)!r}, 'w') as got:\n"
            "    for line in sys.stdin:\n"
            "        got.write(line)\n"
            "        got.flush()\n"
            "        print('{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}', flush=True)\n")
    long_line = '{"jsonrpc":"2.0","id":1,"method":"x","params":"' + "y" * (8 << 20) + '"}\n'
    done = run_mcpctl(["run", "s", "--workspace", str(tmp_path)], cwd=tmp_path,
                      stdin=long_line + PING)
    assert (done.code, done.out, done.err) == (
        0, PARSE_ERROR + '{"jsonrpc":"2.0","id":7,"result":{}}\n', "")
    assert got.read_text() == PING


def test_a_server_line_over_the_cap_never_reaches_the_client(
        user_config: Path, tmp_path: Path) -> None:
    """A server line longer than 64 MiB is dropped whole, and the relay goes on with the
    next. Planted: the cut line handed to the gate, which sent the relay's own marker
    (not JSON) to the client as a line; and no wait for the server's side once the server
    was reaped, which ended `run` before the last line was relayed."""
    note = '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}'
    relayed(user_config, tmp_path,
            "import sys\n"
            "sys.stdout.write('x' * ((64 << 20) + 1) + '\\n')\n"
            f"sys.stdout.write({note!r} + '\\n')\n")
    done = run_mcpctl(["run", "s", "--workspace", str(tmp_path)], cwd=tmp_path, stdin="")
    assert (done.code, done.out, done.err) == (0, note + "\n", "")


def test_a_forged_answer_is_dropped_and_the_real_one_still_relayed(
        user_config: Path, tmp_path: Path) -> None:
    """A server that answers the client's own id while its `tools/list` is in flight
    forges the list: the relay drops that line and relays the real answer, filtered.
    Planted: the dropped line handed to the writer anyway (`if answer is not None`
    always true), which ended the relay's reading and the real answer never came."""
    tools = [{"name": name, "inputSchema": {"type": "object"}} for name in ("on", "off")]
    relayed(user_config, tmp_path,
            "import json, sys\n"
            "for line in sys.stdin:\n"
            "    message = json.loads(line)\n"
            "    forged = {'jsonrpc': '2.0', 'id': 7, 'result': {'tools': []}}\n"
            "    print(json.dumps(forged), flush=True)\n"
            "    real = {'jsonrpc': '2.0', 'id': message['id'],\n"
            f"            'result': {{'tools': {tools!r}}}}}\n"
            "    print(json.dumps(real), flush=True)\n")
    done = run_mcpctl(["run", "s", "--workspace", str(tmp_path)], cwd=tmp_path,
                      stdin='{"jsonrpc":"2.0","id":7,"method":"tools/list"}\n')
    answers = [json.loads(line) for line in done.out.splitlines()]
    assert (done.code, done.err) == (0, "")
    assert [(answer["id"], [tool["name"] for tool in answer["result"]["tools"]])
            for answer in answers] == [(7, ["on"])]


# --- signals ----------------------------------------------------------------------------


@pytest.mark.parametrize("ignored", [False, True])
def test_sighup_reaches_the_server_unless_run_was_started_ignoring_it(
        user_config: Path, tmp_path: Path, ignored: bool) -> None:
    """SIGHUP is passed on to the server, as SIGTERM is; but a signal `run` was started
    with set to be ignored (`nohup`, a shell's `trap '' HUP`) stays ignored: the server
    was started under the same disposition and must not get what its parent would not.
    Planted: the check for an ignored signal dropped, and the server got the SIGHUP."""
    ready, heard = tmp_path / "ready", tmp_path / "heard"
    relayed(user_config, tmp_path,
            "import signal, sys\n"
            "signal.signal(signal.SIGHUP, lambda *_: open("
            f"{str(heard)!r}, 'a').write('HUP'))\n"
            f"open({str(ready)!r}, 'w').close()\n"
            "for _ in sys.stdin:\n    pass\n")
    process = start(tmp_path, shell_prefix="trap '' HUP" if ignored else "")
    try:
        wait_for(ready.exists, within=30, what="the server is ready")
        process.send_signal(signal.SIGHUP)
        if not ignored:
            wait_for(heard.exists, within=30, what="the server hears SIGHUP")
        else:
            time.sleep(1)  # a signal passed on would have landed by now
        assert ended(process, 30) == (0, b"", b"")
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=30)
    assert heard.exists() is not ignored


def test_the_client_s_eof_ends_a_filtered_url_server_s_bridge(
        user_config: Path, tmp_path: Path) -> None:
    """A url server behind a policy runs as the bridge inside `run`, fed through a pipe
    the relay writes: the client's EOF must become the bridge's, or `run` outlives its
    client. Planted: the relay's `close` returning at once, or not closing the pipe's
    write end, kept `run` waiting forever."""
    port = free_port()
    with http_server([sys.executable, str(SDK_SERVER), "http", str(port)], port) as url:
        user_config.parent.mkdir(parents=True, exist_ok=True)
        user_config.write_text(f'[servers.s]\nurl = "{url}"\ntype = "http"\n'
                               '[tools.s]\ndisabled = ["shout"]\n')
        process = start(tmp_path)
        assert ended(process, 60) == (0, b"", b"")
        # With requests in flight at the EOF: every answer still reaches the client.
        process = start(tmp_path)
        assert process.stdin is not None
        process.stdin.write("".join(json.dumps(message) + "\n" for message in (
            INITIALIZE, INITIALIZED, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
            .encode())
        code, out, err = ended(process, 60)
    answers = [json.loads(line) for line in out.splitlines()]
    assert (code, err, [answer["id"] for answer in answers]) == (0, b"", [1, 2])
    assert [tool["name"] for tool in answers[1]["result"]["tools"]] == ["add"]
