"""`extract_secrets`, the one function `add` and `import` move credentials out of an
entry with, read case by case: what stays in the entry, and exactly what goes to the
keyring. Each case names the mutant it was shown to fail with, planted by hand."""

from __future__ import annotations

from typing import Any

import pytest

from mcpctl.credentials.extraction import extract_secrets

TOKEN = "ghp_" + "a1B2c3D4e5" * 3 + "f6G7h8"


@pytest.mark.parametrize(("entry", "kept", "moved"), [
    # `if isinstance(entry.get("command"), str)` dropped: the token stayed in the command.
    ({"command": f"TOKEN={TOKEN} srv"}, {"command": "TOKEN=${secret:s-command} srv"},
     {"s-command": TOKEN}),
    # The non-string check of the args, or its `kept.append`, dropped: an exception, or
    # the number lost.
    ({"command": "srv", "args": ["--port", 3]}, {"command": "srv", "args": ["--port", 3]}, {}),
    # `--option=value`: the value after `=` judged whole, by the option's name. With that
    # branch never taken, the arg was read as text and only the passphrase's first word
    # moved; the rest stayed in clear.
    ({"command": "srv", "args": ["--password=correct horse battery"]},
     {"command": "srv", "args": ["--password=${secret:s-arg0}"]},
     {"s-arg0": "correct horse battery"}),
    # `NAME=value` as `env` takes it, judged the same way: before, only "correct" moved.
    ({"command": "env", "args": ["DB_PASSWORD=correct horse battery", "srv"]},
     {"command": "env", "args": ["DB_PASSWORD=${secret:s-arg0}", "srv"]},
     {"s-arg0": "correct horse battery"}),
    # A dotted or dashed setting, as Hydra or a properties line takes it, is a name too:
    # with only identifiers read as names, "horse battery" stayed in the config.
    ({"command": "app", "args": ["db.password=correct horse battery",
                                 "db-passphrase=staple of paper"]},
     {"command": "app", "args": ["db.password=${secret:s-arg0}",
                                 "db-passphrase=${secret:s-arg1}"]},
     {"s-arg0": "correct horse battery", "s-arg1": "staple of paper"}),
    # A URL given as an argument is not a name: its token moves, its other query values
    # stay (read as `NAME=value` whatever came before `=`, as when the check for a dash
    # compared an empty prefix, `&mode=fast` went to the keyring with the token).
    ({"command": "app", "args": ["https://h.test/p?token=abc123def&mode=fast"]},
     {"command": "app", "args": ["https://h.test/p?token=${secret:s-arg0}&mode=fast"]},
     {"s-arg0": "abc123def"}),
    # A token written JSON-escaped inside a value (`\u0061` for `a`) is found decoded,
    # so it cannot be replaced where it stands: the whole value moves. With that check
    # dropped, the decoded token went to the keyring and the escaped one stayed.
    ({"command": "srv", "env": {"CONFIG": '{"token": "ghp_\\u0061' + TOKEN[5:] + '"}'}},
     {"command": "srv", "env": {"CONFIG": "${secret:s-CONFIG}"}},
     {"s-CONFIG": '{"token": "ghp_\\u0061' + TOKEN[5:] + '"}'}),
    # Two passwords carried in one shell line, one inside the other: the longer replaced
    # first. Sorted otherwise (`key=len` or `reverse=True` dropped), the short one's
    # reference was also put inside the long one, which then stayed half in clear.
    # (In reverse order of their letters alone, `zz12cd34` comes first here.)
    ({"command": "sh", "args": ["-c", "mysql -pzz12cd34 ; curl -u u:abzz12cd34"]},
     {"command": "sh", "args": ["-c", "mysql -p${secret:s-arg1-password-2} ; curl -u "
                                "u:${secret:s-arg1-password}"]},
     {"s-arg1-password": "abzz12cd34", "s-arg1-password-2": "zz12cd34"}),
    # A short password is replaced where it stands alone, not inside the host's name
    # (the fallback that replaces every occurrence made unconditional: the URL broke).
    ({"command": "sh", "args": ["-c", "curl -u u:ab12 https://ab12cd.test"]},
     {"command": "sh", "args": ["-c", "curl -u u:${secret:s-arg1-password} "
                                "https://ab12cd.test"]},
     {"s-arg1-password": "ab12"}),
    # A carried password the token reading had already moved is not a second secret
    # (`if replaced:` made true: the same token stored twice).
    ({"command": "mysql", "args": [f"-p{TOKEN}"]},
     {"command": "mysql", "args": ["${secret:s-arg0}"]}, {"s-arg0": f"-p{TOKEN}"}),
    # A query's blank values are kept (`keep_blank_values` dropped: `empty=` lost).
    ({"command": "srv", "url": f"https://h.test/x?empty=&token={TOKEN}"},
     {"command": "srv", "url": "https://h.test/x?empty=&token=${secret:s-url-token}"},
     {"s-url-token": TOKEN}),
    # A URL with nothing to move is left byte for byte (the rebuild made unconditional:
    # `%20` became `+`).
    ({"command": "srv", "url": "https://h.test/x?q=a%20b"},
     {"command": "srv", "url": "https://h.test/x?q=a%20b"}, {}),
    # A userinfo password, judged as a password: its check dropped, its `name=` dropped,
    # the netloc compared by its first 8 characters, or `netloc=` left out of the
    # rebuild, and it stayed in clear.
    ({"command": "srv", "url": "https://longusername:Harb4471q@h.test/"},
     {"command": "srv", "url": "https://longusername:${secret:s-url-password}@h.test/"},
     {"s-url-password": "Harb4471q"}),
], ids=["command", "number-arg", "option-equals", "env-assignment", "dotted-setting",
         "url-argument", "escaped-in-json", "nested-carried",
        "short-beside-host", "carried-moved", "blank-query", "untouched-url", "userinfo-password"])
def test_what_stays_and_what_moves(entry: dict[str, Any], kept: dict[str, Any],
                                   moved: dict[str, str]) -> None:
    assert extract_secrets("s", entry) == (kept, moved)


def test_a_field_nested_past_the_bound_is_returned_not_recursed_into() -> None:
    """An unknown field nested 900 levels deep ends in its own bound (`_MAX_DEPTH`,
    100), far below the interpreter's recursion limit. With the bound's check dropped, or
    the bound multiplied by 16, this ended in a RecursionError. What lies past the bound
    is not read; no such entry is written either, since the writer refuses one nested
    more than 64 levels (`test_add_refuses_an_entry_nested_too_deeply`)."""
    deep: Any = [TOKEN]
    for _ in range(900):
        deep = [deep]
    kept, moved = extract_secrets("s", {"command": "srv", "extraThing": deep})
    assert kept == {"command": "srv", "extraThing": deep}
    assert moved == {}
