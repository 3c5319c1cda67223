"""What a server says is masked before mcpctl shows it: substituted values and anything
the secret detector flags (pure)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpctl.credentials.redact import redact, redact_prefix, substitutions
from mcpctl.launch import Launch
from mcpctl.model import ServerSpec, Transport
from mcpctl.probing.redaction import hidden_values

GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" * 2  # the shape of a GitHub token


def test_each_substituted_value_is_masked_wherever_it_appears() -> None:
    text = "using correct-horse-battery at /srv; again: correct-horse-battery!"
    assert redact(text, ["correct-horse-battery"]) == (
        "using corr*** at /srv; again: corr***!")


def test_the_longer_of_two_overlapping_values_is_masked_first() -> None:
    assert redact("key=abcdefgh-tail", ["abcdefgh", "abcdefgh-tail"]) == "key=abc***"


def test_credentials_the_detector_knows_are_masked_without_being_told() -> None:
    assert redact(f"auth failed for {GHP} (retrying {GHP})", []) == (
        "auth failed for ghp_*** (retrying ghp_***)")
    assert redact("Authorization: Bearer sk-ant-" + "x1Y2z3" * 5, []) == (
        "Authorization: Bearer sk-a***")


def test_ordinary_text_and_empty_values_are_left_alone() -> None:
    text = "listening on 127.0.0.1:8080 (pid 4242), cache d41d8cd98f00b204e9800998ecf8427e"
    assert redact(text, ["", "unrelated-value"]) == text


def test_a_lone_surrogate_becomes_the_replacement_character() -> None:
    assert redact("bad \ud800 name", []) == "bad \ufffd name"


@pytest.mark.parametrize(("written", "resolved", "values"), [
    ("Bearer ${secret:docs}", "Bearer tok-123456", ["tok-123456"]),
    ("${env:TOKEN}", "abcdef", ["abcdef"]),
    ("--key=${secret:k} --user=${env:USER_NAME}", "--key=s3cr3t --user=alice",
     ["s3cr3t", "alice"]),
    ("${VAR:-fallback}/x", "fallback/x", ["fallback"]),
    # Paths mcpctl may show are not hidden; neither is text with no reference.
    ("${workspaceFolder}/bin/srv", "/repo/bin/srv", []),
    ("${userHome}/x", "/home/u/x", []),
    ("plain", "plain", []),
    # A short env value is a flag or a port: masking it would blot out every digit.
    ("--port=${env:PORT}", "--port=808", []),
    # ...but a secret is hidden whatever its length.
    ("${secret:pin}", "42", ["42"]),
    # Adjacent references cannot be told apart: their joint value is hidden.
    ("${env:A}${secret:B}", "left-right", ["left-right"]),
    ("${env:A}-${env:B}", "one1-two2", ["one1", "two2"]),
])
def test_substitutions_match_the_written_template(
    written: str, resolved: str, values: list[str]
) -> None:
    assert substitutions(written, resolved) == values


def test_a_resolved_text_that_does_not_fit_the_template_is_hidden_whole() -> None:
    assert substitutions("pre-${secret:x}", "other-value") == ["other-value"]


def test_a_cut_never_leaves_the_first_part_of_a_secret() -> None:
    text = "x" * 70 + " correct-horse-battery-staple and more"
    assert redact_prefix(text, ["correct-horse-battery-staple"], 80) == (
        "x" * 70 + " corr*** a…")
    assert redact_prefix("short", [], 80) == "short"


def test_hidden_values_of_a_server_are_its_substitutions_and_named_credentials() -> None:
    spec = ServerSpec(
        "s", Transport.STDIO, command="${env:SERVER_BIN}",
        args=("--key=${secret:k}", "plain", "--port=${env:PORT}"),
        env={"TOKEN": "${env:TOK}", "MODE": "fast", "API_KEY": "literal-key-123456"},
        cwd="sub/${env:DIR_NAME}", headers={"Authorization": "Bearer ${secret:docs}"})
    launch = Launch(
        name="s", transport=Transport.STDIO,
        argv=("/opt/bin/srv", "--key=s3cr3t!", "plain", "--port=80"),
        env={"TOKEN": "tok-abcdef", "MODE": "fast", "API_KEY": "literal-key-123456",
             "DB_PASSWORD": "hunter2hunter2"},  # the last one from an envFile
        cwd="/repo/sub/private-dir", url=None,
        headers={"Authorization": "Bearer docs-token-9"}, timeout=None, root=Path("/repo"))
    assert hidden_values(spec, launch) == [
        "/opt/bin/srv", "s3cr3t!", "tok-abcdef", "docs-token-9", "private-dir",
        "literal-key-123456", "hunter2hunter2"]
