"""Does a field's name say its value is a credential? (pure)

The field a value sits in is a stronger signal than the value's look (issue 14): a
password that reads like a word (`PGPASSWORD=hunter2`) is still a password. Names are
env keys, header names, query parameters, JSON keys and `--option` names, read as
words (`githubToken` as `github Token`, `X-Api-Key` as `X Api Key`).
"""

from __future__ import annotations

import functools
import re

# A word ending in one of these names a credential: `PGPASSWORD`, `APIKEY`, `apiToken`.
_STEMS = ("password", "passwd", "passphrase", "pwd", "secret", "token", "key",
          "credential", "cookie")
# Words that are credentials only as themselves.
_WORDS = frozenset({"pat", "pw", "pass", "auth", "authorization", "session", "sessionid",
                    "jwt", "bearer", "apikey", "pin", "otp", "signature"})
# Words that end like a stem and are not one.
_NOT_SECRET_WORDS = frozenset({"hotkey", "monkey", "turkey", "hockey", "whiskey",
                               "donkey", "jockey", "keykey"})
# A last word that says the value tells *where* or *what kind* the secret is, not the
# secret: `GITHUB_TOKEN_FILE`, `API_KEY_ENV`, `AUTH_TYPE`, `TOKEN_URL`, `MAX_TOKENS_LIMIT`.
_DESCRIBES = frozenset({
    "file", "path", "dir", "directory", "folder", "url", "uri", "endpoint", "host",
    "hostname", "port", "name", "type", "kind", "id", "env", "var", "variable", "source",
    "helper", "command", "cmd", "method", "mode", "format", "header", "location", "store",
    "provider", "length", "size", "limit", "count", "max", "min", "ttl", "timeout",
    "expiry", "expires", "enabled", "disabled", "required", "policy", "scope", "scopes",
    "prefix", "algorithm", "alg", "version", "field", "param", "level", "strategy",
    "user", "username", "email", "sock", "socket", "agent", "program", "backend",
    "keyring", "parallelism", "budget", "usage",
})
# Whole names that look like credentials and are not: the working directory, ssh-agent's
# socket, the askpass programs, keyboard settings.
_NOT_SECRET_NAMES = re.compile(
    r"PWD|OLDPWD|PATH|SSH_AUTH_SOCK|GIT_ASKPASS|SSH_ASKPASS|SUDO_ASKPASS|GPG_AGENT_INFO"
    r"|.*_KEYBOARD|KEYBOARD_.*|XKB_.*", re.IGNORECASE)
# camelCase names are read as words: `githubToken` as `github_Token`, `APIKey` as `API_Key`.
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NOT_WORD = re.compile(r"[^A-Za-z0-9]+")


# Words that make a name a password's, not a key's: under such a name any literal is the
# secret itself (issue 23), short digits and several words included.
_PASSWORD_STEMS = ("password", "passwd", "passphrase", "pwd", "secret")
_PASSWORD_WORDS = frozenset({"pw", "pass", "pin", "otp"})


@functools.lru_cache(maxsize=4096)
def is_password_name(name: str) -> bool:
    """Does `name` say its value is a password, passphrase or secret (`PGPASSWORD`,
    `DB_PASS`, `clientSecret`, `--passphrase`), rather than a key or token?"""
    if not is_secret_name(name):
        return False
    return any(word in _PASSWORD_WORDS or word.removesuffix("s").endswith(_PASSWORD_STEMS)
               for word in _words(name))


def _words(name: str) -> list[str]:
    bare = name.strip().lstrip("-")
    return [word.lower() for word in _NOT_WORD.split(_CAMEL_BOUNDARY.sub("_", bare)) if word]


@functools.lru_cache(maxsize=4096)  # a config repeats its key names thousands of times
def is_secret_name(name: str) -> bool:
    """Does `name` say its value is a credential? `API_KEY`, `PGPASSWORD`, `X-Api-Key`,
    `Proxy-Authorization`, `X-Auth-Token`, `Cookie`, `--token`, `githubToken`."""
    bare = name.strip().lstrip("-")
    if not bare or _NOT_SECRET_NAMES.fullmatch(bare):
        return False
    words = _words(bare)
    if not words or words[-1] in _DESCRIBES:
        return False
    return any(_names_secret(word) for word in words)


def _names_secret(word: str) -> bool:
    if word in _WORDS:
        return True
    singular = word[:-1] if word.endswith("s") and len(word) > 4 else word
    return singular.endswith(_STEMS) and singular not in _NOT_SECRET_WORDS
