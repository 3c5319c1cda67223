"""Credentials by field (issue 23, item 5), through the CLI: `add` keeps none in clear,
`check` flags each, and the backup `export` keeps holds none.

Each case is a password only its place gives away: a short all-digit value or a
passphrase of several words under a password's name, `mysql -pVALUE` / `-p VALUE`,
`curl -u user:pass` / `--user`, a Go DSN `user:pass@tcp(...)`. Every test first shows the
attack working where mcpctl does not protect (the value sits in the file the client or
the user wrote), then that after mcpctl the value is in the keyring and nowhere else.
Removing the `argv_credentials` call in `credentials/extraction.py` (and, for check, in
`lint/checks.py`), or the `is_password_name` branch of `secretlike._is_named_credential`,
or `_dsn_passwords`, makes the matching cases fail (checked).
"""

from __future__ import annotations

import json
import random
import re
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from mcpctl.credentials.argv import argv_credentials
from mcpctl.credentials.names import is_password_name
from tests.conftest import Result, run_mcpctl
from tests.credentials.leaks import leaks


def mcpctl(*args: str, cwd: Path | None = None) -> Result:
    return run_mcpctl(list(args), cwd=cwd) if cwd is not None else run_mcpctl(list(args))


def digits() -> str:
    """Four different digits: `1111` or `1212` is filler, a placeholder by design."""
    pool = list("0123456789")
    random.SystemRandom().shuffle(pool)
    return "".join(pool[:4]) if pool[0] != "0" else "".join(pool[1:5])


def words() -> str:
    return f"blue moon {uuid.uuid4().hex[:5]} quiet harbour"


def password() -> str:
    return f"Harb{uuid.uuid4().hex[:6]}"


# (label, entry with {s} where the secret goes, secret maker)
CASES = [
    ("short digits", {"command": "srv", "env": {"DB_PASSWORD": "{s}"}}, digits),
    ("passphrase of words", {"command": "srv", "env": {"GPG_PASSPHRASE": "{s}"}}, words),
    ("mysql -pVALUE", {"command": "mysql", "args": ["-uapp", "-p{s}", "app"]}, password),
    ("mysql -p VALUE", {"command": "docker", "args": ["exec", "-i", "db", "mysql", "-p", "{s}"]},
     password),
    ("mysql --password=VALUE", {"command": "mysql", "args": ["-uapp", "--password={s}", "app"]},
     password),
    ("curl -u user:pass", {"command": "curl", "args": ["-u", "admin:{s}", "http://localhost:9/"]},
     password),
    ("curl --user=user:pass", {"command": "sh", "args": [
        "-c", "curl --user=admin:{s} http://localhost:9/ | srv"]}, password),
    ("Go DSN", {"command": "srv", "args": ["--dsn", "app:{s}@tcp(db:3306)/app"]}, password),
]


def filled(entry: dict[str, object], secret: str) -> dict[str, object]:
    result: dict[str, object] = json.loads(json.dumps(entry).replace("{s}", secret))
    return result


@pytest.mark.usefixtures("secret_service")
@pytest.mark.parametrize(("label", "entry", "make"), CASES, ids=[c[0] for c in CASES])
def test_add_keeps_none_in_clear(label: str, entry: dict[str, object], make: Callable[[], str],
                                 tmp_path: Path, user_config: Path) -> None:
    secret = make()
    written = json.dumps(filled(entry, secret))
    assert secret in written  # the attack: the value as the user typed it
    name = f"f{uuid.uuid4().hex[:6]}"
    added = mcpctl("add", name, "--json", written)
    assert added.code == 0, added.err
    config = user_config.read_text()
    assert secret not in config
    references = re.findall(r"\$\{secret:([^}]+)\}", config)
    assert references, label
    revealed = [mcpctl("secret", "get", ref, "--reveal").out.removesuffix("\n")
                for ref in references]
    assert secret in revealed
    assert leaks(secret, tmp_path, [added.out, added.err]) == []


@pytest.mark.parametrize(("label", "entry", "make"), CASES, ids=[c[0] for c in CASES])
def test_check_flags_each(label: str, entry: dict[str, object], make: Callable[[], str],
                          tmp_path: Path) -> None:
    secret = make()
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"s": filled(entry, secret)}},
                                                   indent=2))
    result = mcpctl("check", ".mcp.json", "--output", "json", cwd=tmp_path)
    assert result.code == 1, (label, result.out)
    codes = [finding["code"] for finding in json.loads(result.out)["findings"]]
    assert "MCP010" in codes
    assert secret not in result.out + result.err


@pytest.mark.usefixtures("secret_service")
@pytest.mark.parametrize(("label", "entry", "make"), CASES, ids=[c[0] for c in CASES])
def test_the_backup_export_keeps_holds_none(
    label: str, entry: dict[str, object], make: Callable[[], str], tmp_path: Path,
    isolated_home: Path, mcpctl_home: Path,
) -> None:
    secret = make()
    client_file = isolated_home / ".cursor" / "mcp.json"
    client_file.parent.mkdir(parents=True)
    client_file.write_text(json.dumps({"mcpServers": {"s": filled(entry, secret)}}, indent=2))
    results = [mcpctl("import", "--from", "cursor"),
               mcpctl("export", "--to", "cursor", "--replace")]
    assert [r.code for r in results] == [0, 0], results[-1].err
    [backup] = sorted((mcpctl_home / "data" / "backups" / "cursor").iterdir())
    assert secret not in backup.read_text(), label
    assert "${secret:" in backup.read_text()
    client_file.unlink()  # the client's own file held it before mcpctl touched anything
    assert leaks(secret, tmp_path, [r.out + r.err for r in results]) == []


