"""The one secret detector: does a string written in a config hold a credential?

Shared by `mcpctl check` (literal secrets in a repo's config, DESIGN §7), `add` and
`import` (secret values move to the keyring, DESIGN §5), masking and redaction.
Pure and cheap: regular expressions and a little arithmetic, no I/O.

A value is judged by the field it sits in first and by its look second (issue 14):
a literal under a name that says "credential" (`PGPASSWORD`, `X-Api-Key`, `--token`,
`clientSecret`) is one whatever it looks like, and so is a URL's userinfo password.
A match is *certain* then, or when the text has the shape of a known credential
anywhere in the string (also inside JSON held in the string); it is a *guess* when
only its randomness gives it away. A placeholder (`YOUR_KEY`, `<token>`, `ghp_000…`)
is never a match.
"""

import json
import math
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any, NamedTuple

from mcpctl.credentials.known_formats import KNOWN, PREFIXES, SEARCHED, SHORTEST_KNOWN
from mcpctl.credentials.names import is_password_name, is_secret_name
from mcpctl.credentials.placeholders import is_placeholder

__all__ = ["SecretMatch", "find_secret", "find_secrets", "is_secret_name", "keyed_strings",
           "looks_secret", "mask", "without_references"]

# `${secret:NAME}`, `${env:NAME}`, `${VAR}`...: a reference is the fix, never a finding.
_REFERENCE = re.compile(r"\$\{[^{}]*\}")  # `[^{}]`: a run of `${` stays linear
# Pieces of a value that can each be a credential: `--key=sk-...`, `Bearer ghp_...`,
# `https://host/path?token=...` all split into their parts.
_SEPARATORS = re.compile(r"[\s\"'`,;=&?#@:/\\<>()\[\]{}|]+")
# Patterns kept as text are compiled (and cached by `re`) on first use: most configs
# never need them (see placeholders.py).
# `scheme://user:password@host`: the password is a credential whatever it looks like.
_USERINFO = r"[A-Za-z][A-Za-z0-9+.-]{0,30}://[^\s/?#@:]*:([^\s/?#@]+)@"
# `NAME=value` inside a longer string: a URL's query, a connection string
# (`Server=db;Password=…`), an option (`--api-key=…`), a shell line (`DB_PASS=… srv`).
_ASSIGNMENT = re.compile(r"(?:^|[\s;&?,])(-{0,2}[A-Za-z][A-Za-z0-9_.-]{0,80})=([^\s;&,\"']+)")
# Authorization schemes are words, not secrets: `Bearer abc` is judged by `abc`.
_AUTH_SCHEME = re.compile(r"^(?:bearer|basic|token|bot|digest|negotiate)(?:\s+|$)",
                          re.IGNORECASE)
# A whole header in one string, as `mcp-remote --header "Authorization: Bearer ..."` and
# `curl -H "X-Api-Key: ..."` take it: the header's name names its value.
_HEADER = r"(?s)\s*([A-Za-z][A-Za-z0-9-]*)\s*:\s*(\S.*)"
_ORDINARY_WORD = frozenset({"true", "false", "yes", "no", "on", "off", "none", "null",
                            "enabled", "disabled", "required", "optional"})
_SHORT_NUMBER = r"\d{1,7}"
# Values that a key-named field holds when it is no credential (issue 27): a keyboard
# shortcut (`"key": "cmd+shift+l"`), the name of the variable that holds the key (Codex's
# `env_key = "OPENAI_API_KEY"`), a project's slug (`PROJECT_KEY = "web-shop"`). Under a
# password's name they are still the password.
_SHORTCUT = (r"(?i)(?:(?:ctrl|control|cmd|command|alt|option|opt|shift|meta|super|win|mod)"
             r"[+-])+[^\s+]{1,12}")
_VARIABLE_NAME = r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+"
# A project's or space's key (`JIRA_PROJECT_KEY = "WEB"`, `CONFLUENCE_SPACE_KEY =
# "team-docs"`) names the project: only under such names is a slug no credential.
_SLUG = r"[A-Z][A-Z0-9]{1,9}|[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)*"
_SLUG_NAME = r"(?i)project|space|board|workspace|repo"
# A Go driver's DSN, `user:password@tcp(host:3306)/db`: no scheme, so no URL userinfo.
_GO_DSN = r"(?<![\w/:.-])[\w.-]{1,64}:([^\s:@/]{1,256})@(?:tcp|unix|udp)(?:6)?\("

