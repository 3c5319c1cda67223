"""Ctrl-C, SIGTERM or SIGHUP while servers are probed stops them; the caller then says
so and exits with 128 + the signal's number.

SIGINT is taken through the event loop like the others (issue 15): left to asyncio's
runner, a Ctrl-C said nothing, and one delivered to a helper thread could leave the
loop asleep until the probe timeout.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator

from mcpctl.errors import ExitCode, McpctlError

# SIGHUP: the terminal closed. Windows has neither this nor process groups to stop.
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                     if hasattr(signal, name))


class ProbingStopped(McpctlError):
    """Ctrl-C, SIGTERM or SIGHUP arrived while servers ran; they were stopped."""

    exit_code = ExitCode.INTERRUPTED

    def __init__(self, signum: int) -> None:
        name = signal.Signals(signum).name
        said = "interrupted (Ctrl-C)" if name == "SIGINT" else f"stopped by {name}"
        super().__init__(f"{said}; the servers being probed were stopped")
        # The shell's convention for "ended by this signal", from the one exit-code table;
        # the one error handler reports it like any other error.
        self.exit_code = {"SIGINT": ExitCode.INTERRUPTED, "SIGTERM": ExitCode.TERMINATED}.get(
            name, ExitCode.HANGUP)


@contextlib.contextmanager
def stopping_on_signals(received: list[int]) -> Iterator[None]:
    """While the block runs, SIGINT, SIGTERM and SIGHUP cancel the current task, which kills
    every server's process group (as Ctrl-C does) and ends `asyncio.run` with
    CancelledError; `received` says which signal it was."""
    import asyncio  # noqa: PLC0415

    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    previous = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}

    def stop(signum: int) -> None:
        received.append(signum)
        if task is not None:
            task.cancel()

    installed = []
    for signum in STOP_SIGNALS:
        if previous[signum] is signal.SIG_IGN:
            continue  # `nohup mcpctl cost`: the user asked for this signal to be ignored
        try:
            loop.add_signal_handler(signum, stop, signum)
        except (NotImplementedError, RuntimeError, ValueError):
            continue  # no signal handling here (not the main thread, or not POSIX)
        installed.append(signum)
    try:
        yield
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)
            handler = previous[signum]
            if handler is not None:  # None: set outside Python, cannot be put back
                signal.signal(signum, handler)