@pytest.mark.usefixtures("secret_service")
def test_add_keeps_even_a_filler_pin_out_of_the_config(user_config: Path) -> None:
    """`1111` reads as filler, which `check` reports as a blank to fill in; typed into
    `add` under a password's name it is that password, so it goes to the keyring."""
    added = mcpctl("add", f"p{uuid.uuid4().hex[:6]}", "--env", "DB_PIN=1111", "--", "srv")
    assert added.code == 0, added.err
    config = user_config.read_text()
    assert "1111" not in config
    assert "${secret:" in config


@pytest.mark.parametrize(("name", "password"), [
    ("DB_PIN", True), ("PGPASSWORD", True), ("clientSecret", True), ("--passphrase", True),
    # A password word in a name that is no credential's: the shell's working folder, a
    # path to the password, its length. Judged by the word alone (the credential check
    # before it dropped), each was a password's name, and any digits under it the secret.
    ("PWD", False), ("DB_PASSWORD_FILE", False), ("PIN_LENGTH", False),
    ("DB_PIN_URL", False),
])
def test_a_password_word_makes_a_password_name_only_in_a_credentials_name(
        name: str, password: bool) -> None:
    assert is_password_name(name) is password


@pytest.mark.parametrize("args", [["-pHarb4471q"], ["-p", "Harb4471q"], ["--password", "Harb4471q"],
                                  ["--password=Harb4471q"]],
                         ids=["joined", "next", "long-next", "long-equals"])
def test_each_mysql_password_form_is_read_from_the_arguments(args: list[str]) -> None:
    """Each form on its own, at the function both `add` and `check` use: through the
    CLI a second reading (the value after `--password=`, judged by its option's name)
    also finds the last one, so a form dropped here survives there."""
    assert [value for _, value in argv_credentials(["mysql", "-uapp", *args, "app"])] == [
        "Harb4471q"]


@pytest.mark.parametrize(("argv", "found"), [
    (["mysql", "--password2=Harb4471q", "app"], ["Harb4471q"]),
    (["curl", "-uadmin:Harb4471q", "https://example.test"], ["Harb4471q"]),
    (["curl", "-p", "https://example.test"], []),
    (["mysql", "--host=db.internal", "app"], []),
    (["mysql", "--user=report:ro", "app"], []),
    (["curl", "--header=Accept:json", "https://example.test"], []),
    (["curl", "--user-agent=probe:2", "https://example.test"], []),
], ids=["mysql-second-factor", "curl-joined-user", "curl-proxytunnel-flag",
        "mysql-other-option", "mysql-user-with-colon", "curl-header", "curl-user-agent"])
def test_a_password_is_read_only_from_its_own_programs_options(argv: list[str],
                                                               found: list[str]) -> None:
    """Each program's password options, and none of its others. Each case failed with
    one of these planted by hand: MySQL's `--password2=` not read (before this test, it
    was not); `-uUSER:PASS` of curl not read; `-p` read as MySQL's for curl (then the URL
    after it is the password) or `--host=` read as `--password=`; curl's `user:password`
    read from MySQL's `--user=`; `-u` or `--user=` matched by a shorter prefix
    (`--header=`, `--user-agent=`)."""
    assert [value for _, value in argv_credentials(argv)] == found


def test_a_command_line_is_read_up_to_its_word_bound() -> None:
    """Words past `_MAX_WORDS` (4,096, as the comment beside it says) are not read, so a
    line of any length costs at most that. Planted by hand, the bound multiplied by 16:
    the password in the 4,097th word was read, and this failed."""
    filler = ["db"] * 4094
    assert argv_credentials(["mysql", *filler, "-pHarb4471q"]) == [(4095, "Harb4471q")]
    assert argv_credentials(["mysql", *filler, "db", "-pHarb4471q"]) == []


@pytest.mark.usefixtures("secret_service")
def test_add_moves_a_token_out_of_a_list_under_a_field_it_does_not_know(
        user_config: Path) -> None:
    """A field mcpctl does not know is walked whole, its lists too: without the list
    branch of `extraction._tree_without_secrets` the token was written in clear."""
    token = "ghp_" + uuid.uuid4().hex + uuid.uuid4().hex[:4]
    added = mcpctl("add", f"f{uuid.uuid4().hex[:6]}", "--json",
                   json.dumps({"command": "srv", "extraThing": ["plain", token]}))
    assert added.code == 0, added.err
    config = user_config.read_text()
    assert token not in config
    assert "${secret:" in config


@pytest.mark.parametrize(("levels", "why"), [
    (70, "server 'deep': the entry nests tables and arrays more than 64 levels deep; "
         "mcpctl writes at most 64"),
    (1200, "--entry: nested too deeply"),
], ids=["past-the-writers-bound", "past-the-decoders-recursion"])
def test_add_refuses_an_entry_nested_too_deeply(levels: int, why: str,
                                                user_config: Path) -> None:
    """A clear refusal, exit 2, nothing written: from about 500 levels `add` ended with
    an internal error (exit 70) in the TOML writer, and from about 990 in the JSON
    decoder."""
    before = user_config.read_text() if user_config.exists() else None
    deep = "[" * levels + "1" + "]" * levels
    added = mcpctl("add", "deep", "--json", f'{{"command": "srv", "extraThing": {deep}}}')
    assert (added.code, added.out, added.err) == (2, "", f"mcpctl: error: {why}\n")
    assert (user_config.read_text() if user_config.exists() else None) == before
