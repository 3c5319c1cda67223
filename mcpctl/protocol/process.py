"""A server process that cannot hang mcpctl or outlive it (DESIGN §6 "Process hygiene").

The server runs in its own session, hence its own process group, so a signal to the
group also reaches what it started (`npx` → `node`, shell → child). stdout is cut
into lines under a cap on line length and on total bytes; stderr is drained all the
time (a full pipe would block the server) into a bounded head and tail. Shutdown
follows the stdio transport page (2026-07-28 basic/transports/stdio "Shutdown"):
close stdin, wait, then SIGTERM and SIGKILL to the whole group, each wait bounded.

A descendant can leave the group (`setsid()`, a double fork). On Linux mcpctl makes
itself a child subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`, issue 11, item 8), so such
an orphan is re-parented to mcpctl rather than to PID 1; once the last server of this
process has shut down, every process re-parented to mcpctl since the first server
started is killed and reaped (`_sweep_orphans`). Elsewhere (macOS, the BSDs) there is
no subreaper: a descendant that leaves the group and outlives its parent is not
stopped — the group is.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, cast

from mcpctl.credentials.redact import redact

MAX_LINE_BYTES = 8 * 1024 * 1024
MAX_TOTAL_BYTES = 64 * 1024 * 1024
STDERR_LINES = 20
STDERR_LINE_CHARS = 500
# Lines are kept longer than they are shown, so a secret that straddles the cut is
# masked whole before the cut is made (a masked prefix would still leak).
_KEPT_LINE_CHARS = STDERR_LINE_CHARS * 4
SHUTDOWN_GRACE = 1.0
_POLL = 0.02
_PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h
_SWEEP_SECONDS = 2.0
_START_WAIT = 30.0  # a cancelled start still connecting its pipes


class OutputError(Exception):
    """stdout broke a cap; the message is the one-line diagnosis."""


@dataclass(frozen=True)
class Limits:
    max_line_bytes: int = MAX_LINE_BYTES
    max_total_bytes: int = MAX_TOTAL_BYTES


LIMITS = Limits()


class StderrLog:
    """The first and last lines a server wrote to stderr, each line capped.

    `secrets` are masked (with anything else that looks like a credential) in every
    line handed out; `head` and `tail` keep the lines as written.
    """

    def __init__(self, secrets: Sequence[str] = ()) -> None:
        self.head: list[str] = []
        self.tail: deque[str] = deque(maxlen=STDERR_LINES)
        self._partial = bytearray()
        self._secrets = tuple(secrets)

    def feed(self, data: bytes) -> None:
        *lines, rest = (bytes(self._partial) + data).split(b"\n")
        for line in lines:
            self._add(line)
        # A line without end is kept only up to the cap, so memory stays bounded.
        self._partial = bytearray(rest[:_KEPT_LINE_CHARS])

    def close(self) -> None:
        if self._partial:
            self._add(bytes(self._partial))
            self._partial.clear()

    def _add(self, raw: bytes) -> None:
        line = raw.decode("utf-8", errors="replace").rstrip("\r")[:_KEPT_LINE_CHARS]
        if len(self.head) < STDERR_LINES:
            self.head.append(line)
        self.tail.append(line)

    def lines(self) -> tuple[str, ...]:
        """The last lines, fit to show."""
        return tuple(self._shown(line) for line in self.tail)

    def first_lines(self) -> tuple[str, ...]:
        return tuple(self._shown(line) for line in self.head)

    def _shown(self, line: str) -> str:
        return redact(line, self._secrets)[:STDERR_LINE_CHARS]


class _Protocol(asyncio.SubprocessProtocol):
    def __init__(self, owner: ServerProcess) -> None:
        self._owner = owner

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # Known before the start returns to `spawn`: a server that dies at once can end
        # its stdout, and have its exit code read for the diagnosis, before `spawn`
        # resumes (seen: "closed its stdout" for a server that exited with code 2).
        if isinstance(transport, asyncio.SubprocessTransport):
            self._owner._transport = transport

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 1:
            self._owner._stdout_data(data)
        else:
            self._owner.stderr.feed(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1:
            self._owner._stdout_closed()
        elif fd == 2:
            self._owner.stderr.close()

    def process_exited(self) -> None:
        self._owner._exited.set()


class ServerProcess:
    """One spawned server. `on_line` gets each stdout line; `on_end` gets why it stopped."""

    def __init__(
        self, on_line: Callable[[bytes], None], on_end: Callable[[OutputError | None], None],
        limits: Limits, secrets: Sequence[str] = (),
    ) -> None:
        self._on_line = on_line
        self._on_end = on_end
        self._limits = limits
        self._buffer = bytearray()
        self._total = 0
        self._ended = False
        self._exited = asyncio.Event()
        self._transport: asyncio.SubprocessTransport | None = None
        self.stderr = StderrLog(secrets)
        self.pid = 0
        self.started_at = time.monotonic()

    @classmethod
    async def spawn(
        cls, argv: Sequence[str], env: Mapping[str, str], cwd: str | None, *,
        on_line: Callable[[bytes], None], on_end: Callable[[OutputError | None], None],
        limits: Limits = LIMITS, secrets: Sequence[str] = (),
    ) -> ServerProcess:
        """Start `argv`; OSError (no such command, not executable, bad cwd) propagates.

        `secrets` are the values stderr lines must never show (see `StderrLog`).
        """
        process = cls(on_line, on_end, limits, secrets)
        _Orphans.before_spawn()
        loop = asyncio.get_running_loop()
        start = asyncio.ensure_future(loop.subprocess_exec(
            lambda: _Protocol(process), *argv,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=dict(env), cwd=cwd,
            start_new_session=True,  # own session and process group: see module doc
        ))
        try:
            transport, _ = await asyncio.shield(start)
        except asyncio.CancelledError:
            # Cancelled after the fork, while asyncio connects the pipes: its own
            # clean-up would kill the child alone, leaving what the child started in
            # its group. The start runs to its end instead, then the group is stopped.
            await process._stop_cancelled_start(start)
            raise
        process._started(transport)
        return process

    def _started(self, transport: asyncio.SubprocessTransport) -> None:
        self._transport = transport
        self.pid = transport.get_pid()
        self.started_at = time.monotonic()
        _Orphans.spawned(self.pid)

    async def _stop_cancelled_start(
        self, start: asyncio.Future[tuple[asyncio.SubprocessTransport, _Protocol]],
    ) -> None:
        await asyncio.wait({start}, timeout=_START_WAIT)
        if not start.done():
            return  # asyncio's own clean-up is the only one left
        if start.cancelled() or start.exception() is not None:
            return  # nothing started, or asyncio already killed and reaped the child
        self._started(start.result()[0])
        self._signal(signal.SIGKILL)
        await self.shutdown()

    @property
    def returncode(self) -> int | None:
        return self._transport.get_returncode() if self._transport else None

    def write(self, data: bytes) -> None:
        pipe = self._pipe(0)
        if pipe is not None and not pipe.is_closing():
            pipe.write(data)

    def _pipe(self, fd: int) -> asyncio.WriteTransport | None:
        if self._transport is None:
            return None
        return cast("asyncio.WriteTransport | None", self._transport.get_pipe_transport(fd))

    def _stdout_data(self, data: bytes) -> None:
        if self._ended:
            return
        self._total += len(data)
        if self._total > self._limits.max_total_bytes:
            self.fail(OutputError(
                f"server wrote more than {self._limits.max_total_bytes} bytes on stdout"
            ))
            return
        start = len(self._buffer)
        self._buffer += data
        self._split_lines(start)

    def _split_lines(self, scan_from: int) -> None:
        begin = 0
        newline = self._buffer.find(b"\n", scan_from)
        while newline >= 0 and not self._ended:
            self._on_line(bytes(self._buffer[begin:newline]))
            begin = newline + 1
            newline = self._buffer.find(b"\n", begin)
        del self._buffer[:begin]
        if len(self._buffer) > self._limits.max_line_bytes and not self._ended:
            self.fail(OutputError(
                f"line longer than {self._limits.max_line_bytes} bytes on stdout"
            ))

    def _stdout_closed(self) -> None:
        if self._buffer and not self._ended:
            self._on_line(bytes(self._buffer))
        self.fail(None)

    def fail(self, error: OutputError | None) -> None:
        """Stop taking stdout; `on_end` learns why (None: the server closed it)."""
        if self._ended:
            return
        self._ended = True
        self._buffer = bytearray()
        if error is not None:
            # Stop reading at once: whatever else the server writes is not wanted.
            reader = self._transport.get_pipe_transport(1) if self._transport else None
            if isinstance(reader, asyncio.ReadTransport):
                reader.pause_reading()
        self._on_end(error)

    async def wait_exit(self, timeout: float) -> int | None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._exited.wait(), timeout)
        return self.returncode

    async def shutdown(self, grace: float = SHUTDOWN_GRACE) -> None:
        """Close stdin, wait; then SIGTERM, wait; then SIGKILL, wait: group-wide."""
        pipe = self._pipe(0)
        if pipe is not None:
            pipe.close()
        try:
            if await self._wait_group(grace):
                return
            self._signal(signal.SIGTERM)
            if await self._wait_group(grace):
                return
            self._signal(signal.SIGKILL)
            await self._wait_group(grace)
        finally:
            self._close_transport()
            _Orphans.finished(self.pid, wait=True)

    def kill_now(self) -> None:
        """SIGKILL the whole group without waiting: for cancellation (Ctrl-C)."""
        self._signal(signal.SIGKILL)
        _Orphans.finished(self.pid, wait=False)

    async def _wait_group(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._exited.is_set() and not group_alive(self.pid):
                return True
            await asyncio.sleep(_POLL)
        return self._exited.is_set() and not group_alive(self.pid)

    def _signal(self, signum: signal.Signals) -> None:
        if self.pid:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signum)

    def _close_transport(self) -> None:
        if self._transport is not None and not self._transport.is_closing():
            self._transport.close()


def group_alive(pgid: int) -> bool:
    """Whether a process of group `pgid` still runs (zombies, already dead, do not count).

    Orphaned members are reparented to PID 1, which in containers often never reaps
    them; where /proc exists their state is read so a zombie is not waited for.
    """
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    proc = Path("/proc")
    if not proc.is_dir():
        return True
    return any(_live_member(entry, pgid) for entry in proc.iterdir() if entry.name.isdigit())


def _live_member(entry: Path, pgid: int) -> bool:
    try:
        stat = (entry / "stat").read_text()
    except OSError:
        return False
    # Fields after the command name, which may itself hold spaces and parentheses.
    fields = stat.rsplit(")", 1)[-1].split()
    return len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ("Z", "X")


class _Orphans:
    """Descendants that left their server's group, re-parented to this process."""

    subreaper = False
    servers: ClassVar[set[int]] = set()  # every server pid spawned here: asyncio reaps them
    running: ClassVar[set[int]] = set()
    since_ticks: int | None = None  # start of the first server of this batch, in ticks

    @classmethod
    def before_spawn(cls) -> None:
        if not cls.subreaper and sys.platform.startswith("linux"):
            cls.subreaper = _become_subreaper()

    @classmethod
    def spawned(cls, pid: int) -> None:
        cls.servers.add(pid)
        cls.running.add(pid)
        if cls.since_ticks is None:
            cls.since_ticks = _start_ticks(pid)

    @classmethod
    def finished(cls, pid: int, *, wait: bool) -> None:
        cls.running.discard(pid)
        if not cls.running and cls.subreaper and cls.since_ticks is not None:
            _sweep_orphans(cls.since_ticks, frozenset(cls.servers), wait=wait)
        if not cls.running:
            cls.since_ticks = None  # a child started between batches is not an orphan


