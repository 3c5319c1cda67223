"""Secret-looking literals hidden for display (pure): env, headers, args, URLs.

Shared by `list`/`show`/`trust` and every message that quotes a definition, so a
token pasted into a config file is never printed whole (DESIGN §5: at most the first
4 characters).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from mcpctl.credentials.argv import named_value, option_before
from mcpctl.credentials.secretlike import all_secrets, looks_secret, mask

_MAX_DEPTH = 100  # masked_tree recurses once a level; far below the recursion limit


def masked_value(value: str, name: str | None = None) -> str:
    """`value` with each credential in it masked where it stands (`Bearer ghp_***`,
    `postgres://u:hun***@db`); the whole value when a credential cannot be found in it
    as written (escaped inside JSON, say), or too many to be sure of all."""
    shown = value
    matches, every_one = all_secrets(value, name=name)
    if not every_one:
        return mask(value)
    for match in sorted(matches, key=lambda m: len(m.text), reverse=True):
        if match.text not in shown:
            return mask(value)
        shown = shown.replace(match.text, mask(match.text))
    return shown


def masked_map(values: Mapping[str, str]) -> dict[str, str]:
    """Each value judged with its key (`API_KEY`, `Authorization`) as context."""
    return {key: masked_value(value, key) for key, value in values.items()}


def masked_args(args: Sequence[str]) -> list[str]:
    """Each argument judged with the option before it (`--token VALUE`) as context, or
    with its own name (`--token=VALUE`, `db.password=VALUE`)."""
    shown = []
    for index, arg in enumerate(args):
        named = named_value(arg)
        if named is not None and looks_secret(named[1], name=named[0]):
            shown.append(f"{named[0]}={mask(named[1])}")
        else:
            shown.append(masked_value(arg, option_before(list(args), index)))
    return shown


def masked_url(url: str) -> str:
    """The URL with a userinfo password and secret-looking query values masked."""
    try:
        parts = urlsplit(url)
        query = parse_qsl(parts.query, keep_blank_values=True)
    except ValueError:
        return masked_value(url)
    netloc = parts.netloc
    if parts.password:
        netloc = netloc.replace(f":{parts.password}@", ":***@", 1)
    shown = urlunsplit(parts._replace(netloc=netloc)) if netloc != parts.netloc else url
    if any(looks_secret(value, name=key) for key, value in query):
        masked = [(key, masked_value(value, key)) for key, value in query]
        shown = urlunsplit(parts._replace(netloc=netloc, query=urlencode(masked, safe="*${}:")))
    return masked_value(shown)  # a token in the path: `https://host/ghp_…/mcp`


def masked_tree(value: Any, key: str | None = None, depth: int = 0) -> Any:
    """A JSON-like value with every secret-looking string masked, each judged with
    the key it sits under (`{"auth": {"token": ...}}`, `"apiKey"`) as context. A value
    nested deeper than `_MAX_DEPTH` is hidden whole rather than exhaust the stack."""
    if depth > _MAX_DEPTH:
        return "***"
    if isinstance(value, str):
        return masked_value(value, key)
    if isinstance(value, Mapping):
        shown = {}
        for name, item in value.items():
            shown[name] = masked_tree(item, str(name), depth + 1)
        return shown
    if isinstance(value, list | tuple):
        return [masked_tree(item, key, depth + 1) for item in value]
    return value


def masked_entry(entry: Any) -> Any:
    """An entry (a JSON object or TOML table) with every secret-looking literal masked."""
    if not isinstance(entry, Mapping):
        return entry
    shown = dict(entry)
    for field in ("env", "headers"):
        if isinstance(shown.get(field), Mapping):
            shown[field] = {key: masked_value(value, key) if isinstance(value, str) else value
                            for key, value in shown[field].items()}
    if isinstance(shown.get("args"), list) and all(isinstance(a, str) for a in shown["args"]):
        shown["args"] = masked_args(shown["args"])
    if isinstance(shown.get("url"), str):
        shown["url"] = masked_url(shown["url"])
    if isinstance(shown.get("command"), str):
        shown["command"] = masked_value(shown["command"])
    for key, value in entry.items():
        if key not in ("env", "headers", "args", "url", "command"):
            shown[key] = masked_tree(value, str(key))
    return shown
