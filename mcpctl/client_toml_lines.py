"""Where each server of a client's TOML file is written, for messages (pure)."""

from __future__ import annotations

import re
import tomllib

_KEY = r'(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|\'[^\']*\')'


def toml_table_lines(text: str, top_key: str) -> dict[str, int]:
    """Line of each `[top_key.NAME]` (or `top_key.NAME... =`, or `NAME = ` inside
    `[top_key]`); the first mention wins."""
    header = re.compile(rf"^\s*\[\s*{re.escape(top_key)}\s*\.\s*({_KEY})")
    section = re.compile(rf"^\s*\[\s*{re.escape(top_key)}\s*\]")
    dotted = re.compile(rf"^\s*{re.escape(top_key)}\s*\.\s*({_KEY})\s*[.=]")
    plain = re.compile(rf"^\s*({_KEY})\s*[.=]")
    lines: dict[str, int] = {}
    inside = False
    top_level = True
    for number, line in enumerate(text.splitlines(), start=1):
        match = header.match(line)
        if match:
            lines.setdefault(_unquote(match[1]), number)
            inside = top_level = False
            continue
        if line.lstrip().startswith("["):
            inside, top_level = bool(section.match(line)), False
            continue
        match = dotted.match(line) if top_level else (plain.match(line) if inside else None)
        if match:
            lines.setdefault(_unquote(match[1]), number)
    return lines


def _unquote(key: str) -> str:
    if key[:1] in "\"'":
        value: str = tomllib.loads(f"k = {key}")["k"]
        return value
    return key
