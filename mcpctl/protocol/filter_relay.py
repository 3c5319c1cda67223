"""`mcpctl run NAME` when a tool policy applies: relay the server's stdio through the
tool filter instead of becoming the server (issue 29).

Without a policy `run` execs the server and is gone; with one it must stay between
the client and the server to take the tools that are off out of `tools/list` and to
refuse `tools/call` to them (`filtering.wire.ToolGate`), which holds for every client,
whether it has a filter of its own or not. The server is the very program the gate
admitted and `resolve_launch` found (its absolute path, its argv, environment and
folder), started with pipes for stdin and stdout; stderr is the client's, as when
exec'd. A url server's bridge is relayed the same way over two pipes, so the bridge
runs unchanged on the main thread (its signal handling needs it).

Lines are cut by `bridge_io.read_lines` (each byte scanned once, capped). SIGTERM,
SIGHUP and SIGINT are passed on to the server, which ends the relay when it exits;
when the client closes stdin the server gets EOF, `EOF_GRACE` seconds to exit, then
SIGTERM and, a second later, SIGKILL (the stdio transport's shutdown, done for the
client, who only sees this process).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence

from mcpctl.filtering.wire import ToolGate
from mcpctl.protocol.bridge_io import TOO_LONG, read_lines, writer
from mcpctl.protocol.process import MAX_LINE_BYTES, MAX_TOTAL_BYTES

EOF_GRACE = 5.0
TERM_GRACE = 1.0
_PARSE_ERROR = (b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":'
                b'"mcpctl: message longer than the line limit"}}\n')


class _Out:
    """stdout shared by both directions: whole lines, one writer at a time."""

    def __init__(self, fd: int):
        self._write = writer(fd)
        self._lock = threading.Lock()
        self.gone = False

    def line(self, data: bytes) -> None:
        if self.gone:
            return
        with self._lock:
            try:
                self._write(data if data.endswith(b"\n") else data + b"\n")
            except Exception:  # noqa: BLE001 - ClientGone: nobody reads any more
                self.gone = True


def _client_side(gate: ToolGate, stdin_fd: int, send: Callable[[bytes], bool],
                 close: Callable[[], None], out: _Out) -> threading.Thread:
    """stdin → gate → the server; a refused call is answered here."""
    def put(line: bytes | None) -> None:
        if line is None:
            close()
            return
        if line == TOO_LONG:
            out.line(_PARSE_ERROR)
            return
        forward, answer = gate.from_client(line)
        if answer:
            out.line(answer)
        if forward:
            send(forward if forward.endswith(b"\n") else forward + b"\n")

    thread = threading.Thread(target=read_lines, args=(stdin_fd, put, MAX_LINE_BYTES),
                              daemon=True)
    thread.start()
    return thread


def _server_side(gate: ToolGate, server_fd: int, out: _Out) -> threading.Thread:
    """The server's stdout → gate → stdout."""
    def put(line: bytes | None) -> None:
        if line is not None and line != TOO_LONG:
            out.line(gate.from_server(line))

    thread = threading.Thread(target=read_lines, args=(server_fd, put, MAX_TOTAL_BYTES),
                              daemon=True)
    thread.start()
    return thread


def relay_process(program: str, argv: Sequence[str], env: Mapping[str, str],
                  cwd: str | None, gate: ToolGate, *, stdin_fd: int = 0,
                  stdout_fd: int = 1) -> int:
    """Start the server and relay until it exits; its exit code (128 + a signal)."""
    child = subprocess.Popen(
        list(argv), executable=program, env=dict(env), cwd=cwd, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, close_fds=True, bufsize=0)
    server_in, server_out = child.stdin, child.stdout
    if server_in is None or server_out is None:  # not with PIPE; for the type checker
        raise OSError("no pipes to the server")
    out = _Out(stdout_fd)

    def send(line: bytes) -> bool:
        try:
            server_in.write(line)
        except (BrokenPipeError, ValueError, OSError):
            return False
        return True

    def close() -> None:
        with contextlib.suppress(OSError):
            server_in.close()
        _stop_after_eof(child)

    restore = _pass_signals_to(child)
    try:
        _client_side(gate, stdin_fd, send, close, out)
        server_side = _server_side(gate, server_out.fileno(), out)
        code = child.wait()  # the client's to bound, as for an exec'd server
        server_side.join(timeout=TERM_GRACE)
    finally:
        restore()
    return code if code >= 0 else 128 - code


def _stop_after_eof(child: subprocess.Popen[bytes]) -> None:
    """After the client's EOF the server gets EOF_GRACE, then SIGTERM, then SIGKILL: the
    client sees only this process, so this is the stdio transport's shutdown for it."""
    def stop() -> None:
        for grace, then in ((EOF_GRACE, child.terminate), (TERM_GRACE, child.kill)):
            try:
                child.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    then()
            else:
                return

    threading.Thread(target=stop, daemon=True).start()


def _pass_signals_to(child: subprocess.Popen[bytes]) -> Callable[[], None]:
    """SIGTERM, SIGHUP and SIGINT go to the server; a signal set to be ignored stays so."""
    previous: dict[int, object] = {}

    def forward(signum: int, _: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            child.send_signal(signum)

    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        if signal.getsignal(signum) is signal.SIG_IGN:
            continue
        previous[signum] = signal.signal(signum, forward)

    def restore() -> None:
        for signum, handler in previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]

    return restore


def relay_bridge(serve: Callable[[int, int], None], gate: ToolGate, *, stdin_fd: int = 0,
                 stdout_fd: int = 1) -> None:
    """Run `serve(its_stdin, its_stdout)` (the url bridge) behind the gate."""
    to_bridge_r, to_bridge_w = os.pipe()
    from_bridge_r, from_bridge_w = os.pipe()
    out = _Out(stdout_fd)

    def send(line: bytes) -> bool:
        try:
            writer(to_bridge_w)(line)
        except Exception:  # noqa: BLE001 - the bridge has ended
            return False
        return True

    def close() -> None:
        with contextlib.suppress(OSError):
            os.close(to_bridge_w)

    _client_side(gate, stdin_fd, send, close, out)
    server_side = _server_side(gate, from_bridge_r, out)
    try:
        serve(to_bridge_r, from_bridge_w)
    finally:
        with contextlib.suppress(OSError):
            os.close(from_bridge_w)
        server_side.join(timeout=EOF_GRACE)
        with contextlib.suppress(OSError):
            os.close(to_bridge_r)
