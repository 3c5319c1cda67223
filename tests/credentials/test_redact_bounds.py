"""Redaction at its bounds and in runs of adjacent references (issue 16): the cases the
mutation pass over `mcpctl/credentials/redact.py` found untested."""

from __future__ import annotations

from mcpctl.credentials.redact import redact_prefix, substitutions

TOKEN = "ghp_" + "A1b2C3d4E5" * 4


def test_a_secret_joined_to_a_short_env_value_is_one_hidden_run() -> None:
    # The secret's own group matches nothing (the lazy match gives all to the last one):
    # only joining the run keeps its value hidden.
    assert substitutions("${secret:a}${env:B}", "xy") == ["xy"]
    assert substitutions("${env:A}-${secret:c}${env:B}", "AAAA-xy") == ["AAAA", "xy"]


def test_up_to_16_references_are_matched_one_by_one_and_more_are_hidden_whole() -> None:
    def template(count: int) -> tuple[str, str]:
        return ("-".join(f"${{env:V{i}}}" for i in range(count)),
                "-".join(f"val{i:02d}" for i in range(count)))

    written, resolved = template(16)
    assert substitutions(written, resolved) == [f"val{i:02d}" for i in range(16)]
    written, resolved = template(17)
    assert substitutions(written, resolved) == [resolved]


def test_a_secret_across_a_cut_past_2048_is_masked_before_the_cut() -> None:
    # The token starts 8 characters before the cut: scanning only up to the cut would
    # see "ghp_A1b2", not a token, and show it.
    text = "a" * 2039 + " " + TOKEN + " " + "b" * 10
    assert redact_prefix(text, set(), 2048) == "a" * 2039 + " ghp_*** " + "…"
    assert redact_prefix("a" * 2039 + " " + TOKEN[:8], set(), 2048) == (
        "a" * 2039 + " ghp_A1b2")  # the control: eight characters alone are no token
