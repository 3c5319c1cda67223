"""Redaction at its bounds and in runs of adjacent references (issue 16): the cases the
mutation pass over `mcpctl/credentials/redact.py` found untested."""

from __future__ import annotations

from mcpctl.credentials.redact import (
    hide_known,
    redact,
    redact_known_tree,
    redact_prefix,
    substitutions,
)
from tests.credentials.tokens import distinct_tokens

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


def test_a_text_with_no_secret_or_env_reference_hides_nothing() -> None:
    """Paths are not secrets, even past the reference bound or when the resolved text
    does not fit its template (both hide the whole text when a secret may be in it).
    Fails with the early return for "no hidden kind" dropped (structural mutant)."""
    written = "/".join("${workspaceFolder}" for _ in range(17))
    assert substitutions(written, "/".join("/home/u/repo" for _ in range(17))) == []
    assert substitutions("pre-${userHome}", "other-value") == []
    assert substitutions("pre-${secret:x}", "other-value") == ["other-value"]


def test_a_secret_across_a_cut_past_2048_is_masked_before_the_cut() -> None:
    # The token starts 8 characters before the cut: scanning only up to the cut would
    # see "ghp_A1b2", not a token, and show it.
    text = "a" * 2039 + " " + TOKEN + " " + "b" * 10
    assert redact_prefix(text, set(), 2048) == "a" * 2039 + " ghp_*** " + "…"
    assert redact_prefix("a" * 2039 + " " + TOKEN[:8], set(), 2048) == (
        "a" * 2039 + " ghp_A1b2")  # the control: eight characters alone are no token


def test_64_different_tokens_in_one_text_are_all_masked() -> None:
    tokens = distinct_tokens(64)
    assert redact(" ".join(tokens), set()) == " ".join("ghp_***" for _ in tokens)


def test_text_exactly_at_the_limit_is_not_cut() -> None:
    assert redact_prefix("abc", set(), 3) == "abc"
    assert redact_prefix("abcd", set(), 3) == "abc…"


def test_a_run_ends_where_a_literal_follows() -> None:
    assert substitutions("${env:A}${secret:b}-${env:C}", "AAAAxy-zzzz") == ["AAAAxy", "zzzz"]


def test_a_65th_token_hides_the_whole_text() -> None:
    """Past `_MAX_FINDS` (64) the detector is not asked again, so what it has not yet
    masked would stay in clear: the whole text is hidden instead. Before, the 65th token
    was shown; with the bound made 16 times wider, each was masked where it stands."""
    tokens = distinct_tokens(65)
    assert redact("log: " + " ".join(tokens), set()) == "log:***"


def test_a_token_escaped_inside_json_hides_the_whole_text() -> None:
    """A server's structured log line may quote its token JSON-escaped (`\\u0041` for
    `A`): the detector reads it decoded, so it is not in the text as written and cannot
    be masked where it stands. Before, redaction stopped there and showed it."""
    escaped = '{"level": "error", "token": "ghp_\\u0041' + TOKEN[5:] + '"}'
    assert redact(escaped, set()) == '{"le***'


def test_a_known_secret_longer_than_the_margin_is_masked_across_the_cut() -> None:
    """A `${secret:…}` value may be longer than `SECRET_MARGIN` (a service account's JSON
    key is some 2,300 characters, a 4096-bit PEM key 3,200): the text is read as far past
    the cut as the longest known secret. Before, only 2,048 characters were, so the
    secret did not match whole and its first part was shown up to the cut."""
    secret = "".join(f"{i:04x}" for i in range(800))  # 3,200 characters, none repeated
    text = "key: " + secret + " end"
    shown = redact_prefix(text, {secret}, 100)
    assert shown == "key: " + secret[:4] + "*** end"
    assert secret[4:20] not in shown


def test_text_past_the_margin_is_never_read() -> None:
    """What lies more than `SECRET_MARGIN` past the cut cannot change what is shown: here
    ten more tokens there would make 70, past the bound where the whole text is hidden.
    With the margin made 16 times wider, they were read, and the shown part was hidden."""
    tokens = " ".join(distinct_tokens(60))
    later = " ".join(distinct_tokens(70, 60))
    shown = redact_prefix(tokens + " " + "a" * 2100 + " " + later, set(), 100)
    assert shown == " ".join(["ghp_***"] * 60)[:100] + "…"


def test_a_secret_nested_past_the_depth_bound_hides_its_whole_branch() -> None:
    """A tool definition nested past `_MAX_DEPTH` (64) is not walked further: a branch
    there that holds a known secret is hidden whole. With the bound 16 times wider, the
    walk went on to the secret and masked it where it stands (and a definition nested a
    thousand levels deep would have exhausted the stack)."""
    secret = "k7Qz9Pw2Lm4xR8"
    tree: object = {"token": secret}
    for _ in range(100):
        tree = [tree]
    shown = redact_known_tree(tree, {secret})
    for _ in range(65):
        assert isinstance(shown, list)
        shown = shown[0]
    assert shown == "***"


def test_a_secret_within_a_longer_one_is_masked_after_it() -> None:
    """Known secrets are masked longest first: masked first, a short one inside a long
    one (here after its first character) would leave the long one unmatched and its
    last character shown. Sorted by text instead of length, or shortest first, `Z`
    showed."""
    long, short = "Aabcdefgh12Z", "abcdefgh12"
    assert hide_known(f"got {long}.", {long, short}) == "got Aab***."


def test_a_non_ascii_secret_nested_past_the_bound_is_found_as_written() -> None:
    """Past the depth bound a branch is read as its JSON text, non-ASCII characters as
    themselves: with them escaped (`\\u00e4`), the secret was not found in that text and
    the branch was shown whole."""
    secret = "pässwort-k7Qz9Pw2"
    tree: object = {"key": secret}
    for _ in range(70):
        tree = {"next": tree}
    shown = redact_known_tree(tree, {secret})
    for _ in range(65):
        assert isinstance(shown, dict)
        shown = shown["next"]
    assert shown == "***"


def test_a_tool_definitions_numbers_booleans_and_nulls_are_kept_as_they_are() -> None:
    """A real tool's schema holds more than strings: `maximum: 10`, `additionalProperties:
    false`, `default: null`. Each is kept as it is while the secret in the description is
    masked. With every value that is not a string or an object walked as a list, the first
    number stopped the walk (`'int' object is not iterable`) and `cost` could keep nothing."""
    tool = {"name": "query",
            "description": f"Runs with {TOKEN}",
            "inputSchema": {"type": "object",
                            "properties": {"rows": {"type": "integer", "maximum": 10,
                                                    "default": None}},
                            "additionalProperties": False},
            "annotations": {"readOnlyHint": True, "weight": 0.5}}
    shown = redact_known_tree(tool, {TOKEN})
    assert shown["description"] == f"Runs with {hide_known(TOKEN, {TOKEN})}"
    assert TOKEN not in shown["description"]
    assert shown["inputSchema"] == tool["inputSchema"]
    assert shown["annotations"] == {"readOnlyHint": True, "weight": 0.5}
