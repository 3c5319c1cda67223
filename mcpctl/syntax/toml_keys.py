"""Where each key of a TOML text is written: one left-to-right pass (pure).

tomllib gives values, not positions. Reading a file line by line takes a line inside a
multi-line string that looks like `[mcp_servers.x]` or `command = …` for a header or a
key, so a repo could make `list`, `show` and `check` point at a decoy line. Here one
regular expression cuts the text into tokens (strings of the four kinds with their
escapes, comments, punctuation, bare words) and a small state machine follows
statements, headers, dotted keys, arrays and inline tables across lines (TOML 1.0,
https://toml.io/en/v1.0.0).

Linear whatever the text holds, valid or not: every alternative of `_TOKEN` that starts
to match succeeds (its body is possessive, its closing quotes optional), so nothing is
read twice, and the machine takes one step per token. Paths are built only down to
`MAX_DEPTH` parts, so no key costs more than that to record (`a.a.a…` 300,000 times is
valid TOML); a deeper key is placed by its nearest recorded ancestor.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterator

from mcpctl.syntax.jsonc import JsonPath, Lines

# A multi-line string may end with one or two of its own quotes before the closing three.
_TOKEN = re.compile(
    r'"""(?:[^"\\]|\\[\s\S]|""?(?!"))*+(?:"{3,5})?'
    r"|'''(?:[^']|''?(?!'))*+(?:'{3,5})?"
    r'|"(?:[^"\\\n]|\\.)*+"?'
    r"|'[^'\n]*+'?"
    r"|#[^\n]*+"
    r"|[\n\[\]{}=,.]"
    r"|[^\s\[\]{}=,.\"'#]++"
)
_NOT_A_KEY = frozenset("\n#[]{}=,.")  # first characters of tokens that cannot be key parts
MAX_DEPTH = 32
# tomllib's memory grows with the square of a dotted key's length (16 KB of `a.a.a…`
# takes ~260 MB): a repo's file with a longer key is refused before tomllib sees it.
MAX_KEY_PARTS = 128


class KeyTooLong(ValueError):
    """A key or header of more dotted parts than allowed, at (line, column)."""

    def __init__(self, allowed: int, line: int, column: int) -> None:
        super().__init__(f"a key of more than {allowed} dotted parts")
        self.line, self.column = line, column

Positions = dict[JsonPath, tuple[int, int]]
_Step = Callable[[str, int, int], None]


def tokens(text: str) -> Iterator[tuple[int, int]]:
    """The (start, end) of every token of `text`, in order; whitespace and a leading
    byte-order mark are none."""
    for match in _TOKEN.finditer(text, 1 if text.startswith("\ufeff") else 0):
        yield match.span()


def key_positions(text: str, *, max_parts: int | None = None) -> Positions:
    """The 1-based (line, column) of every key path: a header's `[`, a key's first
    character. The first mention of a path wins (`[a.b]` also places `a`). Raises
    KeyTooLong for a key of more than `max_parts` parts (MAX_KEY_PARTS before tomllib)."""
    indexer = _Indexer(text, max_parts)
    for start, end in tokens(text):
        indexer.step(text[start], start, end)
    return indexer.positions


def unquote(raw: str) -> str:
    """The name a key part stands for: bare, "basic" (escapes decoded) or 'literal'."""
    quote = raw[:1]
    if quote not in ("'", '"'):
        return raw
    if len(raw) < 2 or raw[-1] != quote:  # not closed: the text is not TOML anyway
        return raw[1:]
    if quote == "'" or "\\" not in raw:
        return raw[1:-1]
    try:
        value: str = tomllib.loads(f"k = {raw}")["k"]
    except tomllib.TOMLDecodeError:
        return raw[1:-1]
    return value


class _Value:
    """An array or inline table being read; `path` is None below MAX_DEPTH."""

    __slots__ = ("index", "is_array", "path")

    def __init__(self, path: JsonPath | None, *, is_array: bool) -> None:
        self.path = path
        self.is_array = is_array
        self.index = 0