_GUESS_LENGTH = 32
_GUESS_CHARS = r"[A-Za-z0-9+_=-]{32,}"
_LOWER_RUN = r"[a-z]{7,}"  # an English-looking word inside: an identifier
# Many API keys are lowercase hex: a value that is nothing else is a guess. So are hashes:
# hex inside other text (a log line's cache key, a URL's path) is left alone, and so are
# the lengths of git commits (40) and SHA-256/512 digests (64, 128), which configs pin by.
_LOWER_HEX = re.compile(r"[0-9a-f]{32,}")
_DIGEST_LENGTHS = frozenset({40, 64, 128})
# Subresource-integrity digests (`sha512-<base64>`, in lock files and npm specs) look
# random and are public.
_SRI_DIGEST = r"sha(?:256|384|512)-[A-Za-z0-9+/]{40,}={0,2}"
# JSON held in a string (`--config '{"apiKey": …}'`, `OPENAPI_MCP_HEADERS={…}`) is parsed
# and walked, within bounds: a config string is short, a hostile one is not parsed.
_MAX_JSON_CHARS = 256 * 1024
_MAX_JSON_DEPTH = 3
# `find_secrets` yields at most this many (`all_secrets` says when it stopped there).
MAX_MATCHES = 64


class SecretMatch(NamedTuple):
    """A credential found in a value: its kind, its text, and whether it is certain."""

    kind: str
    text: str  # the part of the value that is the credential (mask it before showing)
    certain: bool


def find_secret(value: str, *, name: str | None = None,
                placeholders: bool = False) -> SecretMatch | None:
    """The credential in `value`, if any; `name` is the key or option it is written under.
    With `placeholders`, a placeholder where a credential goes is a match too (`check`
    reports it as one to fill in); otherwise it is never one."""
    return next(find_secrets(value, name=name, placeholders=placeholders), None)


def all_secrets(value: str, *, name: str | None = None) -> tuple[list[SecretMatch], bool]:
    """The credentials in `value` (as `find_secrets` gives them), and whether they are
    all of them: not when the detector stopped at `MAX_MATCHES`, where more may be left.
    A caller that must take every one out then takes the whole value for one secret."""
    matches = list(find_secrets(value, name=name))
    return matches, len(matches) < MAX_MATCHES


def find_secrets(value: str, *, name: str | None = None,
                 placeholders: bool = False) -> Iterator[SecretMatch]:
    """Every credential in `value`, certain ones first, each text once."""
    seen: set[str] = set()
    for match in _matches(value, name, 0):
        if match.text not in seen and (placeholders or not is_placeholder(match.text)
                                       or _pin(match.text, name)):
            seen.add(match.text)
            yield match
            if len(seen) >= MAX_MATCHES:
                return


def _pin(text: str, name: str | None) -> bool:
    """Digits under a password's name (`DB_PIN=1111`): filler to `check`'s eye, the
    password itself to `add`'s."""
    return name is not None and text.isdigit() and is_password_name(name)


def _matches(value: str, name: str | None, depth: int) -> Iterator[SecretMatch]:
    # Each step looks only where its shape can be: most config strings (`npx`, `-y`,
    # `info`) are short words, and a 1 MB config holds ~100k of them.
    literal = without_references(value)
    tokens = [token for token in _SEPARATORS.split(literal) if token] \
        if len(literal) >= SHORTEST_KNOWN else []
    yield from _known(literal, tokens)
    if depth < _MAX_JSON_DEPTH and literal.lstrip()[:1] in ("{", "["):
        yield from _in_json(literal, depth)
    if "://" in literal:
        for match in re.finditer(_USERINFO, literal):
            yield SecretMatch("URL password", match.group(1), certain=True)
    if name is not None and is_secret_name(name):
        credential = _AUTH_SCHEME.sub("", literal.strip())
        if _is_named_credential(credential, name):
            yield SecretMatch("credential", credential, certain=True)
    if "@" in literal and "(" in literal:
        yield from _dsn_passwords(literal)
    if ":" in literal:
        header = _header_credential(literal)
        if header is not None:
            yield SecretMatch("credential", header, certain=True)
    if "=" in literal:
        for assigned in _ASSIGNMENT.finditer(literal):
            key, text = assigned.group(1), assigned.group(2)
            if is_secret_name(key) and _is_named_credential(text, key):
                yield SecretMatch("credential", text, certain=True)
    if len(literal) >= _GUESS_LENGTH:
        yield from _guesses(literal)


