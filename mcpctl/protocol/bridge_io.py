"""The stdio side of the bridge: stdin cut into lines by one thread, stdout written
in whole lines. Both are bounded and neither can keep the process from exiting."""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable

from mcpctl.protocol.lines import read_lines


class ClientGone(Exception):
    """stdout is closed: nobody is left to answer."""


def writer(fd: int) -> Callable[[bytes], None]:
    """Whole lines to `fd`, blocking: a client that stops reading stalls its server,
    as with any stdio server. A closed pipe means the client left."""

    def write(data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(fd, view):]
        except OSError:
            raise ClientGone from None

    return write


def start_reader(fd: int, lines: asyncio.Queue[bytes | None], cap: int) -> None:
    """Read `fd` in a thread (works for pipes, terminals and files alike, and never
    holds a lock the interpreter needs at exit) and queue its lines; `None` is EOF."""
    loop = asyncio.get_running_loop()

    def put(item: bytes | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody listens
            loop.call_soon_threadsafe(lines.put_nowait, item)

    thread = threading.Thread(target=read_lines, args=(fd, put, cap), daemon=True)
    thread.start()
