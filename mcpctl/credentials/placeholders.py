"""Is a value where a credential goes only a placeholder for one? (pure, linear)

Committed configs are full of them: `YOUR_API_KEY`, `your_token_here`, `<token>`,
`sk-xxxxxxxx`, `ghp_000...0`, `changeme`, `[REDACTED_API_KEY]`, `$JIRA_API_TOKEN`.
None of them is a leaked credential, so `check` must not tell anyone to revoke it
(issue 13: 18 of 50 literal-secret findings on real repos were placeholders).
"""

from __future__ import annotations

import re

# The whole value is a reference to somewhere else: `${NAME}`, `${env:NAME}`, `$NAME`,
# `%NAME%` (cmd), `{{NAME}}` (templates).
_REFERENCE = re.compile(r"\$\{[^{}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%"
                        r"|\{\{[^{}]*\}\}")
# Wrapped in brackets as documentation writes a blank: `<token>`, `[REDACTED]`, `(key)`.
_BRACKETED = re.compile(r"<[^<>]*>|\[[^\[\]]*\]|\([^()]*\)")
_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z])(?=[A-Z])")
# Words that say "put yours here" wherever they stand in the value.
_TELLING_WORDS = frozenset({
    "your", "yours", "here", "placeholder", "redacted", "changeme", "replace", "insert",
    "paste", "example", "dummy", "fake", "todo", "tbd", "fixme", "sample", "xxx",
    "password", "passwd",  # `vault-dev-password`: a default to change, not a secret
})
# Telling words also inside one run of capitals (`AKIAIOSFODNN7EXAMPLE`, AWS's own).
_TELLING_INSIDE = ("example", "placeholder", "redacted", "changeme", "your")
# Values that are only a word about the value.
_WHOLE_WORDS = frozenset({
    "optional", "required", "none", "null", "empty", "na", "n/a", "secret", "token",
    "password", "passwd", "pass", "apikey", "api_key", "api-key", "key", "test", "demo",
    "changeit", "change_me", "change-me", "admin", "root", "postgres", "default",
    "123456", "12345678",
})
# A run of one filler character (`xxxx`, `0000`, `****`, `....`) or an ellipsis.
_FILLER = re.compile(r"([xX0*.#_-])\1{3,}|\.\.\.|\u2026")


def is_placeholder(text: str) -> bool:
    """True when `text` stands for a credential rather than being one."""
    value = text.strip().strip("\"'")
    if not value or value.lower() in _WHOLE_WORDS:
        return True
    if _REFERENCE.fullmatch(value) or _BRACKETED.fullmatch(value):
        return True
    if _FILLER.search(value) or _one_character_body(value):
        return True
    lowered = value.lower()
    if any(word in lowered for word in _TELLING_INSIDE):
        return True
    words = {word.lower() for word in _WORD_SPLIT.split(value) if word}
    return bool(words & _TELLING_WORDS) or any(_repeated_x(word) for word in words)


def _one_character_body(value: str) -> bool:
    """`ghp_000000000000`, `sk-aaaaaaaaaaaa`: a known prefix, then one character."""
    body = re.split(r"[_-]", value)[-1]
    return len(body) >= 6 and len(set(body.lower())) == 1


def _repeated_x(word: str) -> bool:
    return len(word) >= 3 and set(word) == {"x"}
