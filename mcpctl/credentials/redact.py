"""A server's own words made fit to show: its secrets masked (DESIGN §1.3, pure).

A server may echo what it was given: a token in a stderr line, an API key in a line
of stdout pollution, a header in an HTTP error body. Before `cost` or `doctor` shows
or keeps any such text, `redact` masks every value mcpctl substituted into that
server's definition from a `${secret:…}` or `${env:…}` reference, then anything the
one secret detector (`secretlike.find_secret`) flags. `substitutions` learns the
substituted values by matching the definition as written against the resolved one,
so the keyring is never asked twice.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

from mcpctl.credentials.secretlike import find_secrets, mask
from mcpctl.variables import Kind, parse_reference

# The reference syntax of variables.py, with the body captured for re.split.
_REFERENCE = r"\$\{([^{}]*)\}"
_SURROGATE = "[\ud800-\udfff]"
_HIDDEN_KINDS = frozenset({Kind.SECRET, Kind.ENV})
# An environment value this short is a flag, a port or a count, not a credential; masking
# it would blot out every "1" or "on" in a server's stderr.
MIN_ENV_CHARS = 4
# Matching a template with many references could backtrack for long; beyond this the
# whole resolved text is hidden instead.
_MAX_REFERENCES = 16
_MAX_FINDS = 64
# Below this a masked value would show too much of itself (and a detector hit this short
# is more likely an ordinary word): hidden whole, or left to the known values.
SHORT_SECRET_CHARS = 8
_MAX_DEPTH = 64
# Text this far past a cut (or as far as the longest known secret, if that is longer: a
# service account's JSON key, a 4096-bit PEM key) is masked together with what is kept.
SECRET_MARGIN = 2048


def redact(text: str, secrets: Collection[str]) -> str:
    """`text` with each of `secrets` (any length: a 4-character keyring value is still
    a secret), then each `find_secret` hit, masked; a lone surrogate (not UTF-8, so
    unprintable) becomes U+FFFD. A hit that cannot be masked where it stands (escaped
    inside JSON, say), or one past the first `_MAX_FINDS`, hides the whole text."""
    shown = re.sub(_SURROGATE, "\ufffd", hide_known(text, secrets))
    for _ in range(_MAX_FINDS + 1):
        found = next((m for m in find_secrets(shown) if _worth_masking(m.text)), None)
        if found is None:
            return shown
        if found.text not in shown:
            return mask(shown)
        shown = shown.replace(found.text, mask(found.text))
    return mask(shown)  # a text this full of credentials is shown by its first characters


def hide_known(text: str, secrets: Collection[str]) -> str:
    """`text` with each of `secrets` masked, longest first; a short one is hidden whole
    (`mask` would keep a quarter of it)."""
    for value in sorted({s for s in secrets if s}, key=len, reverse=True):
        shown = mask(value) if len(value) >= SHORT_SECRET_CHARS else "***"
        text = text.replace(value, shown)
    return text


def redact_known_tree(value: Any, secrets: Collection[str], depth: int = 0) -> Any:
    """A JSON value (a tool definition) with each of `secrets` masked in every string
    and key; nested past `_MAX_DEPTH`, a value that holds a secret is hidden whole."""
    if not secrets:
        return value
    if isinstance(value, str):
        return hide_known(value, secrets)
    if depth > _MAX_DEPTH and isinstance(value, dict | list):
        flat = json.dumps(value, ensure_ascii=False)
        return "***" if hide_known(flat, secrets) != flat else value
    if isinstance(value, dict):
        return {hide_known(str(k), secrets): redact_known_tree(v, secrets, depth + 1)
                for k, v in value.items()}
    if isinstance(value, list):
        return [redact_known_tree(item, secrets, depth + 1) for item in value]
    return value


def _worth_masking(found: str) -> bool:
    """A detector hit in a server's own words: a short named value (`key=id` in a log
    line) would blot out ordinary words everywhere; the server's real secrets are
    masked above whatever their length."""
    return len(found) >= SHORT_SECRET_CHARS


def redact_prefix(text: str, secrets: Collection[str], limit: int) -> str:
    """At most `limit` characters of `text`, ending in "…" when cut, masked before the
    cut: a secret cut in two would leak its first part. Text past the margin is never
    scanned, so a server's 8 MiB line costs no more than a short one."""
    margin = max([SECRET_MARGIN, *map(len, secrets)])
    shown = redact(text[: limit + margin], secrets)
    return shown if len(shown) <= limit else shown[:limit] + "…"


def substitutions(written: str, resolved: str) -> list[str]:
    """The values `${secret:…}` and `${env:…}` references of `written` took in `resolved`.

    Adjacent references (`${env:A}${env:B}`) cannot be told apart, so their joint value
    is one secret; a resolved text that does not fit the template is hidden whole.
    """
    pieces = re.split(_REFERENCE, written)
    literals, bodies = pieces[0::2], pieces[1::2]
    kinds = [parse_reference(body).kind for body in bodies]
    if not _HIDDEN_KINDS.intersection(kinds):
        return []
    if len(bodies) > _MAX_REFERENCES:
        return [resolved]
    pattern = "(.*?)".join(re.escape(literal) for literal in literals)
    match = re.fullmatch(pattern, resolved, re.DOTALL)
    if match is None:
        return [resolved]
    values: list[str] = []
    run_kinds: set[Kind] = set()
    run_value = ""
    for index, kind in enumerate(kinds):
        run_kinds.add(kind)
        run_value += match.group(index + 1)
        if index + 1 < len(kinds) and literals[index + 1] == "":
            continue  # the next reference follows directly: one run
        if _hidden(run_kinds, run_value):
            values.append(run_value)
        run_kinds, run_value = set(), ""
    return values


def _hidden(kinds: set[Kind], value: str) -> bool:
    if Kind.SECRET in kinds:
        return bool(value)
    return Kind.ENV in kinds and len(value) >= MIN_ENV_CHARS
