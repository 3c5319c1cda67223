"""Is a value a stand-in for a credential rather than the credential itself? (pure)

Committed and example configs are full of them: `YOUR_API_KEY`, `your-token-here`,
`<token>`, `sk-xxxxxxxx`, `ghp_000…0`, `changeme`, `$GITHUB_TOKEN`, `[REDACTED]`. The
detector never flags one as a leak (issue 13: 18 of 50 literal-secret findings on real
repos were placeholders, and `check` told people to revoke them) nor stores one in the
keyring as if it were a secret (`add` would hide the hint still to be filled in).
Every test is a regular expression without nested repetition or a set lookup: linear.
"""

from __future__ import annotations

import re

# Patterns kept as text are compiled (and cached by `re`) on first use: `check` of a
# clean config never needs them, and compiling is most of a pattern's cost at start-up.
# References of every syntax a config or a shell uses: mcpctl's and VS Code's `${…}`,
# a shell's `$NAME`, Windows' `%NAME%`, templates' `{{ name }}`.
# `[^{}]`, not `[^}]`: a run of `${${${…` must not be rescanned from every start.
_REFERENCE = (r"\$\{[^{}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%"
              r"|\{\{[^{}]*\}\}")
# `<token>`, `[REDACTED_API_KEY]`, `(your key)`: the whole value is a bracketed hint.
_BRACKETED = r"<[^<>]*>|\[[^\[\]]*\]|\([^()]*\)|\{[^{}]*\}"
# Filler a person types. Runs of `x` need four: a random 40-character token holds `xxx`
# about once in a hundred, `xxxx` about once in three thousand.
_FILLER = r"[xX]{4,}|[*#.]{3,}|…"
# A known prefix (`ghp_`, `sk-`, `AKIA`) followed by filler: `ghp_000000`, `sk-xxxxxxxx`.
_PREFIX = r"^(?:[A-Za-z0-9]{1,12}[_-]|AKIA|ASIA|AIza)"
_CAMEL = r"(?<=[a-z])(?=[A-Z])"
_WORDS = r"[^A-Za-z0-9]+"
# A word that says "fill me in" wherever it stands among the value's words.
_HINTS = frozenset({
    "changeme", "replaceme", "placeholder", "redacted", "example", "dummy", "todo",
    "tbd", "fixme", "sample", "notreal", "fake", "xxx", "here", "replace", "your",
})
# Telling words inside one run of capitals too (`AKIAIOSFODNN7EXAMPLE`, AWS's own).
_HINTS_INSIDE = ("EXAMPLE", "PLACEHOLDER", "REDACTED", "CHANGEME")
# A word that does so at the start: `your_api_key`, `my-secret`, `enter-token`,
# `SET_ME`, `SET_YOUR_KEY`. (`your` and `replace` say it anywhere: `xyz_your_token`.)
_LEADING = frozenset({"yours", "my", "enter", "insert", "put", "add", "paste", "set"})
# A known prefix whose body is one of these run together (`ghp_yourtokenhere`,
# `sk-replaceme`): a random body holds such a run about once in millions.
_BODY_HINTS = ("your", "replace", "changeme", "placeholder", "example", "here", "dummy")
# A value that is only generic words: `token`, `secret`, `optional`, `api-key`, `change me`.
_GENERIC = frozenset({
    "secret", "token", "password", "passwd", "pass", "pwd", "api", "key", "apikey",
    "access", "auth", "value", "none", "null", "undefined", "optional", "required",
    "change", "replace", "me", "personal", "bearer", "empty", "na",
})
# The well-known defaults of examples (`postgres`, `admin`, `123456`): in a committed
# file a blank to change, not a leak; typed into `add`, a real (weak) password to keep
# out of config.toml. So only `check` asks for them (`dev_defaults`).
_DEFAULTS = frozenset({"123456", "12345678", "n/a", "test", "demo", "changeit", "admin",
                       "root", "postgres", "default", "password", "passwd"})


def is_placeholder(text: str, *, dev_defaults: bool = False) -> bool:
    """True when `text` (a whole value, or the credential part of one) is a hint to fill
    in, a reference to a value kept elsewhere, or filler, and so never a real secret;
    with `dev_defaults`, also a well-known example default."""
    value = text.strip().strip("\"'`")
    if not value or (dev_defaults and value.lower() in _DEFAULTS):
        return True
    if re.fullmatch(_REFERENCE, value) or re.fullmatch(_BRACKETED, value):
        return True
    if not re.sub(_REFERENCE, "", value).strip(" -_:/@"):
        return True  # only references and punctuation: `${USER}:${PASS}`
    if re.search(_FILLER, value) or _is_filler(value) \
            or _is_filler(re.sub(_PREFIX, "", value, count=1)):
        return True
    if any(word in value.upper() for word in _HINTS_INSIDE):
        return True
    return _is_hint(value) or _hint_body(value)


def _hint_body(value: str) -> bool:
    """`ghp_yourpersonaltoken`, `sk-REPLACEME`: a token's prefix, then words, not random."""
    body = re.sub(_PREFIX, "", value, count=1)
    return body != value and any(hint in body.lower() for hint in _BODY_HINTS)


def _is_filler(value: str) -> bool:
    """All one or two characters (`0000…`, `xxxx…`, `abab…`): no credential is that plain."""
    return len(value) >= 4 and len(set(value.lower())) <= 2


def _is_hint(value: str) -> bool:
    """`YOUR_API_KEY`, `your-personal-access-token`, `change_me`, `yourApiKeyHere`: words
    where one says "fill me in". A random token is one long run of letters and digits
    (or a few such runs), and none of its runs is one of these words."""
    spaced = value if any(ch.isdigit() for ch in value) else re.sub(_CAMEL, "_", value)
    words = [word.lower() for word in re.split(_WORDS, spaced) if word]
    if not words:
        return True
    if words[0] in _LEADING or any(word in _HINTS for word in words):
        return True
    return all(word in _GENERIC for word in words)
