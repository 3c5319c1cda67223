"""How a JSON(C) file is laid out, and values rendered to match it (pure).

New members are written with the file's newline (CRLF stays CRLF), indentation unit
and density: a one-line file stays on one line, a minified one stays minified.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


@dataclass(frozen=True)
class Style:
    """How a JSON file is laid out, so an edit writes in the same style."""

    newline: str
    unit: str  # one level of indentation
    one_line: bool  # the whole document is on one line: keep it so
    compact: bool  # ... and minified: no space after ':' and ','


def style_of(text: str) -> Style:
    newline = "\r\n" if "\r\n" in text else "\n"
    match = re.search(r"\n([ \t]+)\S", text)
    one_line = bool(text.strip()) and "\n" not in text.strip()
    compact = one_line and not re.search(r"[:,][ \t]", _STRING.sub('""', text))
    return Style(newline, match[1] if match else "  ", one_line, compact)


def line_indent(text: str, offset: int) -> str:
    """The indentation of the line `offset` is on."""
    line_start = text.rfind("\n", 0, offset) + 1
    match = re.match(r"[ \t]*", text[line_start:offset])
    return match.group(0) if match else ""


def render(value: Any, indent: str, style: Style, *, inline: bool) -> str:
    """`value` as JSON, its lines after the first indented by `indent`."""
    if style.compact:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if inline or style.one_line:
        return json.dumps(value, ensure_ascii=False)
    rendered = json.dumps(value, ensure_ascii=False, indent=style.unit)
    return rendered.replace("\n", style.newline + indent)


def member_text(key: str, value: Any, indent: str, style: Style, *, inline: bool) -> str:
    colon = ":" if style.compact else ": "
    return json.dumps(key, ensure_ascii=False) + colon + render(value, indent, style,
                                                                  inline=inline)
