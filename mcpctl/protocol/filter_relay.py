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

Lines are cut as the bridge cuts them (each byte scanned once, capped), by a reader
of this module's own so that an exec'd-or-relayed stdio server pays no asyncio. SIGTERM,
SIGHUP and SIGINT are passed on to the server, which ends the relay when it exits;
when the client closes stdin the server gets EOF, `EOF_GRACE` seconds to exit, then
SIGTERM and, a second later, SIGKILL (the stdio transport's shutdown, done for the
client, who only sees this process).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Mapping, Sequence

from mcpctl.filtering.wire import ToolGate
from mcpctl.protocol.lines import TOO_LONG, read_lines

# The probe's caps (`process.Limits`), without importing the probe's asyncio: 8 MiB for
# a client's line, 64 MiB for a server's (a tools/list answer may be large).
MAX_LINE_BYTES = 8 * 1024 * 1024
MAX_TOTAL_BYTES = 64 * 1024 * 1024

# A server's pipe widened to this (Linux's default pipe-max-size) and read this much at a
# time: an answer of up to a mebibyte crosses in one write and one read, instead of a
# wake-up of each side per 64 KiB.
PIPE_BYTES = 1024 * 1024
EOF_GRACE = 5.0
TERM_GRACE = 1.0
_PARSE_ERROR = (b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":'
                b'"mcpctl: message longer than the line limit"}}\n')


def writer(fd: int) -> Callable[[bytes], None]:
    """Whole lines to `fd`, blocking (a reader that stops reading stalls the writer, as
    with any stdio server); OSError when the reader is gone. A line without its newline
    goes out with it in one call, not copied to append it."""
    def write(data: bytes) -> None:
        if not data.endswith(b"\n"):
            written = os.writev(fd, (data, b"\n"))
            if written > len(data):
                return
            data = data[written:] + b"\n"  # a short write: rare, the rest as one piece
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]

    return write


def widen(fd: int) -> None:
    """Make the pipe `fd` is an end of PIPE_BYTES big, where the system allows it."""
    try:
        import fcntl  # noqa: PLC0415 - POSIX only

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass  # not Linux, or over the user's pipe quota: the default size works too


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
                self._write(data)
            except OSError:  # nobody reads any more
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
            send(forward)

    thread = threading.Thread(target=read_lines, args=(stdin_fd, put, MAX_LINE_BYTES),
                              daemon=True)
    thread.start()
    return thread


def _server_side(gate: ToolGate, server_fd: int, out: _Out) -> threading.Thread:
    """The server's stdout → gate → stdout."""
    def put(line: bytes | None) -> None:
        if line is not None and line != TOO_LONG:
            answer = gate.from_server(line)
            if answer is not None:
                out.line(answer)
            gate.store_judged()

    def whole(buffer: bytearray, end: int) -> bool:
        answer = gate.replayed(buffer, end)  # an answer judged before: no line to cut
        if answer is None:
            return False
        out.line(answer)
        return True

    thread = threading.Thread(target=read_lines,
                              args=(server_fd, put, MAX_TOTAL_BYTES, PIPE_BYTES, whole),
                              daemon=True)
    thread.start()
    return thread


class _Child:
    """The server's process: started once with posix_spawn (subprocess would cost `run`
    its import, and a relay starts as often as an exec'd server), reaped once."""

    def __init__(self, program: str, argv: Sequence[str], env: Mapping[str, str]):
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        widen(self.from_child)
        # The pipes are not inheritable; only their copies on the child's 0 and 1 are.
        actions = [(os.POSIX_SPAWN_DUP2, to_child_r, 0), (os.POSIX_SPAWN_DUP2, from_child_w, 1)]
        try:
            self.pid = os.posix_spawn(program, list(argv), dict(env), file_actions=actions)
        except OSError:
            os.close(self.to_child)
            os.close(self.from_child)
            raise
        finally:  # the child has its copies
            os.close(to_child_r)
            os.close(from_child_w)
        self._lock = threading.Lock()
        self.reaped = threading.Event()

    def wait(self) -> int:
        """Block until the server exits (the client's to bound, as for an exec'd
        server); its status as a shell reports it (128 + a signal)."""
        _, status = os.waitpid(self.pid, 0)  # retried after a signal handler (PEP 475)
        with self._lock:
            self.reaped.set()
        return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) \
            else 128 + os.WTERMSIG(status)

    def signal(self, signum: int) -> None:
        with self._lock:  # never a signal to a pid that was reaped (and may be reused)
            if not self.reaped.is_set():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signum)


