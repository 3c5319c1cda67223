"""MCP010-MCP013: credentials written literally anywhere in a file, placeholders, and
secrets a launch would put in argv.

The whole document is walked, not just `env` and `headers`: a token in `args`, in a
URL's userinfo, path or query, in a VS Code input's default, in a field some client
invented, or inside a string that holds JSON (`--config '{"apiKey": ...}'`, an
`OPENAPI_MCP_HEADERS` value) leaks just the same. Messages show at most the first 4
characters of a credential. A placeholder (`YOUR_API_KEY`, `xxx`, `$TOKEN`) is not a
leak: it is reported as a blank to fill in, at info level (issue 13).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from mcpctl.credentials.argv import (
    argv_credentials,
    argv_exposure,
    option_before,
    secrets_in_argv,
)
from mcpctl.credentials.placeholders import is_placeholder
from mcpctl.credentials.secretlike import (
    SecretMatch,
    find_secret,
    is_secret_name,
    mask,
    without_references,
)
from mcpctl.lint.rules import Hit, where
from mcpctl.syntax.jsonc import JsonPath

_ASSIGNED_NAME = re.compile(r"-{0,2}[A-Za-z_][A-Za-z0-9_.-]*")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>`]+")
_BARE_REFERENCE = re.compile(r"\$[A-Za-z_][A-Za-z0-9_]*")
# `CLOUDFLARE_ACCOUNT_ID`, `projectId`: identifiers look random but grant nothing.
_IDENTIFIER_NAME = r"(?i:(?:^|[_.-])(?:id|uuid|guid))$|[a-z0-9]I[dD]$"  # compiled on first use
_EMBEDDED_JSON_LIMIT = 64 * 1024  # a string that holds JSON is a few lines, not a file


def leak_hits(value: Any, *, bare_references: bool = False) -> Iterator[Hit]:
    """`bare_references`: the client expands `$NAME` (Gemini CLI), so a value that is
    only that is a reference, the fix itself."""
    # Iterative on purpose: a hostile file may nest a thousand levels deep.
    stack: list[tuple[JsonPath, Any, str | None]] = [((), value, None)]
    while stack:
        path, item, name = stack.pop()
        if isinstance(item, str):
            if not (bare_references and _BARE_REFERENCE.fullmatch(item)):
                yield from _string_hits(path, item, name)
        elif isinstance(item, dict):
            stack.extend(((*path, key), child, key) for key, child in item.items())
        elif isinstance(item, list):
            # In an argument list, `--token VALUE` names VALUE (the one rule `add` uses).
            stack.extend(((*path, index), child, option_before(item, index))
                         for index, child in enumerate(item))


def argv_secret_hits(path: JsonPath, entry: dict[str, Any]) -> Iterator[Hit]:
    """MCP013: a `${secret:…}` that `mcpctl run` would expand into argv (issue 14)."""
    fields: list[tuple[str | int, Any]] = [("command", entry.get("command"))]
    if isinstance(entry.get("args"), list):
        fields += [(index, arg) for index, arg in enumerate(entry["args"])]
    for key, text in fields:
        if not isinstance(text, str) or "${secret:" not in text:
            continue
        field = (*path, "command") if key == "command" else (*path, "args", key)
        for secret in secrets_in_argv({"command": text}):
            yield Hit("MCP013", field, f"{where(field)}: {argv_exposure(path[-1], secret)}")


def carried_secret_hits(path: JsonPath, entry: dict[str, Any]) -> Iterator[Hit]:
    """MCP010 for a password a program's own options carry (`mysql -p…`, `curl -u u:…`),
    which no option's name gives away (issue 23); the same rule `add` uses."""
    args: list[Any] = entry["args"] if isinstance(entry.get("args"), list) else []
    for index, text in argv_credentials([entry.get("command"), *args]):
        if is_placeholder(text, dev_defaults=True):
            continue
        field = (*path, "command") if index == 0 else (*path, "args", index - 1)
        yield Hit("MCP010", field, f"{where(field)}: literal password in the program's "
                                   f"options {json.dumps(mask(text))}")


def _string_hits(path: JsonPath, text: str, name: str | None) -> Iterator[Hit]:
    option, equals, value = text.partition("=")
    embedded = _embedded_json(value if equals and _ASSIGNED_NAME.fullmatch(option) else text)
    if embedded is not None:
        yield from _embedded_hits(path, embedded)
        return
    if "://" in text:
        yield from _text_with_urls_hits(path, text, name)
        return
    match = None
    if equals and _ASSIGNED_NAME.fullmatch(option):  # --api-key=VALUE, GITHUB_TOKEN=VALUE
        match = find_secret(value, name=option, placeholders=True)
    match = match or find_secret(text, name=name, placeholders=True)
    if match is not None and not (not match.certain and name and re.search(_IDENTIFIER_NAME, name)):
        yield from _hit(path, match, text)
    elif match is None and name is not None and is_secret_name(name) \
            and without_references(text).strip() and is_placeholder(text, dev_defaults=True):
        # The detector never calls a placeholder a credential; where one goes, it is a
        # blank to fill in.
        yield _placeholder(path, text.strip())


