"""Where each member of a JSON(C) object starts and ends in the text (pure).

The in-place editor (`json_edit.py`) changes only the bytes of mcpctl's own members;
this scanner finds them. It runs on text that already parsed and walks the tokens of
the one JSON(C) tokenizer (`jsonc.significant`, comments left out), so it only has to
follow their nesting.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from mcpctl.syntax.jsonc import significant, string_value


@dataclass
class Member:
    """One member of a JSON object, as offsets into the text."""

    key: str
    key_start: int
    value_start: int
    value_end: int
    comma_end: int | None = None  # just after the comma that follows the value


@dataclass
class JsonObject:
    """A JSON object's span and its members, as offsets into the text."""

    start: int  # offset of "{"
    end: int  # offset just after "}"
    members: list[Member]


@dataclass
class _Frame:
    """An open object or array while scanning."""

    path: tuple[str, ...]
    is_object: bool
    start: int
    key: str | None = None
    key_start: int = 0
    members: list[Member] = field(default_factory=list)


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
    source = text.replace("\ufeff", " ", 1)
    stack: list[_Frame] = []
    found: dict[tuple[str, ...], JsonObject] = {}
    expect_key = False
    for token in significant(source):
        kind, at = token.kind, token.start
        if kind == ":":
            continue
        if kind == ",":
            expect_key = _after_comma(stack, paths, token.end) or expect_key
            continue
        if expect_key and kind == '"':
            stack[-1].key, stack[-1].key_start = string_value(source[at:token.end]), at
            expect_key = False
            continue
        if kind in "}]":
            frame = stack.pop()
            expect_key = False
            if frame.is_object and frame.path in paths:
                # The first occurrence counts, as the scan of one path always did.
                found.setdefault(frame.path, JsonObject(frame.start, token.end,
                                                        frame.members))
                if first:
                    return found
            _value_ended(stack, frame.start, token.end, paths)
            continue
        if kind in "{[":
            stack.append(_Frame(_child_path(stack), kind == "{", at))
            expect_key = kind == "{"
            continue
        _value_ended(stack, at, token.end, paths)
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