def relay_process(program: str, argv: Sequence[str], env: Mapping[str, str],
                  gate: ToolGate, *, stdin_fd: int = 0, stdout_fd: int = 1) -> int:
    """Start the server (in the current folder) and relay until it exits; its exit code."""
    # The handlers go in before the server starts: a client's SIGTERM in between would
    # otherwise end this process and leave the server running without its client.
    started: list[_Child] = []
    waiting: list[int] = []
    restore = _pass_signals(lambda signum: started[0].signal(signum) if started
                            else waiting.append(signum))
    try:
        child = _Child(program, argv, env)
    except OSError:
        restore()
        raise
    started.append(child)
    for signum in waiting:
        child.signal(signum)
    out = _Out(stdout_fd)
    to_child = writer(child.to_child)

    def send(line: bytes) -> bool:
        try:
            to_child(line)
        except OSError:  # the server closed its stdin or ended
            return False
        return True

    def close() -> None:
        with contextlib.suppress(OSError):
            os.close(child.to_child)
        _stop_after_eof(child)

    try:
        _client_side(gate, stdin_fd, send, close, out)
        server_side = _server_side(gate, child.from_child, out)
        gate.prepare()  # while the server starts
        code = child.wait()
        server_side.join(timeout=TERM_GRACE)
        gate.flush(TERM_GRACE)
    finally:
        restore()
    return code


def _stop_after_eof(child: _Child) -> None:
    """After the client's EOF the server gets EOF_GRACE, then SIGTERM, then SIGKILL: the
    client sees only this process, so this is the stdio transport's shutdown for it."""
    def stop() -> None:
        for grace, signum in ((EOF_GRACE, signal.SIGTERM), (TERM_GRACE, signal.SIGKILL)):
            if child.reaped.wait(grace):
                return
            child.signal(signum)

    threading.Thread(target=stop, daemon=True).start()


def _pass_signals(forward: Callable[[int], None]) -> Callable[[], None]:
    """SIGTERM, SIGHUP and SIGINT go to the server; a signal set to be ignored stays so."""
    previous: dict[int, object] = {}
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        if signal.getsignal(signum) is signal.SIG_IGN:
            continue
        previous[signum] = signal.signal(signum, lambda number, _: forward(number))

    def restore() -> None:
        for signum, handler in previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]

    return restore


def relay_bridge(serve: Callable[[int, int], None], gate: ToolGate, *, stdin_fd: int = 0,
                 stdout_fd: int = 1) -> None:
    """Run `serve(its_stdin, its_stdout)` (the url bridge) behind the gate."""
    to_bridge_r, to_bridge_w = os.pipe()
    from_bridge_r, from_bridge_w = os.pipe()
    widen(from_bridge_r)
    out = _Out(stdout_fd)

    def send(line: bytes) -> bool:
        try:
            writer(to_bridge_w)(line)
        except OSError:  # the bridge has ended
            return False
        return True

    def close() -> None:
        with contextlib.suppress(OSError):
            os.close(to_bridge_w)

    _client_side(gate, stdin_fd, send, close, out)
    server_side = _server_side(gate, from_bridge_r, out)
    gate.prepare()
    try:
        serve(to_bridge_r, from_bridge_w)
    finally:
        with contextlib.suppress(OSError):
            os.close(from_bridge_w)
        server_side.join(timeout=EOF_GRACE)
        gate.flush(TERM_GRACE)
        with contextlib.suppress(OSError):
            os.close(to_bridge_r)
