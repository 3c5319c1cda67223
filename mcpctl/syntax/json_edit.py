"""Write or remove members of a JSON(C) object in place (pure; DESIGN §11).

Only mcpctl's members change: every other byte, comment, key order, indentation,
CRLF and BOM stays (the scanner in `client_json_scan.py` finds the spans, the layout
comes from `client_json_style.py`).
"""

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from mcpctl.errors import ConfigError
from mcpctl.syntax.json_scan import JsonObject, Member, find_object, find_objects
from mcpctl.syntax.json_style import Style, line_indent, member_text, render, style_of

Edits = Mapping[str, dict[str, Any] | None]  # member name -> new value (None: remove)


def json_edit(text: str, top_key: str, edits: Edits) -> str:
    """Write or remove the members of the `top_key` object (text in, text out)."""
    return json_edit_at(text, {(top_key,): edits})


def json_edit_at(text: str, edits: Mapping[tuple[str, ...], Edits]) -> str:
    """Write or remove members of the objects at each key path (`("projects",
    "/src/app", "mcpServers")`), creating missing objects on the way.

    The text is scanned once for every path and its parents; each change is spliced in
    from the end of the text backwards, so the offsets found stay valid. The caller
    has checked that each path's parents, where present, are objects.
    """
    if not text.strip():
        text = "{\n}\n"
    style = style_of(text)
    wanted = {path[:depth] for path in edits for depth in range(len(path) + 1)}
    found = find_objects(text, wanted)
    if () not in found:
        raise ConfigError("the top level is not an object")
    splices: list[tuple[int, Callable[[str], str]]] = []
    created: dict[tuple[str, ...], dict[str, Any]] = {}
    for path, members in edits.items():
        if path in found:
            splices.append((found[path].start, _member_edits(found[path], members, style)))
        elif any(entry is not None for entry in members.values()):
            _nest(created, found, path, {n: e for n, e in members.items() if e is not None})
    splices += [(found[parent].end, _member_inserts(found[parent], items, style))
                for parent, items in created.items()]
    for _, splice in sorted(splices, key=lambda item: item[0], reverse=True):
        text = splice(text)
    return text


def _member_edits(obj: JsonObject, members: Edits, style: Style) -> Callable[[str], str]:
    def splice(text: str) -> str:
        inner = text[obj.start:obj.end]
        base = line_indent(text, obj.start)
        for name, entry in members.items():
            inner = _edit_member(inner, name, entry, style, base)
        return text[:obj.start] + inner + text[obj.end:]

    return splice


def _member_inserts(obj: JsonObject, items: dict[str, Any],
                    style: Style) -> Callable[[str], str]:
    return lambda text: _insert_all(text, obj, items, style)


def _nest(created: dict[tuple[str, ...], dict[str, Any]],
          found: Mapping[tuple[str, ...], JsonObject], path: tuple[str, ...],
          members: dict[str, Any]) -> None:
    """Plan `path` (missing) as new members of its deepest parent that exists."""
    depth = max(d for d in range(len(path)) if path[:d] in found)
    level = created.setdefault(path[:depth], {})
    for key in path[depth:-1]:
        level = level.setdefault(key, {})
    level.setdefault(path[-1], {}).update(members)


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
    return _insert_all(text, obj, {key: value}, style, base)


class _Insertion(NamedTuple):
    at: int  # where the text goes
    text: str
    key_offset: int  # where the member starts within `text`
    length: int  # of the member, key to end of value
    trailing: bool  # a comma follows the member (JSONC trailing-comma style)
    replaced: int = 0  # characters after `at` the text replaces (an empty object's blanks)


def _insert_all(text: str, obj: JsonObject, items: Mapping[str, Any], style: Style,
                base: str | None = None) -> str:
    """Add `items` as the last members of `obj`. The object is not scanned again after
    each (it can be most of a large file): the member just inserted is its last."""
    base = line_indent(text, obj.start) if base is None else base
    for key, value in items.items():
        insertion = _insertion(text, obj, key, value, style, base)
        after = insertion.at + insertion.replaced
        text = text[:insertion.at] + insertion.text + text[after:]
        key_start = insertion.at + insertion.key_offset
        value_end = key_start + insertion.length
        member = Member(key, key_start, key_start, value_end,
                        value_end + 1 if insertion.trailing else None)
        grown = len(insertion.text) - insertion.replaced
        obj = JsonObject(obj.start, obj.end + grown, [*obj.members, member])
    return text


def _insertion(text: str, obj: JsonObject, key: str, value: Any, style: Style,
               base: str | None) -> _Insertion:
    outer = line_indent(text, obj.start) if base is None else base
    # find, not a slice: the object can be most of a large file, and this runs per member.
    if obj.members and text.find("\n", obj.start, obj.end) < 0 and not style.compact:
        return _insertion_inline(obj.members[-1], member_text(key, value, "", style,
                                                              inline=True))
    if obj.members:
        return _insertion_after(text, obj, key, value, style, outer)
    indent = outer + style.unit
    member = member_text(key, value, indent, style, inline=False)
    inside = text[obj.start + 1:obj.end - 1]
    if style.one_line:
        return _Insertion(obj.start + 1, member, 0, len(member), False)
    lead = style.newline + indent
    if not inside.strip():
        return _Insertion(obj.start + 1, lead + member + style.newline + outer, len(lead),
                          len(member), False, len(inside))
    # Only comments inside: keep them, after the new member.
    return _Insertion(obj.start + 1, lead + member, len(lead), len(member), False)


def _insertion_inline(last: Member, member: str) -> _Insertion:
    """After the last member of an object written on one line."""
    at = last.comma_end or last.value_end
    glue = " " if last.comma_end else ", "
    trailing = last.comma_end is not None
    return _Insertion(at, glue + member + ("," if trailing else ""), len(glue), len(member),
                      trailing)


def _insertion_after(text: str, obj: JsonObject, key: str, value: Any, style: Style,
                     outer: str) -> _Insertion:
    """After the last member of an object written on several lines (or minified)."""
    first, last = obj.members[0], obj.members[-1]
    indent = line_indent(text, first.key_start) \
        if text.find("\n", obj.start, first.key_start) >= 0 else outer + style.unit
    member = member_text(key, value, indent, style, inline=False)
    if style.compact:
        return _Insertion(last.value_end, "," + member, 1, len(member), False)
    lead = style.newline + indent
    if last.comma_end is not None:  # JSONC trailing comma: keep the style
        return _Insertion(last.comma_end, lead + member + ",", len(lead), len(member), True)
    return _Insertion(last.value_end, "," + lead + member, 1 + len(lead), len(member), False)


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
