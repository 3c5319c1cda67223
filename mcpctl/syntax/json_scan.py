"""Where each member of a JSON(C) object starts and ends in the text (pure).

The in-place editor (`json_edit.py`) changes only the bytes of mcpctl's own members;
this scanner finds them. It runs on text that already parsed and walks the tokens of
the one JSON(C) tokenizer (`jsonc.significant`, comments left out), so it only has to
follow their nesting.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mcpctl.syntax.jsonc import significant, string_value


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


def find_object(text: str, path: tuple[str, ...]) -> JsonObject | None:
    """The object at `path` in already-validated JSON(C) text, with member spans."""
    source = text.replace("\ufeff", " ", 1)
    stack: list[_Frame] = []
    expect_key = False
    for token in significant(source):
        kind, at = token.kind, token.start
        if kind == ":":
            continue
        if kind == ",":
            expect_key = _after_comma(stack, path, token.end) or expect_key
            continue
        if expect_key and kind == '"':
            stack[-1].key, stack[-1].key_start = string_value(source[at:token.end]), at
            expect_key = False
            continue
        if kind in "}]":
            frame = stack.pop()
            expect_key = False
            if frame.is_object and frame.path == path:
                return JsonObject(frame.start, token.end, frame.members)
            _value_ended(stack, frame.start, token.end, path)
            continue
        if kind in "{[":
            stack.append(_Frame(_child_path(stack), kind == "{", at))
            expect_key = kind == "{"
            continue
        _value_ended(stack, at, token.end, path)
    return None


def _after_comma(stack: list[_Frame], path: tuple[str, ...], end: int) -> bool:
    """Note the comma after a member of the object at `path`; True inside an object
    (a key comes next)."""
    if not stack or not stack[-1].is_object:
        return False
    if stack[-1].path == path and stack[-1].members:
        stack[-1].members[-1].comma_end = end
    return True


def _child_path(stack: list[_Frame]) -> tuple[str, ...]:
    if not stack:
        return ()
    return (*stack[-1].path, stack[-1].key or "") if stack[-1].is_object else ("[]",)


def _value_ended(stack: list[_Frame], start: int, end: int, path: tuple[str, ...]) -> None:
    if stack and stack[-1].is_object and stack[-1].path == path:
        frame = stack[-1]
        frame.members.append(Member(frame.key or "", frame.key_start, start, end))
