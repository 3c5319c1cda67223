"""Secrets that would be expanded into a server's argv (issue 14, pure).

Any local user can read every process's arguments (`ps`, `/proc/PID/cmdline`); a
process's environment is readable only by its owner and root. So a `${secret:…}` in
`command` or `args` is worth a warning from `add`, `doctor` and `check`, with env as
the fix (most servers read their token from an env var).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mcpctl.variables import Kind, references


def secrets_in_argv(entry: Mapping[str, Any]) -> list[str]:
    """The secret names referenced in an entry's `command` and `args`, in order."""
    texts: list[Any] = [entry.get("command"), *_list(entry.get("args"))]
    names: list[str] = []
    for text in texts:
        if isinstance(text, str):
            names += [r.name for r in references(text) if r.kind is Kind.SECRET]
    return list(dict.fromkeys(names))


def secrets_in_spec(command: str | None, args: Sequence[str]) -> list[str]:
    return secrets_in_argv({"command": command, "args": list(args)})


def argv_exposure(server: object, secret: str) -> str:
    """Why a secret in argv is a risk, and the fix (one sentence, no value in it)."""
    return (f"server {str(server)!r} passes ${{secret:{secret}}} in its arguments, which "
            "every local user can read in the process list; pass it in env instead if the "
            "server can read it from there")


def argv_warning(server: str, secret: str) -> str:
    return (f"warning: {argv_exposure(server, secret)} (--env KEY=${{secret:{secret}}})")


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def option_before(args: list[Any], index: int) -> str | None:
    """The option that names `args[index]` (`--token VALUE`), if any. `--key=v -v`: the
    `-v` is an option of its own, and `--key=v` already holds its value."""
    before = args[index - 1] if index else None
    arg = args[index]
    if not isinstance(before, str) or not before.startswith("-") or "=" in before:
        return None
    return None if isinstance(arg, str) and arg.startswith("-") else before


def named_value(arg: str) -> tuple[str, str] | None:
    """`--option=value` or `NAME=value` as (name, value): the value is then judged whole,
    by its name (a passphrase's later words are the secret too). A name is an option's,
    or `DB_PASSWORD` as `env` takes it, or a dotted or dashed setting (`db.password=…`,
    `db-password=…`) as Hydra, a properties line or a server's own parser takes it.
    Anything else (a URL with a query, a shell line) is None: it is judged as text."""
    name, equals, value = arg.partition("=")
    if equals and (name.startswith("-") or _setting_name(name)):
        return name, value
    return None


def _setting_name(name: str) -> bool:
    """ASCII letters, digits, `_`, `.` and `-`, not starting with a digit, `.` or `-`
    (no pattern compiled: this module is on `list`'s path)."""
    return name.isascii() and name[:1] not in (".", "-") \
        and name.replace(".", "_").replace("-", "_").isidentifier()


# Programs whose options carry a password in a way no option name says (issue 23):
# `mysql -pSECRET` / `-p SECRET`, `curl -u user:SECRET` / `--user user:SECRET`.
_MYSQL_PROGRAMS = frozenset({"mysql", "mysqldump", "mysqladmin", "mysqlsh", "mariadb",
                             "mariadb-dump", "mysqlimport", "mysqlcheck"})
# MySQL 8.0.27 added a password per authentication factor beside `--password`.
_MYSQL_PASSWORD_OPTIONS = frozenset({"--password", "--password1", "--password2", "--password3"})
_USER_PASSWORD_PROGRAMS = frozenset({"curl", "wget"})
_MAX_WORDS = 4096  # a command line's words; a longer one is judged by its start


def argv_credentials(argv: Sequence[Any]) -> list[tuple[int, str]]:
    """(index into `argv`, credential) for each password that a program's own options
    carry: `mysql -pSECRET`, `mysql -p SECRET`, `curl -u user:SECRET`. `argv` is the
    command then its arguments; an argument holding a shell line (`sh -c "mysql -p…"`)
    is read word by word too."""
    words = [(index, word) for index, arg in enumerate(argv) if isinstance(arg, str)
             for word in (arg.split() if any(ch.isspace() for ch in arg) else [arg])]
    found: list[tuple[int, str]] = []
    program = ""
    for position, (index, word) in enumerate(words[:_MAX_WORDS]):
        name = word.replace("\\", "/").rsplit("/", 1)[-1].lower().removesuffix(".exe")
        if name in _MYSQL_PROGRAMS or name in _USER_PASSWORD_PROGRAMS:
            program = name
            continue
        following = words[position + 1] if position + 1 < len(words) else (index, "")
        value, in_next = _carried(program, word, following[1])
        if value and not value.startswith(("$", "-")):
            found.append((following[0] if in_next else index, value))
    return found


def _carried(program: str, word: str, following: str) -> tuple[str, bool]:
    """The password `word` carries (or the word after it, then True), else ""."""
    if program in _MYSQL_PROGRAMS:
        if word.startswith("-p") and len(word) > 2 and not word.startswith("-p="):
            return word[2:], False
        if word in {"-p", "--password"}:
            return following, True
        option, equals, value = word.partition("=")
        if equals and option in _MYSQL_PASSWORD_OPTIONS:
            return value, False
    if program in _USER_PASSWORD_PROGRAMS:
        if word.startswith("-u") and ":" in word[2:]:
            return word[2:].partition(":")[2], False
        if word.startswith("--user=") and ":" in word:
            return word.partition("=")[2].partition(":")[2], False
        if word in {"-u", "--user", "--proxy-user"} and ":" in following:
            return following.partition(":")[2], True
    return "", False
