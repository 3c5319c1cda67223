"""The one secret detector: does a string written in a config look like a credential?

Shared by `mcpctl check` (literal secrets in a repo's config, DESIGN §7) and the secrets
feature (`add --env KEY=VALUE` moves a secret-like value to the keyring, DESIGN §5).
Pure and cheap: regular expressions and a little arithmetic, no I/O.

A match is *certain* when the text has the shape of a known credential or sits under a
name that says it is one (`API_KEY`, `Authorization`, `--token`); it is a *guess* when
only its randomness gives it away (a long mixed-case string with digits).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

# `${secret:NAME}`, `${env:NAME}`, `${VAR}`...: a reference is the fix, never a finding.
_REFERENCE = re.compile(r"\$\{[^}]*\}")
# Pieces of a value that can each be a credential: `--key=sk-...`, `Bearer ghp_...`,
# `https://host/path?token=...` all split into their parts.
_SEPARATORS = re.compile(r"[\s\"'`,;=&?#@:/\\<>()\[\]{}|]+")

_KNOWN: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("GitHub token", re.compile(r"gh[pousr]_[A-Za-z0-9]{20,}")),
    ("GitHub token", re.compile(r"github_pat_[A-Za-z0-9_]{22,}")),
    ("Anthropic API key", re.compile(r"sk-ant-[A-Za-z0-9_-]{20,}")),
    ("API key (sk-)", re.compile(r"sk-[A-Za-z0-9_-]{20,}")),
    ("Slack token", re.compile(r"xox[abpr]-[A-Za-z0-9-]{10,}")),
    ("AWS access key", re.compile(r"(?:AKIA|ASIA)[A-Z0-9]{16}")),
    ("GitLab token", re.compile(r"glpat-[A-Za-z0-9_-]{20,}")),
    ("Google API key", re.compile(r"AIza[A-Za-z0-9_-]{35}")),
    ("Neon API key", re.compile(r"napi_[a-z0-9]{40,}")),
    ("Perplexity API key", re.compile(r"pplx-[A-Za-z0-9]{32,}")),
    ("Notion token", re.compile(r"(?:ntn|secret)_[A-Za-z0-9]{40,}")),
    ("JSON web token", re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*")),
)
# One pass over most tokens instead of one per pattern (a 1 MB config has ~100k strings).
_ANY_KNOWN = re.compile("|".join(f"(?:{pattern.pattern})" for _, pattern in _KNOWN))
_SHORTEST_KNOWN = 15  # `xoxb-` and ten more characters

# Names under which any literal value is a credential: env keys, header names, query
# parameters and `--option` names. `PWD` is absent on purpose: it is the working dir.
_SECRET_NAME = re.compile(
    r"(?:^|[_.-])(?:token|secret|password|passwd|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|key|pat|auth|authorization|credentials?|cookie|session)$",
    re.IGNORECASE,
)
# camelCase names are read as words: `githubToken` as `github_Token`, `APIKey` as `API_Key`.
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
# Authorization schemes are words, not secrets: `Bearer abc` is judged by `abc`.
_AUTH_SCHEME = re.compile(r"^(?:bearer|basic|token|bot|digest|negotiate)(?:\s+|$)",
                          re.IGNORECASE)
# A whole header in one string, as `mcp-remote --header "Authorization: Bearer ..."` and
# `curl -H "X-Api-Key: ..."` take it: the header's name names its value.
_HEADER = re.compile(r"\s*([A-Za-z][A-Za-z0-9-]*)\s*:\s*(\S.*)", re.DOTALL)
_ORDINARY_WORD = frozenset({"true", "false", "yes", "no", "on", "off", "none", "null"})

_GUESS_CHARS = re.compile(r"[A-Za-z0-9+_=-]{32,}")
_LOWER_RUN = re.compile(r"[a-z]{7,}")  # an English-looking word inside: an identifier
# Many API keys are lowercase hex: a value that is nothing else is a guess. So are hashes:
# hex inside other text (a log line's cache key, a URL's path) is left alone, and so are
# the lengths of git commits (40) and SHA-256/512 digests (64, 128), which configs pin by.
_LOWER_HEX = re.compile(r"[0-9a-f]{32,}")
_DIGEST_LENGTHS = frozenset({40, 64, 128})


@dataclass(frozen=True)
class SecretMatch:
    kind: str
    text: str  # the part of the value that is the credential (mask it before showing)
    certain: bool


def find_secret(value: str, *, name: str | None = None) -> SecretMatch | None:
    """The credential in `value`, if any; `name` is the key or option it is written under."""
    literal = without_references(value)
    tokens = [token for token in _SEPARATORS.split(literal) if token]
    for token in tokens:
        if len(token) >= _SHORTEST_KNOWN and _ANY_KNOWN.fullmatch(token) and _varied(token):
            kind = next(kind for kind, pattern in _KNOWN if pattern.fullmatch(token))
            return SecretMatch(kind, token, certain=True)
    if name is not None and is_secret_name(name):
        credential = _AUTH_SCHEME.sub("", literal.strip())
        if _is_literal_credential(credential):
            return SecretMatch("credential", credential, certain=True)
    header = _header_credential(literal)
    if header is not None:
        return SecretMatch("credential", header, certain=True)
    for token in tokens:
        if _looks_random(token):
            return SecretMatch("high-entropy string", token, certain=False)
    whole = literal.strip()
    if _LOWER_HEX.fullmatch(whole) and _random_hex(whole):
        return SecretMatch("high-entropy string", whole, certain=False)
    return None


def is_secret_name(name: str) -> bool:
    """Does `name` (an env key, header, query parameter or option) say its value is a
    credential? `API_KEY`, `X-Api-Key`, `--token`, `githubToken`, `clientSecret`."""
    return _SECRET_NAME.search(_CAMEL_BOUNDARY.sub("_", name)) is not None


def _header_credential(literal: str) -> str | None:
    """The credential of a `Header-Name: value` string whose name is secret-like
    (`X-Api-Key: ...`) or whose value carries an auth scheme (`...: Bearer abc`)."""
    header = _HEADER.fullmatch(literal)
    if header is None:
        return None
    header_name, value = header.group(1), header.group(2).strip()
    credential = _AUTH_SCHEME.sub("", value)
    if is_secret_name(header_name):
        return credential if _is_literal_credential(credential) else None
    if credential != value and _is_literal_credential(credential) and not credential.isalpha():
        return credential
    return None


def without_references(value: str) -> str:
    """`value` with every `${...}` reference blanked out."""
    return _REFERENCE.sub(" ", value)


def looks_secret(value: str, *, name: str | None = None) -> bool:
    return find_secret(value, name=name) is not None


def mask(value: str) -> str:
    """At most the first 4 characters, fewer for short values, then `***`."""
    return value[: min(4, len(value) // 4)] + "***"


def _varied(token: str) -> bool:
    # Placeholders such as `ghp_xxxxxxxxxxxxxxxxxxxxxxxx` are not credentials.
    return len(set(token)) >= 10 and any(ch.isdigit() for ch in token)


def _is_literal_credential(text: str) -> bool:
    if len(text) < 8 or any(ch.isspace() for ch in text) or text.lower() in _ORDINARY_WORD:
        return False
    if text.startswith(("/", "./", "../", "~", "<")) or "://" in text or "\\" in text:
        return False  # a path, a URL or a `<placeholder>`, not the secret itself
    return not re.fullmatch(r"\d{1,7}", text)


def _looks_random(token: str) -> bool:
    if not _GUESS_CHARS.fullmatch(token) or _LOWER_RUN.search(token):
        return False
    digits = sum(ch.isdigit() for ch in token)
    if digits < 2 or not any(ch.isupper() for ch in token):
        return False
    counts = Counter(token)
    entropy = -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())
    return entropy >= 4.0


def _random_hex(token: str) -> bool:
    if len(token) in _DIGEST_LENGTHS or len(set(token)) < 10:
        return False
    digits = sum(ch.isdigit() for ch in token)
    return 4 <= digits <= len(token) - 4  # both digits and letters, as random hex has
