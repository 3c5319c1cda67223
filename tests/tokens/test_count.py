"""Token counts against the real servers' fixtures, exactly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcpctl.tokens.count import TOKENIZER, count_tokens, tool_text, tool_tokens

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
