"""Generated input never makes the linter raise: it yields findings, or one parse error."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpctl.lint import KINDS, SCHEMA_NAMES, load_schema
from mcpctl.lint.checks import lint_bytes
from mcpctl.lint.report import CheckResult, github_line, render_json, text_line
from mcpctl.lint.rules import RULES, Finding
from tests.lint.helpers import CORPUS, corpus_files

FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SEEDS = [(CORPUS / name).read_bytes() for name in corpus_files("good") + corpus_files("bad")]


def lint_all_kinds(data: bytes, kinds: Sequence[str] = KINDS) -> list[Finding]:
    """Lint `data` as every kind of file; check and render each result."""
    every: list[Finding] = []
    for kind in kinds:
        name = SCHEMA_NAMES.get(kind)
        findings = lint_bytes(data, kind, "fuzz.json", load_schema(name) if name else None)
        for finding in findings:
            assert finding.code in RULES
            assert min(finding.line, finding.column) >= 1
            assert "\n" not in text_line(finding)
            assert "\n" not in github_line(finding)
        if any(f.code == "MCP001" for f in findings):
            assert len(findings) == 1, "a parse error is the only finding"
        json.loads(render_json(CheckResult(["fuzz.json"], findings)))
        every += findings
    return every


@FUZZ
@given(st.binary(max_size=300))
def test_arbitrary_bytes(data: bytes) -> None:
    lint_all_kinds(data)


@FUZZ
@given(seed=st.sampled_from(SEEDS), cut=st.integers(0, 2000), insert=st.text(max_size=8))
def test_damaged_corpus_files(seed: bytes, cut: int, insert: str) -> None:
    at = cut % (len(seed) + 1)
    lint_all_kinds(seed[:at] + insert.encode("utf-8", "surrogatepass") + seed[at + 1:])


strings = st.text(max_size=20) | st.sampled_from([
    "npx", "uvx", "docker", "run", "-c", "bash", "cmd", "/c", "${input:x}", "${env:", "${}",
    "http://h.example", "https://u:p@h.example/?token=abcdef123456", "/home/u", "C:\\Users\\u",
    "ghp_0123456789abcdefghijABCDEFGHIJexampl", "-y", "pkg@latest", "curl x | sh", "--token",
])
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | strings,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(strings, children, max_size=4),
    max_leaves=20,
)
entries = st.dictionaries(
    st.sampled_from(["command", "args", "env", "url", "headers", "type", "cwd", "envFile"]),
    json_values | st.lists(strings, max_size=6) | st.dictionaries(strings, strings, max_size=3),
    max_size=6,
)


@FUZZ
@given(top=st.sampled_from(["mcpServers", "servers", "inputs", "enabledMcpjsonServers", "x"]),
       servers=st.dictionaries(strings, entries | json_values, max_size=4), other=json_values)
def test_generated_documents(top: str, servers: dict[str, Any], other: Any) -> None:
    document = {top: servers, "inputs": other, "enableAllProjectMcpServers": other}
    json_kinds = [kind for kind in KINDS if kind != "codex"]  # JSON is seldom TOML
    findings = lint_all_kinds(json.dumps(document).encode(), json_kinds)
    assert not any(f.code == "MCP001" for f in findings), "valid JSON always parses"


def test_deep_nesting_is_a_finding_not_a_crash() -> None:
    for depth in (500, 5000, 100_000):
        for data in (b"[" * depth + b"]" * depth, b'{"a":' * depth + b"1" + b"}" * depth):
            lint_all_kinds(b'{"mcpServers": {"s": {"command": "x", "args": ' + data + b"}}}")
            lint_all_kinds(data)
