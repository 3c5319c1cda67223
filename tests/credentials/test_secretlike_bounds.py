"""The detector's bounds on JSON held in a string, tested at the bound (issue 30): a
string up to 256 KiB is parsed and each value judged under its key; a longer one is
judged as text only, so a hostile value costs no parse. Each case names the mutant it
was shown to fail with, planted by hand."""

from __future__ import annotations

import json

from mcpctl.credentials.secretlike import find_secrets

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
