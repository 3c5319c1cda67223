"""stdio to Streamable HTTP: `mcpctl run NAME` for a remote server (issue 12 item 6).

A client that can only start stdio servers starts `mcpctl run NAME`; each JSON-RPC
message it writes on stdin (one per line) becomes a POST to the server, and every
message the server returns — a JSON body, or each event of the stream scoped to that
request, server-to-client requests and notifications included — is written to stdout
as one line. The client's answers to server requests are POSTed like anything else.
The bridge does not speak MCP itself: it mirrors each message's metadata into the
headers both revisions want (`bridge_relay`). A server of the deprecated HTTP+SSE
transport (`type = "sse"`) is bridged the same way over its event stream and POST
endpoint (`bridge_sse`). stdin and stdout are `bridge_io`'s.

Bounds: a stdin line and each reply are capped (`process.Limits`); connecting, writing
and waiting for a pooled connection are timed out; at most `MAX_IN_FLIGHT` POSTs run
at once (a request past it is answered with an error at once, never queued, so a
server waiting for the client's answer cannot deadlock it). How long a request may
run is the client's to bound, as with a stdio server: its cancellation closes that
request's stream, closing stdin ends everything after `EOF_GRACE`, and SIGTERM or
SIGHUP at once (the session is still ended).

A refusal no later message can cure (a redirect, 401/403, 404 for the endpoint or the
session, nothing listening) ends the bridge: the request gets a JSON-RPC error, stderr
one line, and the process exit 6. Every line the bridge writes itself is redacted with
the values the launch substituted, and the HTTP library's error text is never quoted
(the config's headers were sent; see `http_wire`).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal

from mcpctl.errors import ExitCode, McpctlError, ServerFailed
from mcpctl.launch import Launch
from mcpctl.model import Transport
from mcpctl.protocol.bridge_io import start_reader, writer
from mcpctl.protocol.bridge_relay import DEFAULT_TIMEOUT, MAX_IN_FLIGHT, Bridge, Remote
from mcpctl.protocol.bridge_sse import SseBridge
from mcpctl.protocol.http_wire import check_headers, check_url, skip_httpx_cli, tls_verify
from mcpctl.protocol.session import ChannelError


def remote_of(launch: Launch, secrets: tuple[str, ...], *, allow_insecure: bool) -> Remote:
    return Remote(launch.name, launch.url or "", dict(launch.headers), launch.transport,
                  launch.timeout or DEFAULT_TIMEOUT, secrets, allow_insecure)


def serve(remote: Remote, stdin_fd: int = 0, stdout_fd: int = 1) -> None:
    """Bridge until stdin closes; raises ServerFailed (exit 6) for a fatal refusal."""
    try:
        check_url(remote.url, allow_insecure=remote.allow_insecure)
        check_headers(remote.headers)
    except ChannelError as error:
        raise ServerFailed(_redacted(f"server {remote.name!r}: {error}", remote)) from None
    failure, signum = asyncio.run(_serve(remote, stdin_fd, stdout_fd))
    if failure is not None:
        raise ServerFailed(_redacted(f"server {remote.name!r}: {failure}", remote))
    if signum is not None:
        raise BridgeStopped(signum)


def _redacted(message: str, remote: Remote) -> str:
    """An error may quote the resolved url (a malformed one, whole): the keyring values
    it holds are replaced, as `cost` and `doctor` do (issue 23, item 6)."""
    from mcpctl.credentials.redact import redact  # noqa: PLC0415 - only for an error

    return redact(message, remote.secrets)


class BridgeStopped(McpctlError):
    """SIGTERM or SIGHUP: the session was ended at once; exit 128 + the signal."""

    def __init__(self, signum: int) -> None:
        name = signal.Signals(signum).name
        super().__init__(f"stopped by {name}; the server's session was ended")
        self.exit_code = ExitCode.TERMINATED if name == "SIGTERM" else ExitCode.HANGUP


async def _serve(remote: Remote, stdin_fd: int, stdout_fd: int
                 ) -> tuple[str | None, int | None]:
    skip_httpx_cli()
    import httpx  # noqa: PLC0415 - only a remote server's bridge pays for it

    timeout = httpx.Timeout(remote.timeout, read=None)
    pool = httpx.Limits(max_connections=MAX_IN_FLIGHT + 1, max_keepalive_connections=16)
    async with httpx.AsyncClient(headers=dict(remote.headers), timeout=timeout, limits=pool,
                                 follow_redirects=False,
                                 verify=tls_verify(remote.url)) as client:
        kind = SseBridge if remote.transport is Transport.SSE else Bridge
        bridge = kind(remote, client, writer(stdout_fd))
        lines: asyncio.Queue[bytes | None] = asyncio.Queue()
        start_reader(stdin_fd, lines, remote.limits.max_line_bytes)
        _stop_on_signals(bridge)
        try:
            return await bridge.run(lines), bridge.stopped_by
        finally:
            await bridge.close()


def _stop_on_signals(bridge: Bridge) -> None:
    """A client that stops its server with SIGTERM (2026-07-28 transports/stdio
    "Shutdown") still gets its session ended; a signal set to be ignored stays so."""
    loop = asyncio.get_running_loop()
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is None or signal.getsignal(signum) is signal.SIG_IGN:
            continue
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, bridge.stop, signum)

