"""Shared by the lint tests: the corpus and a way to lint one file like the CLI does."""

from __future__ import annotations

import tomllib
from pathlib import Path

from mcpctl.lint import SCHEMA_NAMES, kind_for_path, load_schema
from mcpctl.lint.checks import lint_bytes
from mcpctl.lint.rules import Finding

CORPUS = Path(__file__).resolve().parent / "corpus"


def expected_findings() -> dict[str, list[str]]:
    with (CORPUS / "expected.toml").open("rb") as handle:
        return tomllib.load(handle)


def corpus_files(kind: str) -> list[str]:
    return sorted(p.relative_to(CORPUS).as_posix() for p in (CORPUS / kind).rglob("*")
                  if p.is_file() and p.parent.name != ".claude-plugin")


def lint_corpus_file(relative: str) -> list[Finding]:
    kind = kind_for_path(relative)
    assert kind is not None, relative
    name = SCHEMA_NAMES.get(kind)
    schema = load_schema(name) if name else None
    plugin = kind == "claude" and (CORPUS / relative).with_name(".claude-plugin").joinpath(
        "plugin.json").is_file()
    return lint_bytes((CORPUS / relative).read_bytes(), kind, relative, schema, plugin=plugin)