def _embedded_json(text: str) -> Any:
    """The object or list a string holds as JSON (`'{"apiKey": "..."}'`, or that JSON
    encoded once more as a JSON string), else None."""
    candidate: Any = text.strip().strip("'")
    for _ in range(2):
        if not isinstance(candidate, str) or len(candidate) > _EMBEDDED_JSON_LIMIT \
                or not candidate.strip().startswith(("{", "[", '"')):
            return None
        try:
            candidate = json.loads(candidate)
        except (ValueError, RecursionError):
            return None
        if isinstance(candidate, dict | list):
            return candidate or None
    return None


def _embedded_hits(path: JsonPath, embedded: Any) -> Iterator[Hit]:
    # Located at the string; the message names the place inside its JSON. Only one
    # level: JSON in JSON in a string is walked as text.
    for hit in leak_hits(embedded):
        inner = hit.message.split(": ", 1)[-1]
        yield Hit(hit.code, path, f"{where(path)}: {inner} (inside its JSON, at "
                                  f"{where(hit.path)})")


def _text_with_urls_hits(path: JsonPath, text: str, name: str | None) -> Iterator[Hit]:
    """A URL anywhere in the text (`--db=postgres://u:p@h/db`) is judged as a URL."""
    found = False
    for url in _URL.findall(text):
        for hit in _url_hits(path, url):
            found = True
            yield hit
    if not found and name is not None:
        match = find_secret(_URL.sub(" ", text), name=name, placeholders=True)
        if match is not None:
            yield from _hit(path, match, text)


def _url_hits(path: JsonPath, url: str) -> Iterator[Hit]:
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        match = find_secret(url, placeholders=True)
        if match is not None:
            yield from _hit(path, match, url)
        return
    if password and without_references(password).strip():
        if is_placeholder(password, dev_defaults=True):
            yield _placeholder(path, password)
        else:
            yield Hit("MCP010", path, f"{where(path)}: literal password in the URL's "
                                      f"userinfo {json.dumps(mask(password))}")
        return
    # Each path segment on its own: a bare hex token (`/mcp/<32 hex>`) is judged as the
    # whole value it is, not as one word of a longer text.
    candidates: list[tuple[str, str | None]] = [(parts.username or "", None)]
    candidates += [(segment, None) for segment in parts.path.split("/") if segment]
    candidates += [(value, key) for key, value in parse_qsl(parts.query)]
    for text, name in candidates:
        match = find_secret(text, name=name, placeholders=True)
        if match is not None:
            yield from _hit(path, match, text)
            return


def _basic_password(whole: str, credential: str) -> str | None:
    """The password of `Basic <base64 of user:password>`, if `whole` is such a header."""
    if not whole.lstrip().lower().startswith("basic ") or len(credential) > 1024:
        return None
    import base64  # noqa: PLC0415 - only for the rare Basic header
    import binascii  # noqa: PLC0415

    try:
        decoded = base64.b64decode(credential, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    user, colon, password = decoded.partition(":")
    return password if colon and user else None


def _publishable_jwt(text: str) -> bool:
    """A JWT whose claims say `"role": "anon"` (Supabase's anon key, meant for browsers);
    a `service_role` key, or any other, stays a credential."""
    parts = text.split(".")
    if len(parts) != 3 or not text.startswith("eyJ") or len(parts[1]) > 4096:
        return False
    import base64  # noqa: PLC0415 - only for the rare JWT
    import binascii  # noqa: PLC0415

    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (binascii.Error, ValueError):
        return False
    return isinstance(claims, dict) and claims.get("role") == "anon" \
        and claims.get("iss") == "supabase"


def _hit(path: JsonPath, match: SecretMatch, whole: str) -> Iterator[Hit]:
    basic = _basic_password(whole, match.text)
    if is_placeholder(match.text, dev_defaults=True) or is_placeholder(whole, dev_defaults=True) \
            or (basic is not None and is_placeholder(basic, dev_defaults=True)):
        if match.certain:  # a guess that is a placeholder is no finding at all
            yield _placeholder(path, match.text)
        return
    shown = json.dumps(mask(match.text))
    if match.certain and _publishable_jwt(match.text):
        yield Hit("MCP011", path, f"{where(path)}: {shown} is a Supabase anon key, public by "
                                  "design (what it reads is what row-level security lets "
                                  "anyone read)")
    elif match.certain:
        yield Hit("MCP010", path, f"{where(path)}: literal {match.kind} {shown}")
    else:
        yield Hit("MCP011", path, f"{where(path)}: {match.kind} {shown} may be a credential")


def _placeholder(path: JsonPath, text: str) -> Hit:
    # Short: a placeholder misjudged would otherwise be a whole credential in a CI log.
    shown = json.dumps(text if len(text) <= 24 else text[:20] + "...")
    return Hit("MCP012", path, f"{where(path)}: placeholder {shown} where a credential goes")