class _Indexer:
    """The state machine: `step` is the handler of the current state, given each token's
    first character and span."""

    def __init__(self, text: str, max_parts: int | None) -> None:
        self.text = text
        self.max_parts = max_parts
        self.positions: Positions = {}
        self.lines: Lines | None = None
        self.step: _Step = self._statement
        self.table: JsonPath | None = ()
        self.arrays: dict[JsonPath, int] = {}  # each `[[x]]` table's last index
        self.values: list[_Value] = []  # the arrays and inline tables open here
        self.owner: JsonPath | None = ()  # the table the key being read belongs to
        self.parts: list[str] = []  # the key or header being read
        self.key_start = 0
        self.appends = False  # the header being read is `[[…]]`
        self.value_path: JsonPath | None = ()

    def _add_part(self, start: int, end: int) -> None:
        self.parts.append(unquote(self.text[start:end]))
        if self.max_parts is not None and len(self.parts) > self.max_parts:
            raise KeyTooLong(self.max_parts, *Lines(self.text).at(self.key_start))

    # ---- statements and headers ---------------------------------------------------------

    def _statement(self, first: str, start: int, end: int) -> None:
        if first == "[":
            self.step, self.key_start, self.appends, self.parts = self._header, start, False, []
        elif first not in _NOT_A_KEY:
            self._begin_key(self.table, start, end)

    def _header(self, first: str, start: int, end: int) -> None:
        if first == "[" and start == self.key_start + 1:
            self.appends = True
        elif first == "]":
            path, fits = self._resolve(self.parts)
            self._record(path, self.key_start, 0)
            self.table = path if fits else None
            self.step = self._line_end
        elif first == "\n":
            self.step = self._statement
        elif first not in _NOT_A_KEY:
            self._add_part(start, end)

    def _resolve(self, parts: list[str]) -> tuple[JsonPath, bool]:
        """The header's path, with the index of each `[[x]]` table it goes through, and
        whether it fits in MAX_DEPTH (if not, its first MAX_DEPTH parts)."""
        path: JsonPath = ()
        for number, part in enumerate(parts, start=1):
            if len(path) >= MAX_DEPTH:
                return path, False
            path = (*path, part)
            if number == len(parts) and self.appends:
                self.arrays[path] = index = self.arrays.get(path, -1) + 1
                path = (*path, index)
            elif path in self.arrays:
                path = (*path, self.arrays[path])
        return path, len(path) <= MAX_DEPTH

    def _line_end(self, first: str, start: int, end: int) -> None:
        if first == "\n":
            self.step = self._statement

    # ---- keys -----------------------------------------------------------------------------

    def _begin_key(self, owner: JsonPath | None, start: int, end: int) -> None:
        self.owner, self.key_start = owner, start
        self.parts = [unquote(self.text[start:end])]
        self.step = self._key

    def _key(self, first: str, start: int, end: int) -> None:
        if first == "=":
            self._assign()
        elif first == "\n" and not self.values:
            self.step = self._statement
        elif first not in _NOT_A_KEY:
            self._add_part(start, end)

    def _assign(self) -> None:
        self.value_path = None
        if self.owner is not None:
            path = (*self.owner, *self.parts[: MAX_DEPTH + 1 - len(self.owner)])
            self._record(path, self.key_start, len(self.owner))
            self.value_path = path if len(path) <= MAX_DEPTH else None
        self.step = self._value

    def _record(self, path: JsonPath, start: int, known: int) -> None:
        """Place every prefix of `path` longer than `known` (and no deeper than MAX_DEPTH)
        at `start`, unless an earlier mention placed it."""
        if self.lines is None:
            self.lines = Lines(self.text)
        position = self.lines.at(start)
        for length in range(known + 1, min(len(path), MAX_DEPTH) + 1):
            self.positions.setdefault(path[:length], position)

    # ---- values -----------------------------------------------------------------------------

    def _value(self, first: str, start: int, end: int) -> None:
        if first in "[{":
            path = self._here()
            if path is not None and len(path) >= MAX_DEPTH:
                path = None
            self.values.append(_Value(path, is_array=first == "["))
            self.step = self._value if first == "[" else self._table_key
        elif first == "]" and self.values and self.values[-1].is_array:
            self._close()  # `[]`, or a comma before `]`
        elif first not in _NOT_A_KEY:
            self._after_value()

    def _here(self) -> JsonPath | None:
        """The path of the value about to be read."""
        if not self.values or not self.values[-1].is_array:
            return self.value_path
        array = self.values[-1]
        return None if array.path is None else (*array.path, array.index)

    def _after_value(self) -> None:
        self.step = self._next if self.values else self._line_end

    def _close(self) -> None:
        self.values.pop()
        self._after_value()

    def _next(self, first: str, start: int, end: int) -> None:
        if first == ",":
            if self.values[-1].is_array:
                self.values[-1].index += 1
                self.step = self._value
            else:
                self.step = self._table_key
        elif first in "]}":
            self._close()

    def _table_key(self, first: str, start: int, end: int) -> None:
        if first == "}":
            self._close()  # `{}`
        elif first not in _NOT_A_KEY:
            self._begin_key(self.values[-1].path, start, end)
