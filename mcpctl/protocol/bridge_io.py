"""The stdio side of the bridge: stdin cut into lines by one thread, stdout written
in whole lines. Both are bounded and neither can keep the process from exiting."""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable

_READ_CHUNK = 64 * 1024
TOO_LONG = b"\0too-long"  # a stdin line past the cap; never valid JSON, so never a message


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


def read_lines(fd: int, put: Callable[[bytes | None], None], cap: int) -> None:
    """Split `fd` into lines, each scanned once; a line past `cap` becomes `TOO_LONG`
    and the rest of it is skipped."""
    pending = bytearray()
    skipping = False
    while True:
        try:
            chunk = os.read(fd, _READ_CHUNK)
        except OSError:
            chunk = b""
        if not chunk:
            break
        *done, rest = chunk.split(b"\n")
        for index, part in enumerate(done):
            line = bytes(pending) + part if index == 0 else part
            if index == 0:
                pending.clear()
                if skipping:
                    skipping = False
                    continue
            _put_line(line, put, cap)
        if not skipping:
            pending += rest
            if len(pending) > cap:
                put(TOO_LONG)
                skipping = True
                pending.clear()
    if pending and not skipping:
        _put_line(bytes(pending), put, cap)
    put(None)


def _put_line(line: bytes, put: Callable[[bytes | None], None], cap: int) -> None:
    line = line.rstrip(b"\r")
    if len(line) > cap:
        put(TOO_LONG)
    elif line.strip():
        put(line)

