"""Splitting a descriptor into JSON-RPC lines, bounded, on the standard library alone.

Both relays read this way: the URL bridge (`bridge_io`, which also runs asyncio) and
the tool filter of `mcpctl run` (`filter_relay`, which must not import asyncio: it is
on every filtered client start).
"""

import os
from collections.abc import Callable

READ_CHUNK = 64 * 1024
TOO_LONG = b"\0too-long"
_NEWLINE = ord("\n")  # a line past the cap; never valid JSON, so never a message


Whole = Callable[[bytearray, int], bool]  # took buffer[:end] (one line) itself?


def read_lines(fd: int, put: Callable[[bytes | None], None], cap: int,
               chunk_bytes: int = READ_CHUNK, whole: Whole | None = None) -> None:
    """Split `fd` into lines (each byte scanned once; `None` at EOF). A line past `cap`
    becomes TOO_LONG and the rest of it is skipped; blank lines are dropped. Reads go
    into one buffer, kept for the whole stream, so a line that arrives whole in one read
    (a large answer through a wide pipe, mostly) costs one copy and no new memory.
    `whole(buffer, end)`, when given, is offered each read that ends a line and follows
    none left over (`buffer[:end]`, without its newline); when it takes it, nothing is
    scanned or copied."""
    buffer = bytearray(chunk_bytes)
    view = memoryview(buffer)
    pending = bytearray()
    skipping = False
    while True:
        try:
            size = os.readv(fd, (buffer,))
        except OSError:
            size = 0
        if not size:
            break
        if whole is not None and not pending and not skipping \
                and buffer[size - 1] == _NEWLINE and whole(buffer, size - 1):
            continue
        start = 0
        while (end := buffer.find(b"\n", start, size)) != -1:
            if not skipping:
                if pending:
                    pending += view[start:end]
                    _put_line(bytes(pending), put, cap)
                else:
                    _put_line(bytes(view[start:end]), put, cap)
            pending.clear()
            skipping = False
            start = end + 1
        if not skipping and start < size:
            pending += view[start:size]
            if len(pending) > cap:
                put(TOO_LONG)
                pending.clear()
                skipping = True
    if pending and not skipping:
        _put_line(bytes(pending), put, cap)
    put(None)


def _put_line(line: bytes, put: Callable[[bytes | None], None], cap: int) -> None:
    line = line.rstrip(b"\r")
    if len(line) > cap:
        put(TOO_LONG)
    elif line.strip():
        put(line)
