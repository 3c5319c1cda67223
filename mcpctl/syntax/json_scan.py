"""Where each member of a JSON(C) object starts and ends in the text (pure).

The in-place editor (`client_json_edit.py`) changes only the bytes of mcpctl's own
members; this scanner finds them. It runs on text that already parsed, with comments
blanked out (offsets kept), so it only has to follow the nesting of tokens.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field

_COMMENT_OR_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*[\s\S]*?(?:\*/|\Z)')
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+')


@dataclass
class Member:
    key: str
    key_start: int
    value_start: int
    value_end: int
    comma_end: int | None = None  # just after the comma that follows the value


@dataclass
class JsonObject:
    start: int  # offset of "{"
    end: int  # offset just after "}"
    members: list[Member]


@dataclass
class _Frame:
    path: tuple[str, ...]
    is_object: bool
    start: int
    key: str | None = None
    key_start: int = 0
    members: list[Member] = field(default_factory=list)


def _blank_comments(text: str) -> str:
    def blank(match: re.Match[str]) -> str:
        token = match.group(0)
        return token if token.startswith('"') else re.sub(r"[^\n]", " ", token)

    return _COMMENT_OR_STRING.sub(blank, text.replace("\ufeff", " ", 1))


def find_object(text: str, path: tuple[str, ...]) -> JsonObject | None:
    """The object at `path` in already-validated JSON(C) text, with member spans."""
    return next(iter(_scan(text, frozenset({path}), first=True).values()), None)


def find_objects(text: str, paths: Collection[tuple[str, ...]]
                 ) -> dict[tuple[str, ...], JsonObject]:
    """The objects at each of `paths` that exist, in one pass over the text (a
    ~/.claude.json of tens of MB is scanned once, however many paths are asked for)."""
    return _scan(text, frozenset(paths), first=False)


def _scan(text: str, paths: frozenset[tuple[str, ...]], *,
          first: bool) -> dict[tuple[str, ...], JsonObject]:
    source = _blank_comments(text)
    stack: list[_Frame] = []
    found: dict[tuple[str, ...], JsonObject] = {}
    expect_key = False
    for match in _TOKEN.finditer(source):
        token, at = match.group(0), match.start()
        if token == ":":
            continue
        if token == ",":
            expect_key = _after_comma(stack, paths, match.end()) or expect_key
            continue
        if expect_key and token.startswith('"'):
            stack[-1].key, stack[-1].key_start = json.loads(token), at
            expect_key = False
            continue
        if token in "}]":
            frame = stack.pop()
            expect_key = False
            if frame.is_object and frame.path in paths:
                # The first occurrence counts, as the scan of one path always did.
                found.setdefault(frame.path, JsonObject(frame.start, match.end(),
                                                        frame.members))
                if first:
                    return found
            _value_ended(stack, frame.start, match.end(), paths)
            continue
        if token in "{[":
            stack.append(_Frame(_child_path(stack), token == "{", at))
            expect_key = token == "{"
            continue
        _value_ended(stack, at, match.end(), paths)
    return found


def _after_comma(stack: list[_Frame], paths: frozenset[tuple[str, ...]], end: int) -> bool:
    """Note the comma after a member of an object at one of `paths`; True inside an
    object (a key comes next)."""
    if not stack or not stack[-1].is_object:
        return False
    if stack[-1].path in paths and stack[-1].members:
        stack[-1].members[-1].comma_end = end
    return True


def _child_path(stack: list[_Frame]) -> tuple[str, ...]:
    if not stack:
        return ()
    return (*stack[-1].path, stack[-1].key or "") if stack[-1].is_object else ("[]",)


def _value_ended(stack: list[_Frame], start: int, end: int,
                 paths: frozenset[tuple[str, ...]]) -> None:
    if stack and stack[-1].is_object and stack[-1].path in paths:
        frame = stack[-1]
        frame.members.append(Member(frame.key or "", frame.key_start, start, end))
