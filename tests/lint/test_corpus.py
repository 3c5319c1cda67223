"""The corpus: real-looking bad files with their exact findings, and good files with none."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from mcpctl.lint.rules import RULES
from tests.conftest import Cli
from tests.lint.helpers import CORPUS, corpus_files, expected_findings, lint_corpus_file

EXPECTED = expected_findings()


def test_the_corpus_is_complete() -> None:
    assert len(corpus_files("bad")) >= 40
    assert len(corpus_files("good")) >= 10
    assert sorted(EXPECTED) == corpus_files("bad"), "every bad file has its expectation"


@pytest.mark.parametrize("relative", sorted(EXPECTED))
def test_bad_file_has_exactly_its_findings(relative: str) -> None:
    found = [f"{f.line}:{f.column} {f.code}" for f in lint_corpus_file(relative)]
    assert found == EXPECTED[relative]


@pytest.mark.parametrize("relative", corpus_files("good"))
def test_good_file_has_no_finding(relative: str) -> None:
    assert lint_corpus_file(relative) == []


def test_the_cli_reports_the_whole_corpus_in_order(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(CORPUS)
    result = cli("check", *corpus_files("good"), *sorted(EXPECTED))
    located = [re.sub(r"^(.*?:\d+:\d+): (MCP\d{3}) .*$", r"\1 \2", line)
               for line in result.out.splitlines()]
    assert located == [f"{path}:{finding}" for path in sorted(EXPECTED)
                       for finding in EXPECTED[path]]
    assert result.code == 1
    tally = Counter(RULES[f.split()[1]].severity.value for fs in EXPECTED.values() for f in fs)
    files = len(EXPECTED) + len(corpus_files("good"))
    assert result.err == (f"mcpctl check: {files} files, {tally['error']} error(s), "
                          f"{tally['warning']} warning(s), {tally['info']} info\n")
