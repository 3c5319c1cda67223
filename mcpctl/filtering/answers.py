"""Filtered `tools/list` answers kept as templates, keyed by the server's exact bytes
(pure; issue 29).

The relay sends each client `tools/list` to the server under an id of its own, a
string no client can guess (`ToolGate`), so a server that answers the same way twice
answers with the same bytes except for that id. An answer is cut at its id: the bytes
before it and the bytes after it are the key, and the value is the answer the gate
wrote from what it judged, without an id, so the client's id is spliced in. A line is
a hit only when it is exactly `before + (an id in flight) + after`: one byte changed
anywhere (a tool added, an annotation flipped) and it is judged again. Judging needs
the policy too, but a gate's policy is fixed for its session; the disk store
(`answer_store`) puts the policy and the rules into its key.
"""

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

LIMIT = 16  # answers kept per session (pages of one list, or a server that alternates)


class Judged(NamedTuple):
    """What a gate wrote for one server answer, and what it must redo on a hit."""

    rest: bytes  # the filtered answer after `{"id":<id>,`, newline included
    new: tuple[str, ...]  # tools reported as new (once per session)
    tools: Sequence[Mapping[str, Any]] | None  # definitions to learn (None: in `encoded`)
    encoded: bytes = b""  # the same definitions as JSON, from the disk store


class Template(NamedTuple):
    before: bytes
    after: bytes
    judged: Judged


def cut(line: bytes, id_bytes: bytes) -> tuple[bytes, bytes] | None:
    """`line` without its id, as (before, after); None unless the id is there exactly
    once (a server that quotes the id elsewhere is judged every time)."""
    at = line.find(id_bytes)
    if at < 0 or line.find(id_bytes, at + 1) >= 0:
        return None
    return line[:at], line[at + len(id_bytes):]


def with_id(id_bytes: bytes, rest: bytes) -> bytes:
    return b'{"id":' + id_bytes + b"," + rest


class Templates:
    """The last LIMIT judged answers of one session, the latest first."""

    def __init__(self) -> None:
        self.entries: list[Template] = []

    def match(self, line: bytes, ids: Mapping[bytes, str]) -> tuple[Template, str] | None:
        """The template `line` is, with the id in flight it answers, if any."""
        return self.match_in(line, len(line), ids)

    def match_in(self, buffer: bytes | bytearray, end: int, ids: Mapping[bytes, str]
                 ) -> tuple[Template, str] | None:
        """`match` of `buffer[:end]`, read in place (no copy of the line)."""
        for template in self.entries:
            before, after = len(template.before), len(template.after)
            if end > before + after and buffer.startswith(template.before, 0, end) \
                    and buffer.endswith(template.after, 0, end):
                slot = ids.get(bytes(buffer[before:end - after]))
                if slot is not None:
                    return template, slot
        return None

    def add(self, template: Template) -> None:
        self.entries = [template, *self.entries[:LIMIT - 1]]
