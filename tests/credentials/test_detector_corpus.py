"""The detector's corpus: true secrets of many formats, placeholders and look-alikes,
each with its exact expectation (tests/credentials/corpus/detector.toml)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from mcpctl.credentials.secretlike import find_secret

CORPUS = tomllib.loads((Path(__file__).parent / "corpus" / "detector.toml").read_text())
SECRETS: list[dict[str, Any]] = CORPUS["secret"]
CLEAN: list[dict[str, Any]] = CORPUS["clean"]


def _label(row: dict[str, Any]) -> str:
    return f"{row.get('name')}={row['value'][:40]}"


@pytest.mark.parametrize("row", SECRETS, ids=_label)
def test_each_secret_is_found_with_its_kind_and_text(row: dict[str, Any]) -> None:
    match = find_secret(row["value"], name=row.get("name"))
    assert match is not None, "false negative"
    assert (match.kind, match.text) == (row["kind"], row.get("text", row["value"]))


@pytest.mark.parametrize("row", CLEAN, ids=_label)
def test_each_placeholder_and_look_alike_is_left_alone(row: dict[str, Any]) -> None:
    assert find_secret(row["value"], name=row.get("name")) is None, "false positive"


def test_the_corpus_covers_what_issue_14_asks() -> None:
    """20+ known formats, and no false positive or negative over the whole corpus."""
    known = {row["kind"] for row in SECRETS} - {"credential", "URL password",
                                                "high-entropy string"}
    assert len(known) >= 20
    negatives = [r for r in SECRETS if find_secret(r["value"], name=r.get("name")) is None]
    positives = [r for r in CLEAN if find_secret(r["value"], name=r.get("name")) is not None]
    assert (len(SECRETS), len(CLEAN), len(negatives), len(positives)) == (
        len(SECRETS), len(CLEAN), 0, 0)
