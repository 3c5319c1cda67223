"""`is_placeholder`, the one judge of whether a value is a stand-in for a credential
(`check` never reports one as a leak, `add` never moves one to the keyring), read rule by
rule where a later rule would not catch what an earlier one does. Each case names the
mutant it was shown to fail with, planted by hand."""

from __future__ import annotations

import pytest

from mcpctl.credentials.placeholders import is_placeholder
from mcpctl.credentials.secretlike import find_secret


@pytest.mark.parametrize("value", [
    # A bracketed hint, whatever is inside: with the bracket rule dropped, a body of
    # random-looking characters read as the secret itself.
    "<k7Qz9Pw2Lm4x>", "[a8f3k2m9q1]",
    # Only references and the punctuation between them: dropped, `DB_USER` was a word
    # no hint list holds, and the pair read as a literal credential.
    "${DB_USER}:${DB_PASS}",
    # A prefix, then a body that says "fill me in", where the value repeats its prefix:
    # the body compared with the value by their first 8 characters (alike here), the
    # hint was missed.
    "sk-sk-sk-sk-yourkeyhere",
    # No word at all: with the check for none dropped, reading the first word raised.
    "???",
])
def test_a_stand_in_is_a_placeholder(value: str) -> None:
    assert is_placeholder(value) is True


@pytest.mark.parametrize("value", ["k7Qz9Pw2Lm4x", "a8f3k2m9q1-Zt", "sk-7Hq2mZ9xLp4Wv8Rt"])
def test_the_same_characters_outside_the_brackets_are_a_credential(value: str) -> None:
    assert is_placeholder(value) is False


def test_check_is_given_the_placeholder_where_a_credential_goes_add_is_not() -> None:
    """`check` asks for stand-ins (it reports them as blanks to fill in); `add` does not
    (it would hide a hint still to be filled in in the keyring). With the choice not
    passed on from `find_secret`, `check` was never given one."""
    for value in ("AKIAIOSFODNN7EXAMPLE", "postgres://u:changeme@db/x"):
        assert find_secret(value, placeholders=True) is not None
        assert find_secret(value) is None
