"""JSON and JSONC reading with exact positions and duplicate-key detection.

One tokenizer serves every JSON reader (`lex`): a single left-to-right pass of one
regular expression whose alternatives never overlap and never backtrack past a token,
so the work is linear in the text whatever it holds (issue 13: the old blanking regex
took minutes on 60 KB of `"\\"\\"\\"...`). JSONC is read by blanking the comments and
trailing commas it finds with spaces, keeping every newline, and parsing the result
with the standard `json` module, so the line and column of every error stay exact. The
same tokens then record where every key and value starts and which keys repeat: `json`
keeps the last duplicate silently, and two parsers that disagree about which value wins
is an attack.
"""

import json
import re
from bisect import bisect_right
from collections.abc import Iterator
from typing import Any, NamedTuple

JsonPath = tuple[str | int, ...]

# A string (closed or not: a possessive body, then its quote if there is one), a line
# comment, a block comment (closed or running to the end), one punctuation mark, a bare
# word (numbers, true, false, null, or garbage json will name), or a lone slash.
# Whitespace matches nothing, so `finditer` steps over it in C.
_TOKEN = re.compile(
    r'"(?:[^"\\\n]|\\.)*+(")?'
    r"|//[^\n]*"
    r"|/\*[\s\S]*?(?:\*/|\Z)"
    r"|[{}\[\]:,]"
    r'|[^\s{}\[\]:,"/]+'
    r"|/"
)
# A comma before a closing bracket, maybe inside a string: worth a full pass. Linear:
# each run of whitespace follows one comma.
_MAYBE_TRAILING = r",\s*[}\]]"  # compiled on first use
# Tokens after which a comma cannot end a value ("" is the start): a comma after any
# other token (a string, a word, `}` or `]`) and before `}` or `]` is trailing.
_NOT_VALUE_END = frozenset(("", "{", "[", ",", ":"))


class JsonSyntaxError(ValueError):
    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"{line}:{column}: {message}")
        self.message = message
        self.line = line
        self.column = column


class Token(NamedTuple):  # a tuple: ~3x cheaper to make than a frozen dataclass
    """One token of JSON(C) text: `kind` is its first character (`"` a string, `/` a
    comment or a stray slash, `w` a bare word, else the punctuation mark itself)."""

    kind: str
    start: int
    end: int


class DuplicateKey(NamedTuple):
    """A key given twice in one object, with the line of the first."""

    path: JsonPath
    line: int
    column: int
    first_line: int


class JsonDocument:
    """A parsed JSON(C) document with the position of every key and value."""

    __slots__ = ("duplicates", "key_positions", "more_duplicates", "value", "value_positions")

    def __init__(self, value: Any, key_positions: dict[JsonPath, tuple[int, int]] | None = None,
                 value_positions: dict[JsonPath, tuple[int, int]] | None = None,
                 duplicates: list[DuplicateKey] | None = None) -> None:
        self.value = value
        self.key_positions = {} if key_positions is None else key_positions
        self.value_positions = {} if value_positions is None else value_positions
        self.duplicates = [] if duplicates is None else duplicates
        self.more_duplicates = 0  # past MAX_DUPLICATES: counted, not placed

    def position(self, path: JsonPath) -> tuple[int, int]:
        """Where `path` is written: its key when it has one, else its value, else (1, 1)."""
        for table in (self.key_positions, self.value_positions):
            if path in table:
                return table[path]
        return (1, 1)

    def nearest(self, path: JsonPath) -> tuple[int, int]:
        """Where `path` is written, else where its nearest written ancestor is (a TOML
        file records keys only, not the items of an array)."""
        for length in range(len(path), 0, -1):
            for table in (self.key_positions, self.value_positions):
                if path[:length] in table:
                    return table[path[:length]]
        return self.position(())


def lex(text: str) -> Iterator[Token]:
    """Every token of `text` in order, comments included (linear; never raises).

    An unclosed string ends at its line's end, so a reader sees the rest of the file
    as it would; whether a comment is closed is the caller's question (`is_open_comment`).
    """
    for match in _TOKEN.finditer(text):
        first = text[match.start()]
        kind = first if first in '"{}[]:,/' else "w"
        yield Token(kind, match.start(), match.end())


