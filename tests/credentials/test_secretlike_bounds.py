"""The detector's bounds, tested at the bound (issue 30). JSON held in a string up to
256 KiB is parsed and each value judged under its key; a longer one is judged as text
only, so a hostile value costs no parse. At most 64 matches come from one value; a
caller that gets 64 takes the whole value for the secret. Each case names the mutant
it was shown to fail with, planted by hand."""

from __future__ import annotations

import json

from mcpctl.credentials.extraction import extract_secrets
from mcpctl.credentials.masking import masked_value
from mcpctl.credentials.scrub import scrub
from mcpctl.credentials.secretlike import MAX_MATCHES, find_secret, find_secrets
from tests.credentials.tokens import distinct_tokens

LIMIT = 256 * 1024


def json_of_length(length: int) -> str:
    """A JSON object of exactly `length` characters holding a short password that only
    its key names."""
    head = json.dumps({"dbPassword": "Harb4471q", "pad": ""})
    return head[:-2] + "y" * (length - len(head)) + '"}'


def test_json_up_to_the_bound_is_parsed_and_one_character_more_is_not() -> None:
    """At 256 KiB the password is found by its key; at 256 KiB and one character the
    string is not parsed, and nothing else in it says "password". With the bound made
    16 times wider, the longer string was parsed too."""
    at, past = json_of_length(LIMIT), json_of_length(LIMIT + 1)
    assert (len(at), len(past)) == (LIMIT, LIMIT + 1)
    assert [match.text for match in find_secrets(at)] == ["Harb4471q"]
    assert [match.text for match in find_secrets(past)] == []


def tokens(count: int) -> str:
    return " ".join(distinct_tokens(count))


def test_the_detector_gives_at_most_64_matches() -> None:
    """A hostile value costs at most 64 matches. Unbounded, all 70 came; stopped after
    the first (the bound's test always true), two became one."""
    assert len(list(find_secrets(tokens(70)))) == MAX_MATCHES == 64
    assert len(list(find_secrets(tokens(2)))) == 2


def test_a_value_with_more_credentials_than_the_detector_gives_is_one_secret() -> None:
    """With 64 matches a caller cannot know it has them all, so `add` moves the whole
    value, display masks it whole, and a backup holding it is not written (scrub says
    it is not complete). Before, the first 64 were taken out and the rest stayed: in
    config.toml, on screen, in the backup."""
    value = tokens(70)
    assert extract_secrets("s", {"command": "srv", "env": {"KEYS": value}}) == (
        {"command": "srv", "env": {"KEYS": "${secret:s-KEYS}"}}, {"s-KEYS": value})
    assert masked_value(value) == "ghp_***"
    assert scrub(json.dumps({"keys": value}), toml=False).complete is False
    assert scrub(value, toml=False).complete is False  # not JSON: judged by look alone
    few = tokens(3)
    assert masked_value(few) == "ghp_*** ghp_*** ghp_***"
    assert scrub(json.dumps({"keys": few}), toml=False).complete is True


def test_json_within_json_is_read_three_levels_deep_and_no_deeper() -> None:
    """JSON held in a string inside JSON held in a string: three levels are parsed, the
    fourth is not, so a hostile value nested a thousand times costs three parses. With
    the depth not checked, the fourth level was parsed too."""
    level: object = {"dbPassword": "Harb4471q"}
    found = []
    for _ in range(4):
        found.append([match.text for match in find_secrets(json.dumps(level))])
        level = {"cfg": json.dumps(level)}
    assert found == [["Harb4471q"], ["Harb4471q"], ["Harb4471q"], []]


def test_a_known_format_needs_ten_distinct_characters_and_a_digit_to_be_a_credential() -> None:
    """A value of a known format (`ghp_` and 20 more) is a credential only when it
    varies as a real one does: ten distinct characters at least, one a digit. A
    documentation example (`ghp_ABCDEFGHIJKLMNOPQRSTUV`, the alphabet) or a short cycle
    is not, in `check` nor in `add` (which keeps placeholders). With that test of
    variety left out (the known-format step's guard made always true), each of these
    was flagged as a GitHub token."""
    ten = "ghp_" + "012345" * 4  # g h p _ and six digits: ten distinct
    nine = "ghp_" + "01234" * 4
    assert find_secret(ten) is not None
    for example in (nine, "ghp_ABCDEFGHIJKLMNOPQRSTUV",
                    "github_pat_abcdefghijklmnopqrstuvwxyz"):
        assert find_secret(example) is None, example
        assert list(find_secrets(example, placeholders=True)) == [], example


def test_a_value_that_only_begins_like_a_known_format_is_not_a_credential() -> None:
    """`SK` begins a Twilio key and `dapi` a Databricks token, but a value must match
    the whole format to be one: a service name (`dapi_gateway_v2_prod`), a project
    (`SKETCHBOOK2024xyz`) or lowercase after `AKIA` is not. With a known prefix taken
    as enough (the check that a format matched made always true), each was flagged."""
    for value in ("dapi_gateway_v2_prod", "SKETCHBOOK2024xyz", "AKIAabcdef0123456789"):
        assert find_secret(value) is None, value
    assert find_secret("SK" + "0123456789abcdef" * 2) is not None


def test_a_value_under_a_keys_name_is_its_credential_up_to_4096_characters() -> None:
    """Under a token's name, a value of up to 4,096 characters is the credential; a
    longer one is a document (a schema, a certificate bundle), and not one secret.
    With the length and placeholder check left out of the named-credential rule, the
    4,097-character value was a credential too."""
    value = "abc1" * 1024
    assert find_secret(value, name="API_TOKEN") is not None
    assert find_secret(value + "a", name="API_TOKEN") is None


def test_a_password_in_a_list_inside_json_held_in_a_string_is_found() -> None:
    """JSON held in a string is walked into its lists as into its objects: a password
    that only its key names, in an object in a list, is found. With lists not walked,
    it was not."""
    value = json.dumps({"users": [{"name": "ci", "password": "Harb4471q"}]})
    assert [m.text for m in find_secrets(value)] == ["Harb4471q"]
