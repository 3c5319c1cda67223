"""A field a server entry holds, written back in the syntax of the file it came from.

`show` prints fields mcpctl does not interpret as the user would write them — TOML
for config.toml, JSON for a repo's files — never as Python reprs (issue 15), with
secret-looking values masked as everywhere else. Pure.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime, time
from typing import Any

from mcpctl.credentials.masking import masked_tree
from mcpctl.model import Tier

_BARE_KEY = r"^[A-Za-z0-9_-]+$"  # compiled on first use


def field_line(key: str, value: Any, tier: Tier) -> str:
    shown = masked_tree(value, key)
    if tier == Tier.USER:
        return f"{toml_key(key)} = {toml_value(shown)}"
    return f"{json.dumps(key, ensure_ascii=False)}: {json.dumps(shown, ensure_ascii=False)}"


def toml_key(key: str) -> str:
    return key if re.match(_BARE_KEY, key) else json.dumps(key, ensure_ascii=False)


def toml_value(value: Any) -> str:
    """An inline TOML value; JSON's string escapes are TOML's basic-string escapes."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int | float):
        return _toml_number(value)
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        inner = ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items())
        return "{" + (f" {inner} " if inner else "") + "}"
    return json.dumps(str(value), ensure_ascii=False)


def _toml_number(value: float) -> str:
    if value != value:  # noqa: PLR0124 - NaN is the one value unequal to itself
        return "nan"
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    return repr(value)