def _dsn_passwords(literal: str) -> Iterator[SecretMatch]:
    for dsn in re.finditer(_GO_DSN, literal):
        yield SecretMatch("DSN password", dsn.group(1), certain=True)


def _guesses(literal: str) -> Iterator[SecretMatch]:
    unhashed = re.sub(_SRI_DIGEST, " ", literal) if "sha" in literal else literal
    for token in _SEPARATORS.split(unhashed):
        if len(token) >= _GUESS_LENGTH and _looks_random(token):
            yield SecretMatch("high-entropy string", token, certain=False)
    whole = literal.strip()
    if _LOWER_HEX.fullmatch(whole) and _random_hex(whole):
        yield SecretMatch("high-entropy string", whole, certain=False)


def _known(literal: str, tokens: list[str]) -> Iterator[SecretMatch]:
    """Credentials of a known format: whole tokens, and shapes that span separators."""
    for token in tokens:
        if len(token) >= SHORTEST_KNOWN and token.startswith(PREFIXES) and _varied(token):
            kind = next((kind for kind, prefixes, pattern in KNOWN
                         if token.startswith(prefixes) and re.fullmatch(pattern, token)), None)
            if kind is not None:
                yield SecretMatch(kind, token, certain=True)
    for kind, needle, pattern in SEARCHED:
        if needle in literal:
            for found in re.finditer(pattern, literal):
                yield SecretMatch(kind, found.group(0), certain=True)


def _in_json(literal: str, depth: int) -> Iterator[SecretMatch]:
    text = literal.strip()
    if not text.startswith(("{", "[")) or len(text) > _MAX_JSON_CHARS:
        return
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        return
    for key, item in keyed_strings(document):
        yield from _matches(item, key, depth + 1)


def keyed_strings(document: Any) -> Iterator[tuple[str | None, str]]:
    """Every string in a parsed JSON value with the key it sits under (iterative)."""
    stack: list[tuple[str | None, Any]] = [(None, document)]
    while stack:
        key, item = stack.pop()
        if isinstance(item, str):
            yield key, item
        elif isinstance(item, dict):
            stack.extend((str(k), v) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((key, v) for v in item)


def _header_credential(literal: str) -> str | None:
    """The credential of a `Header-Name: value` string whose name is secret-like
    (`X-Api-Key: ...`) or whose value carries an auth scheme (`...: Bearer abc`)."""
    header = re.fullmatch(_HEADER, literal)
    if header is None:
        return None
    header_name, value = header.group(1), header.group(2).strip()
    credential = _AUTH_SCHEME.sub("", value)
    if is_secret_name(header_name):
        return credential if _is_named_credential(credential, header_name) else None
    if credential != value and _is_named_credential(credential) and len(credential) >= 8 \
            and not credential.isalpha():
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


def _is_named_credential(text: str, name: str | None = None) -> bool:
    """Is `text`, found under a credential's name, the credential itself? Any length:
    `PGPASSWORD=pw` is a password. Under a password's, passphrase's or secret's name
    (issue 23) every literal is, short digits and several words too, unless it is a
    path, a URL or a placeholder (those say where the secret is, or that it is still to
    come). Under a key's or token's name, not a flag, a small number, prose, a keyboard
    shortcut, a variable's name or a slug either."""
    text = text.strip()
    if not text or text.startswith(("/", "./", "../", "~", "<")) or "://" in text \
            or "\\" in text:
        return False  # a path, a URL or a `<placeholder>`, not the secret itself
    password = name is not None and is_password_name(name)
    if password and text.isdigit() and len(text) <= 64:
        return True  # a PIN such as 1111: `check` calls it filler, `add` keeps it out
    if len(text) > 4096 or is_placeholder(text):
        return False
    if password:
        return "\n" not in text
    if text.lower() in _ORDINARY_WORD or re.fullmatch(_SHORT_NUMBER, text):
        return False
    if "\n" in text or len(text.split()) > 4:
        return False  # prose or a document, not one credential
    if re.fullmatch(_SHORTCUT, text) or re.fullmatch(_VARIABLE_NAME, text):
        return False
    return not (name is not None and re.search(_SLUG_NAME, name) and len(text) <= 64
                and re.fullmatch(_SLUG, text))


def _looks_random(token: str) -> bool:
    if not re.fullmatch(_GUESS_CHARS, token) or re.search(_LOWER_RUN, token):
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
