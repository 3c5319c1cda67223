"""What `export` and `sync` write into a client's file, as text (pure; DESIGN §11).

The plan decides, per server, what happens to the client's entry: every exported
entry is `mcpctl run NAME`, so the client file never holds a secret, and that shape is
also how mcpctl recognises its own entries later (Codex rejects unknown keys, so there
is no marker key). The writers then change only those entries' text: JSON and JSONC
through a scanner that knows where each member starts and ends (every other byte,
comment, key order and indentation stays), Codex TOML by splicing `[mcp_servers.NAME]`
tables (tomlkit when an entry is not written as its own table). The result is parsed
again and must mean exactly the old document with those entries changed, or nothing
is written.
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpctl import jsonc
from mcpctl.clients import ClientFormat, Syntax, exported_entry, is_managed
from mcpctl.errors import ConfigError
from mcpctl.model import ServerSpec


@dataclass(frozen=True)
class EntryChange:
    name: str
    status: str  # added | updated | replaced | removed | unchanged | conflict | skipped
    reason: str = ""
    entry: dict[str, Any] | None = None  # what is written (None with "removed")

    @property
    def writes(self) -> bool:
        return self.status in ("added", "updated", "replaced", "removed")


@dataclass(frozen=True)
class ExportPlan:
    changes: list[EntryChange] = field(default_factory=list)

    @property
    def writes(self) -> bool:
        return any(change.writes for change in self.changes)

    @property
    def conflicts(self) -> list[EntryChange]:
        return [change for change in self.changes if change.status == "conflict"]


REMOTE_SKIPPED = ("a remote (url) server: clients connect to it themselves and "
                  "`mcpctl run` starts local servers only; add it to the client by hand")


def plan_export(client: ClientFormat, existing: Mapping[str, Any],
                wanted: Sequence[ServerSpec], command: str, *, replace: bool,
                prune: bool) -> ExportPlan:
    """`wanted`: the user-tier servers to export. With `prune`, entries mcpctl exported
    earlier for servers no longer exportable are removed (sync)."""
    changes: list[EntryChange] = []
    exportable: set[str] = set()
    for spec in wanted:
        current = existing.get(spec.name)
        if spec.is_remote:
            changes.append(EntryChange(spec.name, "skipped", REMOTE_SKIPPED))
            continue
        exportable.add(spec.name)
        desired = exported_entry(client, spec.name, command)
        if current is None:
            changes.append(EntryChange(spec.name, "added", entry=desired))
        elif current == desired:
            changes.append(EntryChange(spec.name, "unchanged"))
        elif is_managed(client, spec.name, current):
            changes.append(EntryChange(spec.name, "updated", entry=desired))
        elif replace:
            changes.append(EntryChange(spec.name, "replaced", "the old entry is in the backup",
                                       entry=desired))
        else:
            changes.append(EntryChange(
                spec.name, "conflict",
                f"{client.title} defines {spec.name!r} itself; --replace makes it launch "
                "through mcpctl (the old entry goes to the backup)"))
    if prune:
        remote = {spec.name for spec in wanted if spec.is_remote}
        for name, current in existing.items():
            if name not in exportable and is_managed(client, name, current):
                why = "now a remote server" if name in remote else "no longer in the user tier"
                changes.append(EntryChange(name, "removed", why))
    return ExportPlan(changes)


def read_servers(client: ClientFormat, text: str | None, path: Path) -> dict[str, Any]:
    """The client's top-level servers (raw entries), or ConfigError: mcpctl does not
    touch a file it cannot read unambiguously."""
    return servers_of(client, read_document(client, text, path), path)


def servers_of(client: ClientFormat, data: dict[str, Any], path: Path) -> dict[str, Any]:
    servers = data.get(client.top_key, {})
    if not isinstance(servers, dict):
        raise ConfigError(f"{path}: {client.top_key!r} is not a table of servers; "
                          "the file was not changed")
    return servers


def _parse(client: ClientFormat, text: str, path: Path) -> dict[str, Any]:
    if client.syntax is Syntax.TOML:
        try:
            return tomllib.loads(text.removeprefix("\ufeff"))
        except tomllib.TOMLDecodeError as error:
            from mcpctl.user_config import toml_problem  # noqa: PLC0415

            raise ConfigError(f"{toml_problem(path, error, text)}; the file was not changed") \
                from None
    value = _fast_json(text, jsonc=client.syntax is Syntax.JSONC)
    if value is None:  # not valid, or a duplicate key: parse again for the position
        _explain(client, text, path)
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: the top level is not an object; the file was not changed")
    return value


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _DuplicateKey
    return result


def _fast_json(text: str, *, jsonc: bool) -> Any:
    """The value, or None when the text is not valid or repeats a key (~/.claude.json
    can be tens of MB: this skips the position index until a message needs it)."""
    from mcpctl import jsonc as jsonc_module  # noqa: PLC0415

    source = text.replace("\ufeff", " ", 1)
    if jsonc:
        source = jsonc_module.blank_jsonc(source)
    try:
        return json.loads(source, object_pairs_hook=_no_duplicates)
    except (ValueError, RecursionError):
        return None


def _explain(client: ClientFormat, text: str, path: Path) -> None:
    try:
        document = jsonc.parse(text, jsonc=client.syntax is Syntax.JSONC)
    except jsonc.JsonSyntaxError as error:
        raise ConfigError(f"{path}:{error.line}:{error.column}: {error.message}; "
                          "the file was not changed") from None
    if document.duplicates:
        first = document.duplicates[0]
        dotted = ".".join(str(part) for part in first.path)
        raise ConfigError(f"{path}:{first.line}:{first.column}: duplicate key {dotted} "
                          f"(first at line {first.first_line}); which one {client.title} "
                          "uses is unclear, so the file was not changed")
    raise ConfigError(f"{path}: cannot be read as JSON; the file was not changed")


def read_document(client: ClientFormat, text: str | None, path: Path) -> dict[str, Any]:
    """The whole parsed file ({} for none), or ConfigError."""
    return _parse(client, text, path) if text is not None and text.strip() else {}


def apply_plan(client: ClientFormat, text: str | None, plan: ExportPlan, path: Path,
               data: dict[str, Any] | None = None) -> str:
    """The new file text: `text` with the plan's entries written or removed. `data` is
    the parsed `text` when the caller has it."""
    edits: dict[str, dict[str, Any] | None] = {
        change.name: change.entry for change in plan.changes if change.writes}
    old = text or ""
    if not edits:
        return old
    if data is None:
        data = read_document(client, old, path)
    expected = copy.deepcopy(data)
    servers = expected.setdefault(client.top_key, {})
    for name, entry in edits.items():
        if entry is None:
            servers.pop(name, None)
        else:
            servers[name] = entry
    if client.syntax is Syntax.TOML:
        new = _toml_edit(old, client.top_key, edits, expected)
    else:
        new = json_edit(old, client.top_key, edits)
    if not _means(client, new, expected):
        raise ConfigError(f"{path}: the edited file would not mean what was intended; "
                          "the file was not changed (please report this)")
    return new


def _means(client: ClientFormat, text: str, expected: dict[str, Any]) -> bool:
    if client.syntax is Syntax.TOML:
        try:
            return tomllib.loads(text.removeprefix("\ufeff")) == expected
        except tomllib.TOMLDecodeError:
            return False
    value = _fast_json(text, jsonc=client.syntax is Syntax.JSONC)
    return value is not None and value == expected


# ---- JSON and JSONC: edit members in place ------------------------------------------

_COMMENT_OR_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*[\s\S]*?(?:\*/|\Z)')
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+')


@dataclass
class _Member:
    key: str
    key_start: int
    value_start: int
    value_end: int
    comma_end: int | None = None  # just after the comma that follows the value


@dataclass
class _Object:
    start: int  # offset of "{"
    end: int  # offset just after "}"
    members: list[_Member]


def _blank_comments(text: str) -> str:
    def blank(match: re.Match[str]) -> str:
        token = match.group(0)
        return token if token.startswith('"') else re.sub(r"[^\n]", " ", token)

    return _COMMENT_OR_STRING.sub(blank, text.replace("\ufeff", " ", 1))


@dataclass
class _Frame:
    path: tuple[str, ...]
    is_object: bool
    start: int
    key: str | None = None
    key_start: int = 0
    members: list[_Member] = field(default_factory=list)


def _find_object(text: str, path: tuple[str, ...]) -> _Object | None:
    """The object at `path` in already-validated JSON(C) text, with member spans."""
    source = _blank_comments(text)
    stack: list[_Frame] = []
    expect_key = False
    for match in _TOKEN.finditer(source):
        token, at = match.group(0), match.start()
        if token == ":":
            continue
        if token == ",":
            if stack and stack[-1].is_object:
                expect_key = True
                if stack[-1].path == path and stack[-1].members:
                    stack[-1].members[-1].comma_end = match.end()
            continue
        if expect_key and token.startswith('"'):
            frame = stack[-1]
            frame.key, frame.key_start = json.loads(token), at
            expect_key = False
            continue
        if token in "}]":
            frame = stack.pop()
            expect_key = False
            if frame.is_object and frame.path == path:
                return _Object(frame.start, match.end(), frame.members)
            _value_ended(stack, frame.start, match.end(), path)
            continue
        child_path = (*stack[-1].path, stack[-1].key or "") if stack and stack[-1].is_object \
            else ("[]",)
        if token in "{[":
            stack.append(_Frame(child_path if stack else (), token == "{", at))
            expect_key = token == "{"
            continue
        _value_ended(stack, at, match.end(), path)
    return None


def _value_ended(stack: list[_Frame], start: int, end: int, path: tuple[str, ...]) -> None:
    if stack and stack[-1].is_object and stack[-1].path == path:
        frame = stack[-1]
        frame.members.append(_Member(frame.key or "", frame.key_start, start, end))


@dataclass(frozen=True)
class _Style:
    newline: str
    unit: str  # one level of indentation
    one_line: bool  # the whole document is on one line: keep it so
    compact: bool  # ... and minified: no space after ':' and ','


_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def _style(text: str) -> _Style:
    newline = "\r\n" if "\r\n" in text else "\n"
    match = re.search(r"\n([ \t]+)\S", text)
    one_line = bool(text.strip()) and "\n" not in text.strip()
    compact = one_line and not re.search(r"[:,][ \t]", _STRING.sub('""', text))
    return _Style(newline, match[1] if match else "  ", one_line, compact)


def _line_indent(text: str, offset: int) -> str:
    line_start = text.rfind("\n", 0, offset) + 1
    match = re.match(r"[ \t]*", text[line_start:offset])
    return match.group(0) if match else ""


def _render(value: Any, indent: str, style: _Style, *, inline: bool) -> str:
    if style.compact:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if inline or style.one_line:
        return json.dumps(value, ensure_ascii=False)
    rendered = json.dumps(value, ensure_ascii=False, indent=style.unit)
    return rendered.replace("\n", style.newline + indent)


def _member_text(key: str, value: Any, indent: str, style: _Style, *, inline: bool) -> str:
    colon = ":" if style.compact else ": "
    return json.dumps(key, ensure_ascii=False) + colon + _render(value, indent, style,
                                                                   inline=inline)


def json_edit(text: str, top_key: str, edits: Mapping[str, dict[str, Any] | None]) -> str:
    """Write or remove the members of the `top_key` object (pure, text in, text out)."""
    if not text.strip():
        text = "{\n}\n"
    style = _style(text)
    servers = _find_object(text, (top_key,))
    if servers is None:
        if all(entry is None for entry in edits.values()):
            return text
        top = _find_object(text, ())
        if top is None:
            raise ConfigError("the top level is not an object")
        text = _insert(text, top, top_key, {}, style)
        servers = _found(_find_object(text, (top_key,)))
    before, inner, after = text[:servers.start], text[servers.start:servers.end], \
        text[servers.end:]
    base = _line_indent(text, servers.start)
    for name, entry in edits.items():
        found = _found(_find_object(inner, ()))
        member = next((m for m in found.members if m.key == name), None)
        if entry is None:
            if member is not None:
                inner = _remove(inner, found, member)
        elif member is None:
            inner = _insert(inner, found, name, entry, style, base)
        else:
            indent = _line_indent(inner, member.key_start) if "\n" in inner[:member.key_start] \
                else base
            inline = "\n" not in inner
            inner = (inner[:member.value_start] + _render(entry, indent, style, inline=inline)
                     + inner[member.value_end:])
    return before + inner + after


def _found(found: _Object | None) -> _Object:
    if found is None:  # the text was just built from valid JSON: a bug if it happens
        raise ConfigError("could not find the servers object while editing; the file was "
                          "not changed (please report this)")
    return found


def _insert(text: str, obj: _Object, key: str, value: Any, style: _Style,
            base: str | None = None) -> str:
    """Add `key: value` as the last member of `obj` (offsets relative to `text`)."""
    outer = _line_indent(text, obj.start) if base is None else base
    members = obj.members
    if members and "\n" not in text[obj.start:obj.end] and not style.compact:
        last = members[-1]
        member = _member_text(key, value, "", style, inline=True)
        at = last.comma_end or last.value_end
        glue = " " if last.comma_end else ", "
        return text[:at] + glue + member + ("," if last.comma_end else "") + text[at:]
    if members:
        first = members[0]
        indent = _line_indent(text, first.key_start) if "\n" in text[obj.start:first.key_start] \
            else outer + style.unit
        member = _member_text(key, value, indent, style, inline=False)
        last = members[-1]
        if style.compact:
            return text[:last.value_end] + "," + member + text[last.value_end:]
        if last.comma_end is not None:  # JSONC trailing comma: keep the style
            return (text[:last.comma_end] + style.newline + indent + member + ","
                    + text[last.comma_end:])
        return text[:last.value_end] + "," + style.newline + indent + member \
            + text[last.value_end:]
    indent = outer + style.unit
    member = _member_text(key, value, indent, style, inline=False)
    inside = text[obj.start + 1:obj.end - 1]
    if style.one_line:
        return text[:obj.start + 1] + member + text[obj.end - 1:]
    if not inside.strip():
        return (text[:obj.start + 1] + style.newline + indent + member + style.newline + outer
                + text[obj.end - 1:])
    # Only comments inside: keep them, after the new member.
    return text[:obj.start + 1] + style.newline + indent + member + text[obj.start + 1:]


def _remove(text: str, obj: _Object, member: _Member) -> str:
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
    previous = members[index - 1]
    return text[:previous.value_end] + text[member.value_end:]


# ---- Codex TOML: splice [mcp_servers.NAME] tables ----------------------------------

def _toml_edit(text: str, top_key: str, edits: Mapping[str, dict[str, Any] | None],
               expected: dict[str, Any]) -> str:
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body = text.removeprefix("\ufeff")
    newline = "\r\n" if "\r\n" in body else "\n"
    spliced: str | None = body
    for name, entry in edits.items():
        spliced = _splice_table(spliced, top_key, name, entry, newline) if spliced is not None \
            else None
    if spliced is not None:
        try:
            if tomllib.loads(spliced) == expected:
                return bom + spliced
        except tomllib.TOMLDecodeError:
            pass
    return bom + _toml_rewrite(body, top_key, edits)


def _render_toml_table(top_key: str, name: str, entry: dict[str, Any], newline: str) -> str:
    import tomlkit  # noqa: PLC0415 - only Codex writes need it

    document = tomlkit.document()
    parent = tomlkit.table(is_super_table=True)
    table = tomlkit.table()
    for key, value in entry.items():
        table[key] = value
    parent[name] = table
    document[top_key] = parent
    return tomlkit.dumps(document).replace("\n", newline)


def _splice_table(text: str, top_key: str, name: str, entry: dict[str, Any] | None,
                  newline: str) -> str | None:
    """Replace, cut or add the `[top_key.NAME]` table as lines; None when the entry is
    written another way (dotted keys, inline table)."""
    from mcpctl.user_config_edit import _headers, _is_comment, _table_block  # noqa: PLC0415

    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += newline
    headers = _headers(lines)
    block = _table_block(lines, headers, (top_key, name))
    if block is None:
        if entry is None:
            return None if _mentions(text, top_key, name) else "".join(lines)
        if _mentions(text, top_key, name):
            return None
        owned = [path for _, path in headers if path[:1] == (top_key,)]
        at = len(lines)
        if owned:
            last = _table_block(lines, headers, owned[-1])
            at = last[1] if last else len(lines)
        gap = [newline] if at and lines[at - 1].strip() else []
        return "".join([*lines[:at], *gap, _render_toml_table(top_key, name, entry, newline),
                        *lines[at:]])
    begin, end = block
    if entry is not None:
        return "".join([*lines[:begin], _render_toml_table(top_key, name, entry, newline),
                        *lines[end:]])
    while begin > 0 and _is_comment(lines[begin - 1]):
        begin -= 1
    while end < len(lines) and not lines[end].strip():
        end += 1
    if end == len(lines):
        while begin > 0 and not lines[begin - 1].strip():
            begin -= 1
    return "".join(lines[:begin] + lines[end:])


def _mentions(text: str, top_key: str, name: str) -> bool:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return True
    servers = data.get(top_key)
    return isinstance(servers, dict) and name in servers


def _toml_rewrite(text: str, top_key: str, edits: Mapping[str, dict[str, Any] | None]) -> str:
    import tomlkit  # noqa: PLC0415

    document = tomlkit.parse(text)
    servers = document.get(top_key)
    for name, entry in edits.items():
        if entry is None:
            if servers is not None and name in servers:
                del servers[name]
            continue
        if servers is None:
            servers = tomlkit.table(is_super_table=True)
            document[top_key] = servers
        table = tomlkit.table()
        for key, value in entry.items():
            table[key] = value
        servers[name] = table
    return tomlkit.dumps(document)


def names_of(changes: Collection[EntryChange], status: str) -> list[str]:
    return [change.name for change in changes if change.status == status]


# ---- showing a change without leaking a neighbour's token ---------------------------

_LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'')
_BARE_KEY = re.compile(r"^[+\- ]?\s*([A-Za-z0-9_-]+)\s*=")


def masked_diff(old: str, new: str, label: str) -> str:
    """A unified diff of the file, with secret-looking string values masked (the
    context lines may show other servers' tokens)."""
    import difflib  # noqa: PLC0415

    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                 f"{label} (before)", f"{label} (after)")
    return "".join(mask_line(line if line.endswith("\n") else line + "\n") for line in lines)


def mask_line(line: str) -> str:
    """Mask every string literal in `line` that looks like a secret, using the key it
    is written under (`"TOKEN": "..."`, `TOKEN = "..."`) as context."""
    from mcpctl.secretlike import looks_secret, mask  # noqa: PLC0415

    bare = _BARE_KEY.match(line)
    key: str | None = bare[1] if bare else None
    out: list[str] = []
    last = 0
    for match in _LITERAL.finditer(line):
        literal = match.group(0)
        inner = literal[1:-1]
        out.append(line[last:match.start()])
        last = match.end()
        if line[match.end():].lstrip().startswith((":", "=")):
            key = inner
            out.append(literal)
        elif looks_secret(inner, name=key):
            out.append(literal[0] + mask(inner) + literal[-1])
        else:
            out.append(literal)
    out.append(line[last:])
    return "".join(out)
