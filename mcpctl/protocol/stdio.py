"""The stdio transport: one JSON-RPC message per line on the server's stdin and stdout.

Anything on stdout that is not JSON-RPC is diagnosed as stdout pollution and ends the
exchange: the stdio page says a server MUST NOT write anything else there, and a
client that skipped such lines could pair replies with the wrong requests.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import Mapping, Sequence

from mcpctl.credentials.redact import redact_prefix
from mcpctl.protocol import jsonrpc
from mcpctl.protocol.jsonrpc import Json, NotJsonRpc, RequestHandler
from mcpctl.protocol.process import LIMITS, Limits, OutputError, ServerProcess
from mcpctl.protocol.session import ChannelError

# How long the exit code may follow the end of stdout and still make the diagnosis
# ("exited with code 1" rather than "closed its stdout"). A process's exit reaches
# asyncio through its child watcher, which a loaded machine delays past half a second
# (seen: the same server diagnosed both ways); only a server that closes its stdout and
# lives on pays the whole wait.
_EXIT_WAIT = 3.0
_QUOTE_CHARS = 80


class StdioChannel:
    """A `session.Channel` over a spawned server's standard streams."""

    def __init__(self, handle: RequestHandler, secrets: Sequence[str] = ()) -> None:
        self._dispatcher = jsonrpc.Dispatcher(self._send, handle)
        self._secrets = tuple(secrets)
        self._process: ServerProcess | None = None
        self._failure: ChannelError | None = None
        self._ending: asyncio.Task[None] | None = None
        self._opened = asyncio.Event()  # `spawn` has returned (or failed)
        self._closing = False
        self.opened_at = time.monotonic()
        self.first_answer_at: float | None = None
        self.protocol_version: str | None = None

    @classmethod
    async def open(
        cls, argv: Sequence[str], env: Mapping[str, str], cwd: str | None,
        handle: RequestHandler, limits: Limits = LIMITS, secrets: Sequence[str] = (),
    ) -> StdioChannel:
        """Start the server; `secrets` are values no diagnosis or stderr line may show."""
        channel = cls(handle, secrets)
        if not argv or not argv[0]:
            raise ChannelError("no command to run")
        try:
            channel._process = await ServerProcess.spawn(
                argv, env, cwd, on_line=channel._line, on_end=channel._ended, limits=limits,
                secrets=secrets,
            )
        except FileNotFoundError as error:
            missing = "working directory" if cwd and error.filename == cwd else "command"
            raise ChannelError(f"{missing} not found: {error.filename or argv[0]}") from None
        except OSError as error:
            raise ChannelError(f"cannot start {argv[0]}: {error.strerror or error}") from None
        finally:
            channel._opened.set()
        channel.opened_at = channel._process.started_at
        if channel._failure is not None:
            channel._process.fail(OutputError(str(channel._failure)))
        return channel

    def start(self, method: str, params: Json | None) -> asyncio.Future[Json]:
        message, future = self._dispatcher.open(method, params)
        if self._failure is not None:
            future.set_exception(self._failure)
        else:
            self._send(message)
        return future

    async def notify(self, method: str, params: Json | None = None) -> None:
        self._send(jsonrpc.notification(method, params))

    def stderr_tail(self) -> tuple[str, ...]:
        return self._process.stderr.lines() if self._process else ()

    def stderr_head(self) -> tuple[str, ...]:
        return self._process.stderr.first_lines() if self._process else ()

    async def aclose(self) -> None:
        self._closing = True
        if self._ending is not None:
            self._ending.cancel()
        self._dispatcher.fail_all(ChannelError("the connection was closed"))
        if self._process is not None:
            await self._process.shutdown()

    def abort(self) -> None:
        if self._process is not None:
            self._process.kill_now()

    def _send(self, message: Json) -> None:
        if self._process is not None:
            self._process.write(jsonrpc.encode(message))

    def _line(self, line: bytes) -> None:
        if self._failure is not None or not line.strip():
            return  # a blank line carries nothing; tolerated rather than fatal
        try:
            messages = jsonrpc.decode(line)
        except NotJsonRpc as error:
            # The line may arrive while `spawn` is still returning, before `_process` is
            # set: remember the failure either way, and stop the reader once it exists.
            diagnosis = _pollution(error.text, self._secrets)
            self._fail(ChannelError(diagnosis))
            if self._process is not None:
                self._process.fail(OutputError(diagnosis))
            return
        if self.first_answer_at is None:
            self.first_answer_at = time.monotonic()
        self._dispatcher.receive(messages)

    def _ended(self, error: OutputError | None) -> None:
        if self._closing:
            # Closed here: the end of stdout is the shutdown's, nothing to diagnose (a
            # task made now could outlive the loop, which asyncio reports on stderr).
            return
        if error is not None:
            self._fail(ChannelError(str(error)))
        else:
            # The exit code makes the diagnosis; it may arrive just after stdout closes.
            self._ending = asyncio.get_running_loop().create_task(self._diagnose_exit())

    async def _diagnose_exit(self) -> None:
        # A server that exits at once can end its stdout before `spawn` has returned it
        # (seen under load: most of 200 such servers diagnosed "closed its stdout").
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._opened.wait(), _EXIT_WAIT)
        code = await self._process.wait_exit(_EXIT_WAIT) if self._process else None
        when = "in the middle of the exchange" if self._dispatcher.answered else "before answering"
        self._fail(ChannelError(f"{_exit_text(code)} {when}", closed=True))

    def _fail(self, failure: ChannelError) -> None:
        if self._failure is None:
            self._failure = failure
        self._dispatcher.fail_all(self._failure)


def _exit_text(code: int | None) -> str:
    if code is None:
        return "server closed its stdout"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"server was killed by {name}"
    return f"server exited with code {code}"


def _pollution(text: str, secrets: Sequence[str]) -> str:
    shown = redact_prefix(text.strip(), secrets, _QUOTE_CHARS)
    return f"stdout pollution: server printed {shown!r} (not JSON-RPC) on stdout"
