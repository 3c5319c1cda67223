"""Fingerprint v2: exactly the canonical form of DESIGN §4 (files revised by issue 11),
recomputed here independently."""

from __future__ import annotations

import hashlib
import json
import unicodedata
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpctl.model import ServerSpec, Transport
from mcpctl.trust.fingerprint import canonical_bytes, fingerprint_of


def spec_fingerprint(payload: dict[str, Any]) -> str:
    """DESIGN §4, written out again: sha256 over the spec'd json.dumps of the payload."""
    text = json.dumps(["mcpctl-fingerprint-v2", payload], ensure_ascii=False,
                      separators=(",", ":"), sort_keys=True)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def payload_of(spec: ServerSpec, files: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    return {
        "transport": spec.transport.value, "command": spec.command, "args": list(spec.args),
        "env": sorted([k, v] for k, v in spec.env.items()), "cwd": spec.cwd,
        "envFile": spec.env_file, "url": spec.url,
        "headers": sorted([k, v] for k, v in spec.headers.items()),
        "pinSet": "workspace", "ignored": [], "named": [],
        "files": manifest(files or []),
    }


def manifest(files: list[tuple[str, str]]) -> str:
    """One SHA-256 over the sorted [path, digest] pairs, JSON with ASCII escapes."""
    text = json.dumps(sorted([p, d] for p, d in files), separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()


DOCS = ServerSpec(
    name="docs", transport=Transport.STDIO, command="npx",
    args=("-y", "@acme/docs-mcp@2.4.0"), env={"NODE_ENV": "production", "A": "b=c"},
    cwd="${workspaceFolder}", env_file=".env",
)
SCRIPT = ("scripts/server.sh", "sha256:" + hashlib.sha256(b"#!/bin/sh\nexec node s.js\n")
          .hexdigest())
# Also computed by hand: printf the canonical text | sha256sum.
GOLDEN = "sha256:973820ea42038f83cc4033d06260b31bfd101584d8b2eac62c00082879e34d20"


def test_golden_value() -> None:
    payload = {
        "transport": "stdio", "command": "npx", "args": ["-y", "@acme/docs-mcp@2.4.0"],
        "env": [["A", "b=c"], ["NODE_ENV", "production"]], "cwd": "${workspaceFolder}",
        "envFile": ".env", "url": None, "headers": [], "pinSet": "workspace",
        "ignored": [], "named": [], "files": manifest([SCRIPT]),
    }
    assert spec_fingerprint(payload) == GOLDEN
    assert fingerprint_of(DOCS, [SCRIPT]) == GOLDEN


def test_canonical_bytes_are_the_spec_text() -> None:
    assert canonical_bytes(DOCS) == (
        b'["mcpctl-fingerprint-v2",{"args":["-y","@acme/docs-mcp@2.4.0"],"command":"npx",'
        b'"cwd":"${workspaceFolder}","env":[["A","b=c"],["NODE_ENV","production"]],'
        b'"envFile":".env","files":"sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",'
        b'"headers":[],"ignored":[],"named":[],"pinSet":"workspace","transport":"stdio",'
        b'"url":null}]'
    )


def test_full_sha256_never_short() -> None:
    value = fingerprint_of(DOCS)
    assert value.startswith("sha256:")
    assert len(value.removeprefix("sha256:")) == 64
    int(value.removeprefix("sha256:"), 16)


def test_env_pairs_are_structural_not_joined() -> None:
    a = DOCS._replace(env={"a": "b=c"})
    b = DOCS._replace(env={"a=b": "c"})
    assert fingerprint_of(a) != fingerprint_of(b)
    ha = DOCS._replace(headers={"a": "b=c"})
    hb = DOCS._replace(headers={"a=b": "c"})
    assert fingerprint_of(ha) != fingerprint_of(hb)
    assert fingerprint_of(a) != fingerprint_of(ha)  # env and headers are different fields


def test_argument_boundaries_count() -> None:
    assert fingerprint_of(DOCS._replace(args=("a b",))) != fingerprint_of(
        DOCS._replace(args=("a", "b")))
    assert fingerprint_of(DOCS._replace(args=("ab",))) != fingerprint_of(
        DOCS._replace(args=("a", "b")))
    assert fingerprint_of(DOCS._replace(args=("",))) != fingerprint_of(DOCS._replace(args=()))
    assert fingerprint_of(DOCS._replace(command="npx -y", args=("x",))) != fingerprint_of(
        DOCS._replace(command="npx", args=("-y", "x")))


def test_env_and_header_order_do_not_matter() -> None:
    one = DOCS._replace(env={"A": "1", "B": "2", "C": "3"}, headers={"X": "1", "Y": "2"})
    two = DOCS._replace(env={"C": "3", "A": "1", "B": "2"}, headers={"Y": "2", "X": "1"})
    assert fingerprint_of(one) == fingerprint_of(two)


def test_pinned_file_order_does_not_matter_but_content_does() -> None:
    files = [("b.sh", "sha256:" + "1" * 64), ("a.sh", "sha256:" + "2" * 64)]
    assert fingerprint_of(DOCS, files) == fingerprint_of(DOCS, list(reversed(files)))
    assert fingerprint_of(DOCS, files) != fingerprint_of(DOCS, files[:1])
    assert fingerprint_of(DOCS, files) != fingerprint_of(
        DOCS, [("b.sh", "sha256:" + "3" * 64), files[1]])


def test_unicode_is_hashed_as_utf8_as_written() -> None:
    spec = DOCS._replace(command="sérvér", args=("日本語", "🙂"), env={"ZÜRICH": "grüezi"})
    assert fingerprint_of(spec) == spec_fingerprint(payload_of(spec))
    assert "日本語".encode() in canonical_bytes(spec)
    composed = DOCS._replace(args=(unicodedata.normalize("NFC", "é"),))
    decomposed = DOCS._replace(args=(unicodedata.normalize("NFD", "é"),))
    assert fingerprint_of(composed) != fingerprint_of(decomposed)  # values as written


@pytest.mark.parametrize("change", [
    {"transport": Transport.SSE}, {"command": "sh"}, {"args": ("-y", "@acme/docs-mcp@2.5.0")},
    {"env": {"NODE_ENV": "production", "A": "b=c", "NODE_OPTIONS": "--require x"}},
    {"cwd": "sub"}, {"cwd": None}, {"env_file": ".env.local"}, {"url": "https://x"},
    {"headers": {"Authorization": "Bearer ${secret:t}"}},
])
def test_every_field_changes_the_fingerprint(change: dict[str, Any]) -> None:
    assert fingerprint_of(DOCS._replace(**change)) != fingerprint_of(DOCS)


def test_what_is_not_in_the_canonical_form() -> None:
    # The name is the key of the approval, not part of what runs; timeout and unknown
    # fields do not change what is started.
    same = DOCS._replace(name="other", timeout=5.0, extra={"disabled": True})
    assert fingerprint_of(same) == fingerprint_of(DOCS)


def test_secret_references_are_hashed_as_written_not_resolved() -> None:
    spec = DOCS._replace(env={"TOKEN": "${secret:gh}"})
    assert b"${secret:gh}" in canonical_bytes(spec)


TRICKY = st.text(alphabet=st.sampled_from(['a', 'b', '=', ' ', '"', ',', '\\', '[', ']',
                                           ':', 'é', '\u0000', '$', '{', '}']), max_size=6)


@st.composite
def specs(draw: st.DrawFn) -> ServerSpec:
    remote = draw(st.booleans())
    return ServerSpec(
        name="s",
        transport=draw(st.sampled_from([Transport.HTTP, Transport.SSE]) if remote
                       else st.just(Transport.STDIO)),
        command=None if remote else draw(TRICKY),
        args=tuple(draw(st.lists(TRICKY, max_size=3))),
        env=draw(st.dictionaries(TRICKY, TRICKY, max_size=3)),
        cwd=draw(st.none() | TRICKY),
        env_file=draw(st.none() | TRICKY),
        url=draw(TRICKY) if remote else None,
        headers=draw(st.dictionaries(TRICKY, TRICKY, max_size=2)),
    )


FILES = st.lists(st.tuples(TRICKY, TRICKY), max_size=2, unique_by=lambda f: f[0])


@settings(max_examples=300)
@given(specs(), FILES, specs(), FILES)
def test_different_definitions_never_share_a_fingerprint(
    a: ServerSpec, files_a: list[tuple[str, str]], b: ServerSpec, files_b: list[tuple[str, str]]
) -> None:
    same_definition = payload_of(a, files_a) == payload_of(b, files_b)
    assert (fingerprint_of(a, files_a) == fingerprint_of(b, files_b)) == same_definition
    assert fingerprint_of(a, files_a) == spec_fingerprint(payload_of(a, files_a))


@given(specs())
def test_one_change_to_a_generated_definition_changes_the_fingerprint(spec: ServerSpec) -> None:
    for changed in (spec._replace(args=(*spec.args, "x")),
                    spec._replace(env={**spec.env, "NODE_OPTIONS": "--require ./x.js"}),
                    spec._replace(cwd=(spec.cwd or "") + "/"),
                    spec._replace(headers={**spec.headers, "X-New": "1"})):
        assert fingerprint_of(changed) != fingerprint_of(spec) or payload_of(
            changed) == payload_of(spec)