def _become_subreaper() -> bool:
    import ctypes  # noqa: PLC0415 - only a prober on Linux needs it

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _stat_fields(pid: int | str) -> list[str]:
    """Fields of /proc/PID/stat after the command name (state is [0], ppid [1])."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return []
    return text.rsplit(")", 1)[-1].split()


def _start_ticks(pid: int) -> int | None:
    fields = _stat_fields(pid)
    return int(fields[19]) if len(fields) > 19 else None


def _orphans(since: int, servers: frozenset[int]) -> list[tuple[int, bool]]:
    """(pid, is a zombie) of processes re-parented to us since the first server started:
    children mcpctl started itself before that, and the servers, are not among them."""
    me = str(os.getpid())
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in servers:
            continue
        fields = _stat_fields(entry.name)
        if len(fields) > 19 and fields[1] == me and int(fields[19]) >= since:
            found.append((int(entry.name), fields[0] in ("Z", "X")))
    return found


def _sweep_orphans(since: int, servers: frozenset[int], *, wait: bool) -> None:
    """Kill and reap them; an orphan's own children are re-parented in turn, so repeat
    (bounded) until none is left."""
    deadline = time.monotonic() + (_SWEEP_SECONDS if wait else 0.0)
    while True:
        found = _orphans(since, servers)
        for pid, zombie in found:
            if not zombie:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)
        if not found or time.monotonic() >= deadline:
            return
        time.sleep(_POLL)
