"""Write or remove members of a JSON(C) object in place (pure; DESIGN §11).

Only mcpctl's members change: every other byte, comment, key order, indentation,
CRLF and BOM stays (the scanner in `client_json_scan.py` finds the spans, the layout
comes from `client_json_style.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcpctl.errors import ConfigError
from mcpctl.syntax.json_scan import JsonObject, Member, find_object
from mcpctl.syntax.json_style import Style, line_indent, member_text, render, style_of


def json_edit(text: str, top_key: str, edits: Mapping[str, dict[str, Any] | None]) -> str:
    """Write or remove the members of the `top_key` object (text in, text out)."""
    if not text.strip():
        text = "{\n}\n"
    style = style_of(text)
    servers = find_object(text, (top_key,))
    if servers is None:
        if all(entry is None for entry in edits.values()):
            return text
        top = find_object(text, ())
        if top is None:
            raise ConfigError("the top level is not an object")
        text = _insert(text, top, top_key, {}, style)
        servers = _found(find_object(text, (top_key,)))
    inner = text[servers.start:servers.end]
    base = line_indent(text, servers.start)
    for name, entry in edits.items():
        inner = _edit_member(inner, name, entry, style, base)
    return text[:servers.start] + inner + text[servers.end:]


def _edit_member(inner: str, name: str, entry: dict[str, Any] | None, style: Style,
                 base: str) -> str:
    """`inner`, the text of one object, with member `name` written or removed."""
    found = _found(find_object(inner, ()))
    member = next((m for m in found.members if m.key == name), None)
    if entry is None:
        return inner if member is None else _remove(inner, found, member)
    if member is None:
        return _insert(inner, found, name, entry, style, base)
    indent = line_indent(inner, member.key_start) if "\n" in inner[:member.key_start] \
        else base
    inline = "\n" not in inner
    return (inner[:member.value_start] + render(entry, indent, style, inline=inline)
            + inner[member.value_end:])


def _found(found: JsonObject | None) -> JsonObject:
    if found is None:  # the text was just built from valid JSON: a bug if it happens
        raise ConfigError("could not find the servers object while editing; the file was "
                          "not changed (please report this)")
    return found


def _insert(text: str, obj: JsonObject, key: str, value: Any, style: Style,
            base: str | None = None) -> str:
    """Add `key: value` as the last member of `obj` (offsets relative to `text`)."""
    outer = line_indent(text, obj.start) if base is None else base
    if obj.members and "\n" not in text[obj.start:obj.end] and not style.compact:
        return _insert_inline(text, obj.members[-1], member_text(key, value, "", style,
                                                                 inline=True))
    if obj.members:
        return _insert_after(text, obj, key, value, style, outer)
    indent = outer + style.unit
    member = member_text(key, value, indent, style, inline=False)
    inside = text[obj.start + 1:obj.end - 1]
    if style.one_line:
        return text[:obj.start + 1] + member + text[obj.end - 1:]
    if not inside.strip():
        return (text[:obj.start + 1] + style.newline + indent + member + style.newline + outer
                + text[obj.end - 1:])
    # Only comments inside: keep them, after the new member.
    return text[:obj.start + 1] + style.newline + indent + member + text[obj.start + 1:]


def _insert_inline(text: str, last: Member, member: str) -> str:
    """After the last member of an object written on one line."""
    at = last.comma_end or last.value_end
    glue = " " if last.comma_end else ", "
    return text[:at] + glue + member + ("," if last.comma_end else "") + text[at:]


def _insert_after(text: str, obj: JsonObject, key: str, value: Any, style: Style,
                  outer: str) -> str:
    """After the last member of an object written on several lines (or minified)."""
    first, last = obj.members[0], obj.members[-1]
    indent = line_indent(text, first.key_start) if "\n" in text[obj.start:first.key_start] \
        else outer + style.unit
    member = member_text(key, value, indent, style, inline=False)
    if style.compact:
        return text[:last.value_end] + "," + member + text[last.value_end:]
    if last.comma_end is not None:  # JSONC trailing comma: keep the style
        return (text[:last.comma_end] + style.newline + indent + member + ","
                + text[last.comma_end:])
    return text[:last.value_end] + "," + style.newline + indent + member \
        + text[last.value_end:]


def _remove(text: str, obj: JsonObject, member: Member) -> str:
    members = obj.members
    index = members.index(member)
    if len(members) == 1:
        end = member.comma_end or member.value_end
        text = text[:member.key_start] + text[end:]
        close = obj.end - 1 - (end - member.key_start)
        if not text[obj.start + 1:close].strip():
            return text[:obj.start + 1] + text[close:]
        return text  # comments stay
    if index < len(members) - 1:
        end = member.comma_end or member.value_end  # a comma always follows here
        while end < len(text) and text[end] in " \t\r\n":
            end += 1
        return text[:member.key_start] + text[end:]
    return _remove_last(text, members[index - 1], member)


def _remove_last(text: str, previous: Member, member: Member) -> str:
    """Cut from the previous member's comma to the end of `member`'s value; the
    comments in between are the user's and stay."""
    if member.comma_end is not None:  # JSONC trailing comma: the previous one stays
        return _cut_line(text, member.key_start, member.comma_end)
    comma = previous.comma_end or previous.value_end  # a comma always follows here
    gap = (text[previous.value_end:comma - 1] + text[comma:member.key_start]).rstrip()
    return text[:previous.value_end] + gap + text[member.value_end:]


def _cut_line(text: str, start: int, end: int) -> str:
    """`text` without `[start, end)`, and without its line when nothing else is on it."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    if line_end != -1 and not text[line_start:start].strip() \
            and not text[end:line_end].strip():
        return text[:line_start] + text[line_end + 1:]
    return text[:start] + text[end:]