def is_open_comment(text: str, token: Token) -> bool:
    return (token.kind == "/" and text.startswith("/*", token.start)
            and (token.end - token.start < 4 or not text.endswith("*/", 0, token.end)))


def significant(text: str) -> Iterator[Token]:
    """The tokens without comments; raises JsonSyntaxError at an unclosed `/*`."""
    for token in lex(text):
        if token.kind != "/" or token.end - token.start == 1:
            yield token
        elif is_open_comment(text, token):
            line, column = Lines(text).at(token.start)
            raise JsonSyntaxError("unterminated /* comment", line, column)


def blank_jsonc(text: str) -> str:
    """Replace comments and trailing commas by spaces, keeping offsets and newlines.

    Raises JsonSyntaxError for a `/*` comment that never ends."""
    if "/" not in text and re.search(_MAYBE_TRAILING, text) is None:
        return text  # most files: nothing to blank, and no second pass over them
    spans: list[tuple[int, int]] = []
    comma = -1  # where the last comma is, while only comments follow it
    previous = ""  # the first character of the last token that is not a comment
    for match in _TOKEN.finditer(text):  # `lex` inlined: this loop is hot
        start, end = match.span()
        first = text[start]
        if first == "/" and end - start > 1:
            if text[start + 1] == "*" and (end - start < 4 or not text.endswith("*/", 0, end)):
                line, column = Lines(text).at(start)
                raise JsonSyntaxError("unterminated /* comment", line, column)
            spans.append((start, end))
            continue
        if comma >= 0 and first in "}]":
            spans.append((comma, comma + 1))
        comma = start if first == "," and previous not in _NOT_VALUE_END else -1
        previous = first
    return _blanked(text, spans) if spans else text


def _blanked(text: str, spans: list[tuple[int, int]]) -> str:
    pieces: list[str] = []
    done = 0
    for start, end in sorted(spans):
        pieces.append(text[done:start])
        piece = text[start:end]
        pieces.append("\n".join(" " * len(part) for part in piece.split("\n")))
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


def parse(text: str, *, jsonc: bool) -> JsonDocument:
    """Parse JSON (or JSONC) text; raise JsonSyntaxError with the exact position."""
    if text.startswith("\ufeff"):
        text = " " + text[1:]
    try:
        value = _strict_value(text)
    except JsonSyntaxError:
        if not jsonc:
            raise
        # Not plain JSON: blank what JSONC adds. Plain JSON text skips that pass, since
        # blanking would not change it.
        text = blank_jsonc(text)
        value = _strict_value(text)
    document = JsonDocument(value)
    _index_positions(text, document)
    return document


def _strict_value(source: str) -> Any:
    if not source.strip():
        raise JsonSyntaxError("empty file; expected a JSON object", 1, 1)
    try:
        value = json.loads(source)
    except json.JSONDecodeError as error:
        raise JsonSyntaxError(error.msg, error.lineno, error.colno) from None
    except RecursionError:
        raise JsonSyntaxError("nested too deeply", 1, 1) from None
    except ValueError:  # a number longer than Python converts
        from mcpctl.syntax.long_numbers import long_number  # noqa: PLC0415

        raise JsonSyntaxError(*long_number(source)) from None
    if _SURROGATE_ESCAPE.search(source) and _holds_lone_surrogate(value):
        raise _lone_surrogate_error(source)
    return value


# `json` accepts "\ud800" alone, giving a str that cannot be encoded as UTF-8: every
# later step (hashing, printing, caching) would fail on it. It is an error here.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _holds_lone_surrogate(value: Any) -> bool:
    stack = [value]  # iterative: json nests as deep as the interpreter's recursion limit
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _lone_surrogate_error(source: str) -> JsonSyntaxError:
    escapes = list(_SURROGATE_ESCAPE.finditer(source))
    index = 0
    while index < len(escapes):
        match = escapes[index]
        following = escapes[index + 1] if index + 1 < len(escapes) else None
        high = match[0][2].lower() == "d" and match[0][3].lower() in "89ab"
        if high and following is not None and following.start() == match.end() \
                and following[0][3].lower() in "cdef":
            index += 2
            continue
        line, column = Lines(source).at(match.start())
        return JsonSyntaxError(f"{match[0]} is half of a surrogate pair, not a character",
                               line, column)
    return JsonSyntaxError("a string holds a lone surrogate escape", 1, 1)


