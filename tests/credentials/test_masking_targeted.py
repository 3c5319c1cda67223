"""Masking for display, case by case: each rule pinned to an exact output (issue 16).

The mutation pass runs these against `mcpctl/credentials/masking.py`; each case is one
a mutant could get wrong (the context an argument takes, a query value left in clear,
the depth bound, an entry's fields that are not strings).
"""

from __future__ import annotations

from typing import Any

import pytest

from mcpctl.credentials.masking import (
    masked_args,
    masked_entry,
    masked_map,
    masked_tree,
    masked_url,
    masked_value,
)

SECRET = "s3cr3tValue99"  # not a secret by itself; a secret under a secret-like name
TOKEN = "ghp_" + "A1b2C3d4E5" * 4  # a secret by its shape alone


def test_a_value_is_judged_with_its_name() -> None:
    assert masked_value(SECRET) == SECRET
    assert masked_value(SECRET, "API_KEY") == "s3c***"
    assert masked_value(TOKEN) == "ghp_***"
    assert masked_map({"API_KEY": SECRET, "MODE": "safe"}) == {"API_KEY": "s3c***",
                                                               "MODE": "safe"}


def test_a_token_within_a_longer_one_is_masked_after_it() -> None:
    """The longer of two tokens, one the start of the other, is masked first, then the
    shorter: each shows its own first characters. Shortest first (`reverse=True` left
    out), the longer one was no longer found as written, and the whole value was hidden."""
    assert masked_value(f"x {TOKEN} {TOKEN}Q9") == "x ghp_*** ghp_***"


def test_a_password_that_a_token_also_holds_is_masked_after_the_token() -> None:
    """Longest first by length, whatever the kinds: a URL password that is part of a token
    in the same value. Planted: the order by length dropped (`masking.py:28`, the key:
    matches then ran in the order of their kinds), the password went first, the token
    was no longer found as written, and the whole value was hidden."""
    url = f"https://u:{TOKEN[8:18]}@h/?t={TOKEN}"
    assert masked_value(url) == f"https://u:{TOKEN[8:10]}***@h/?t=ghp_***"


def test_a_token_escaped_inside_json_hides_the_whole_value() -> None:
    """A token found only once its JSON escape is read (`\\u0041` for `A`) is not in the
    value as written, so it cannot be masked where it stands: the whole value is hidden.
    With that check dropped, nothing was replaced and the token was shown, escaped."""
    escaped = '{"token": "ghp_\\u0041' + TOKEN[5:] + '"}'
    assert masked_value(escaped) == '{"to***'


@pytest.mark.parametrize(("args", "shown"), [
    (["--token", SECRET], ["--token", "s3c***"]),
    (["--token=" + SECRET], ["--token=s3c***"]),
    (["--api-key", SECRET, "--mode=safe"], ["--api-key", "s3c***", "--mode=safe"]),
    (["a", "b", "--token", SECRET], ["a", "b", "--token", "s3c***"]),  # the one just before
    # The first argument has no option before it: not the last one, wrapped around.
    ([SECRET, "--token"], [SECRET, "--token"]),
    (["plain", SECRET], ["plain", SECRET]),
    (["x=" + SECRET], ["x=" + SECRET]),
    # A passphrase is masked whole, after an option or a setting's name: judged by its
    # name only as text (`name=` left out), its later words were shown; so were they
    # after `db.password=` while only an option's dash made a name.
    (["--password=correct horse battery"], ["--password=corr***"]),
    (["db.password=correct horse battery", "DB_PASS=staple of paper"],
     ["db.password=corr***", "DB_PASS=sta***"]),
    (["-y", TOKEN], ["-y", "ghp_***"]),
    ([], []),
])
def test_arguments_take_the_option_before_them_as_context(args: list[str],
                                                         shown: list[str]) -> None:
    assert masked_args(args) == shown


