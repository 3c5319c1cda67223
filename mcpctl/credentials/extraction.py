"""Move secret-looking literals out of an entry before it is written (pure).

`add --env GITHUB_TOKEN=ghp_…` must not put the token in config.toml: the value goes
to the keyring as `<server>-<KEY>` and the entry says `${secret:<server>-<KEY>}`.
Only the credential part is replaced, so `Bearer <token>` keeps its scheme.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from mcpctl.credentials.secretlike import find_secret


def secret_name_for(server: str, key: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{server}-{key}")
    return name[:128]


def reference(name: str) -> str:
    return "${secret:" + name + "}"


def extract_secrets(server: str, entry: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The entry with secret-looking env and header values, arguments and URL parts
    replaced by references, and the values to store, by secret name."""
    found: dict[str, str] = {}
    result = dict(entry)
    for field in ("env", "headers"):
        if field not in entry:
            continue
        values = dict(entry[field])
        for key, value in values.items():
            match = find_secret(value, name=key)
            if match is not None:
                name = secret_name_for(server, key)
                found[name] = match.text
                values[key] = value.replace(match.text, reference(name))
        result[field] = values
    if isinstance(entry.get("args"), list):
        result["args"] = _args_without_secrets(server, entry["args"], found)
    if isinstance(entry.get("url"), str):
        result["url"] = _url_without_secrets(server, entry["url"], found)
    return result, found


def _args_without_secrets(server: str, args: list[str], found: dict[str, str]) -> list[str]:
    """`--token ghp_…` and `--token=ghp_…` keep the option and lose the value."""
    kept = []
    for index, arg in enumerate(args):
        before = args[index - 1] if index else ""
        option, equals, value = arg.partition("=")
        context = option if equals and option.startswith("-") else None
        match = find_secret(value, name=context) if context else None
        if match is None:
            match = find_secret(arg, name=before if before.startswith("-") else None)
        if match is None:
            kept.append(arg)
            continue
        name = secret_name_for(server, f"arg{index}")
        found[name] = match.text
        kept.append(arg.replace(match.text, reference(name)))
    return kept


def _url_without_secrets(server: str, url: str, found: dict[str, str]) -> str:
    """A userinfo password and secret-looking query values become references."""
    try:
        parts = urlsplit(url)
        query = parse_qsl(parts.query, keep_blank_values=True)
    except ValueError:
        return url
    netloc = parts.netloc
    if parts.password and find_secret(parts.password, name="password"):
        name = secret_name_for(server, "url-password")
        found[name] = parts.password
        netloc = netloc.replace(f":{parts.password}@", f":{reference(name)}@", 1)
    changed = []
    for key, value in query:
        match = find_secret(value, name=key)
        if match is None:
            changed.append((key, value))
            continue
        name = secret_name_for(server, f"url-{key}")
        found[name] = match.text
        changed.append((key, value.replace(match.text, reference(name))))
    if netloc == parts.netloc and changed == query:
        return url
    return urlunsplit(parts._replace(netloc=netloc, query=urlencode(changed, safe="${}:")))