class Lines:
    """Offsets to 1-based (line, column), by bisecting the line starts."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def at(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


# Bounds that keep the walk linear whatever the text holds (issue 23, item 9): a file
# of a million duplicate keys is refused on the first, so only the first are placed;
# a key or value nested deeper than MAX_INDEXED_DEPTH shares its ancestor's position
# (a path per token copied at depth d made the walk O(n·d), and its memory too).
MAX_DUPLICATES = 100
MAX_INDEXED_DEPTH = 64


class _Frame:
    """An open object or array while parsing; `deep`: its children are not placed."""

    __slots__ = ("deep", "index", "is_object", "key", "path", "seen")

    def __init__(self, path: JsonPath, is_object: bool, *, deep: bool = False) -> None:
        self.path = path
        self.is_object = is_object
        self.deep = deep
        self.index = 0
        self.key: str | None = None
        self.seen: dict[str, int] = {}


def _index_positions(source: str, document: JsonDocument) -> None:
    """Walk the tokens of text already known to be valid JSON, recording positions.

    The hottest loop of every reader (a 1 MB file has ~200k tokens): it reads the
    tokenizer's matches directly rather than through `lex`, and text known to be valid
    holds no comments."""
    lines = Lines(source)
    stack: list[_Frame] = []
    expect_key = False
    for match in _TOKEN.finditer(source):
        start = match.start()
        kind = source[start]
        if kind in ":,":
            if kind == "," and stack and stack[-1].is_object:
                expect_key = True
            continue
        if kind in "}]":
            stack.pop()
            expect_key = False
            continue
        if expect_key:
            frame = stack[-1]
            key = string_value(match.group())
            if key in frame.seen:
                _duplicate(document, frame, key, lines, start)
            else:
                position = lines.at(start)
                frame.seen[key] = position[0]
                if not frame.deep:
                    document.key_positions[(*frame.path, key)] = position
            frame.key = key
            expect_key = False
            continue
        if stack and stack[-1].deep:
            path = stack[-1].path  # not placed: the nearest placed ancestor stands for it
        else:
            path = _value_path(stack)
            document.value_positions.setdefault(path, lines.at(start))
        if kind in "{[":
            stack.append(_Frame(path, is_object=kind == "{",
                                deep=len(stack) >= MAX_INDEXED_DEPTH))
            expect_key = kind == "{"


def _duplicate(document: JsonDocument, frame: _Frame, key: str, lines: Lines,
               start: int) -> None:
    if len(document.duplicates) < MAX_DUPLICATES:
        document.duplicates.append(DuplicateKey(
            (*frame.path, key), *lines.at(start), first_line=frame.seen[key]))
    else:
        document.more_duplicates += 1


def string_value(raw: str) -> str:
    """The text a string token means (escapes decoded only when there are any)."""
    if "\\" not in raw:
        return raw[1:-1]
    decoded: str = json.loads(raw)
    return decoded


def _value_path(stack: list[_Frame]) -> JsonPath:
    if not stack:
        return ()
    frame = stack[-1]
    if frame.is_object:
        return (*frame.path, frame.key or "")
    frame.index += 1
    return (*frame.path, frame.index - 1)


def load_object_pairs_strict(text: str) -> Any:
    """Parse plain JSON, failing on the first duplicate key (for files mcpctl owns)."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in items:
            if key in result:
                raise ValueError(f"duplicate key {key!r}")
            result[key] = value
        return result

    try:
        return json.loads(text, object_pairs_hook=pairs)
    except RecursionError:  # deeper than the decoder's recursion: a ValueError like any
        raise ValueError("nested too deeply") from None