@pytest.mark.parametrize(("url", "shown"), [
    ("https://user:pa55word@host/x", "https://user:***@host/x"),
    ("https://user:%21pw@host/x", "https://user:***@host/x"),  # sorts before "***"
    (f"https://host/mcp?api_key={SECRET}&team=core", "https://host/mcp?api_key=s3c***&team=core"),
    (f"https://u:pw@h/?a=&token={SECRET}&x=${{T}}", "https://u:***@h/?a=&token=s3c***&x=${T}"),
    ("https://host/mcp?team=core", "https://host/mcp?team=core"),
    # Judged and shown decoded: the encoding's `%` is not shown as the value's start.
    ("https://host/mcp?secret=x%20y%20zz&team=core", "https://host/mcp?secret=x***&team=core"),
    ("https://host/mcp?q=a%20b", "https://host/mcp?q=a%20b"),  # left exactly as written
    (f"http://[::1/{TOKEN}", "http://[::1/ghp_***"),  # unparseable: the token part
    # Masking that changes nothing leaves the URL exactly as written (no "?" dropped).
    ("https://u:***@h/x?", "https://u:***@h/x?"),
    # A user name of 8 characters or more: the netloc compared whole, not by its start
    # (where the masked one and the original are alike, the password was shown).
    ("https://longusername:pa55word@host/x", "https://longusername:***@host/x"),
    # An empty password is nothing to mask (masked with no password there, it read as
    # one).
    ("https://user:@host/x", "https://user:@host/x"),
])
def test_urls_mask_the_password_and_secret_query_values(url: str, shown: str) -> None:
    assert masked_url(url) == shown


def test_a_tree_masks_each_string_with_the_key_above_it() -> None:
    tree = {"auth": {"token": SECRET}, "list": [SECRET], "n": 3, "apiKey": (SECRET, TOKEN),
            "ok": None}
    assert masked_tree(tree) == {"auth": {"token": "s3c***"}, "list": [SECRET], "n": 3,
                                 "apiKey": ["s3c***", "ghp_***"], "ok": None}
    assert masked_tree(SECRET, "password") == "s3c***"


def nested(depth: int, leaf: str = "leaf") -> Any:
    value: Any = leaf
    for _ in range(depth):
        value = {"k": value}
    return value


def test_a_tree_deeper_than_the_bound_is_hidden_not_recursed() -> None:
    # The top is depth 0; whatever sits at depth 101 is replaced whole by "***".
    assert masked_tree(nested(100)) == nested(100)
    assert masked_tree(nested(101)) == nested(101, "***")
    assert masked_tree(nested(102)) == nested(101, "***")
    assert masked_tree(nested(5000)) == nested(101, "***")  # no RecursionError


def test_lists_count_towards_the_depth_bound() -> None:
    deep: Any = "leaf"
    for _ in range(5000):
        deep = [deep]
    hidden: Any = "***"
    for _ in range(101):
        hidden = [hidden]
    assert masked_tree(deep) == hidden


def test_an_entry_masks_env_headers_args_and_url_and_keeps_the_rest() -> None:
    """Each field by its own rule, a field mcpctl does not know by the keys inside it.
    With the command's or the unknown fields' masking left out, their token was shown;
    with the known fields also read as unknown ones, `--token`'s value lost its option."""
    entry = {"command": f"TOKEN={TOKEN} npx", "env": {"API_KEY": SECRET, "N": 3},
             "headers": {"Authorization": "Bearer " + SECRET}, "args": ["--token", SECRET],
             "url": f"https://h/?token={SECRET}", "cwd": SECRET, "auth": {"token": SECRET}}
    assert masked_entry(entry) == {
        "command": "TOKEN=ghp_*** npx", "env": {"API_KEY": "s3c***", "N": 3},
        "headers": {"Authorization": "Bearer s3c***"}, "args": ["--token", "s3c***"],
        "url": "https://h/?token=s3c***", "cwd": SECRET, "auth": {"token": "s3c***"}}
    assert entry["env"] == {"API_KEY": SECRET, "N": 3}  # the caller's value is untouched


@pytest.mark.parametrize("entry", [
    "npx", ["--token", SECRET], None,
    {"args": ["--token", 5]}, {"env": "API_KEY"}, {"headers": [SECRET]}, {"url": 5},
])
def test_what_is_not_an_entry_of_strings_is_left_as_it_is(entry: Any) -> None:
    assert masked_entry(entry) == entry
