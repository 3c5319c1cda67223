"""The detector's corpus: true secrets of many formats, placeholders and look-alikes,
each with its exact expectation (tests/credentials/corpus/detector.toml)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from mcpctl.credentials.known_formats import KNOWN
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


@pytest.mark.parametrize(("kind", "prefixes", "pattern"), KNOWN, ids=lambda v: str(v)[:24])
def test_every_known_format_row_lets_a_real_shaped_token_through_its_prefixes(
        kind: str, prefixes: tuple[str, ...], pattern: str) -> None:
    # A token is matched only against the rows whose prefix it has: a prefix that is not
    # what the pattern's matches start with would hide every credential of the format.
    shaped = [row["value"] for row in SECRETS
              if row["kind"] == kind and re.fullmatch(pattern, row["value"])]
    assert shaped, f"the corpus has no {kind} token this row's pattern matches"
    assert all(value.startswith(prefixes) for value in shaped)
    # Each prefix is one the pattern's matches begin with, not a typo that admits nothing:
    # the sample with its own prefix swapped for it is still a match.
    own = next(prefix for prefix in prefixes if shaped[0].startswith(prefix))
    for prefix in prefixes:
        assert re.fullmatch(pattern, prefix + shaped[0][len(own):]), prefix
