"""The backup of a client's file keeps no credential value (`credentials/scrub.py`), at
the public function: each case fails with the branch its docstring names taken out."""

from __future__ import annotations

import json
import uuid

from mcpctl.credentials.scrub import scrub


def token() -> str:
    return "ghp_" + uuid.uuid4().hex + uuid.uuid4().hex[:4]


def test_a_token_outside_every_server_entry_is_taken_out_as_redacted() -> None:
    """No server owns it (a client's own key, its history): without the detector pass
    over every keyed string it stays in the backup."""
    value = token()
    text = json.dumps({"primaryApiKey": value, "history": [{"display": f"use {value}"}],
                       "mcpServers": {"plain": {"command": "srv"}}}, indent=2)
    done = scrub(text, toml=False)
    assert value not in done.text
    assert json.loads(done.text)["primaryApiKey"] == "${secret:redacted}"
    assert (done.replaced, done.complete) == (1, True)


def test_a_server_entry_inside_a_list_is_read_as_import_reads_it() -> None:
    """A password only its key gives away, in servers kept in a list of profiles:
    without the list branch of `_entries` no server owns it."""
    text = json.dumps({"profiles": [{"mcpServers": {"db": {
        "command": "srv", "env": {"DB_PASSWORD": "Harb4471q"}}}}]})
    done = scrub(text, toml=False)
    assert "Harb4471q" not in done.text
    assert "${secret:db-DB_PASSWORD}" in done.text


def test_a_password_within_a_longer_one_is_taken_out_after_it() -> None:
    """One server's password is another's between dashes. Taken out longest first, each
    becomes its own reference; the shorter first (sorted by text, or shortest first),
    it cut the longer one in pieces that stayed in the backup, `Xq7-` and `-battery`."""
    text = json.dumps({"mcpServers": {
        "a": {"command": "srv", "env": {"DB_PASSWORD": "Xq7-correct-horse-battery"}},
        "b": {"command": "srv", "env": {"DB_PASSWORD": "correct-horse"}}}})
    done = scrub(text, toml=False)
    env = {name: entry["env"]["DB_PASSWORD"]
           for name, entry in json.loads(done.text)["mcpServers"].items()}
    assert env == {"a": "${secret:a-DB_PASSWORD}", "b": "${secret:b-DB_PASSWORD}"}
    assert (done.replaced, done.complete) == (2, True)


def test_a_password_written_with_raw_non_ascii_and_an_escaped_quote_is_taken_out() -> None:
    """Editors write `ä` as itself and `"` escaped: the value is found in that form too.
    With only the all-ASCII escaped form tried, it stayed in the backup."""
    password = 'pä"ss-k7Qz9'
    text = json.dumps({"mcpServers": {"db": {"command": "srv",
                                             "env": {"DB_PASSWORD": password}}}},
                      ensure_ascii=False)
    done = scrub(text, toml=False)
    assert 'pä\\"ss' not in done.text
    assert (done.replaced, done.complete) == (1, True)


def test_a_short_password_outside_every_server_entry_is_judged_by_its_key() -> None:
    """A client's own setting `dbPassword` holds a password only its key gives away:
    judged without the key, it stayed in the backup."""
    text = json.dumps({"tool": {"dbPassword": "Harb4471q"},
                       "mcpServers": {"plain": {"command": "srv"}}})
    done = scrub(text, toml=False)
    assert json.loads(done.text)["tool"]["dbPassword"] == "${secret:redacted}"
    assert (done.replaced, done.complete) == (1, True)


def test_a_short_password_leaves_the_same_letters_inside_a_longer_word_alone() -> None:
    """The password is replaced where it stands alone; the same letters inside a longer
    word elsewhere (here the server's command) are left. With the whole text compared
    by its first characters, nothing seemed replaced, and every occurrence was."""
    text = json.dumps({"mcpServers": {"db": {"command": "k7Qz9Pwtool",
                                             "env": {"DB_PASSWORD": "k7Qz9Pw"}}}})
    done = scrub(text, toml=False)
    entry = json.loads(done.text)["mcpServers"]["db"]
    assert entry == {"command": "k7Qz9Pwtool", "env": {"DB_PASSWORD": "${secret:db-DB_PASSWORD}"}}
