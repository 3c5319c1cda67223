"""`protocol/lines.py`, the splitter both relays read with: lines across reads, a line
over the cap inside one read, and the cap met before a line ends. Each test names the
bug it was shown to catch, planted by hand."""

from __future__ import annotations

import os
import threading
import time

from mcpctl.protocol.lines import READ_CHUNK, TOO_LONG, read_lines


def split(data: bytes, cap: int) -> list[bytes | None]:
    """What `read_lines` hands on for DATA written to a pipe by another thread."""
    read, write = os.pipe()

    def feed() -> None:
        os.write(write, data)
        os.close(write)

    writer = threading.Thread(target=feed)
    writer.start()
    got: list[bytes | None] = []
    try:
        read_lines(read, got.append, cap)
    finally:
        writer.join()
        os.close(read)
    return got


def test_lines_are_split_once_and_capped() -> None:
    long_line = b"x" * 300_000  # spans several reads
    data = b'{"a":1}\r\n' + long_line + b"\n\n" + b'{"b":2}\n' + b"y" * 20 + b'\n{"c":3}'
    assert split(data, 100_000) == [b'{"a":1}', TOO_LONG, b'{"b":2}', b"y" * 20, b'{"c":3}',
                                    None]


def test_a_line_under_the_cap_that_spans_reads_arrives_whole() -> None:
    """Planted: the line put together from several reads never handed on."""
    line = b"a" * (3 * READ_CHUNK + 5)
    assert split(line + b"\nb\n", cap=1 << 20) == [line, b"b", None]


def test_a_line_over_the_cap_inside_one_read_is_too_long() -> None:
    """A line that arrives whole in one read is held to the cap too. Planted: no
    `TOO_LONG` for it, and the line vanished without a word."""
    assert split(b"z" * 20 + b"\nok\n", cap=10) == [TOO_LONG, b"ok", None]


def test_a_line_is_too_long_as_soon_as_it_passes_the_cap() -> None:
    """A writer that never ends its line cannot make the reader hold it: `TOO_LONG` is
    handed on while the line is still open. Planted: the check of the part left over
    dropped, so nothing was said until a newline came (and the part grew without bound
    until then)."""
    read, write = os.pipe()
    got: list[bytes | None] = []
    reader = threading.Thread(target=read_lines, args=(read, got.append, 10))
    reader.start()
    try:
        os.write(write, b"y" * 100)  # no newline yet
        deadline = time.monotonic() + 30
        while not got and time.monotonic() < deadline:
            time.sleep(0.01)
        seen = list(got)
    finally:
        os.write(write, b"\nnext\n")
        os.close(write)
        reader.join(timeout=30)
        os.close(read)
    assert seen == [TOO_LONG]
    assert got == [TOO_LONG, b"next", None]
