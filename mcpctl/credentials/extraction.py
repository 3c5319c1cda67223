"""Move credentials out of an entry before it is written (pure).

`add --env GITHUB_TOKEN=ghp_…` must not put the token in config.toml: the value goes
to the keyring as `<server>-<KEY>` and the entry says `${secret:<server>-<KEY>}`.
Only the credential part is replaced, so `Bearer <token>` keeps its scheme and
`postgres://u:${secret:…}@host/db` its URL. Every field is judged, by its name and by
its look (`secretlike.find_secrets`): env, headers, arguments, the URL, the command,
and fields mcpctl does not know, at any depth (the reference stays there; mcpctl
itself never reads such a field, and no client file gets it, since exports launch
through `mcpctl run`).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from mcpctl.credentials.argv import argv_credentials, named_value, option_before
from mcpctl.credentials.secretlike import all_secrets, find_secret

# The fields mcpctl reads; everything else in an entry is walked as unknown.
_KNOWN_FIELDS = frozenset({"command", "args", "env", "headers", "url", "cwd", "type",
                           "envFile", "timeout", "transport"})
_MAX_DEPTH = 100  # unknown fields recurse once a level; far below the recursion limit


def secret_name_for(server: str, key: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{server}-{key}")
    return name[:128]


def reference(name: str) -> str:
    return "${secret:" + name + "}"


def extract_secrets(server: str, entry: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The entry with every credential replaced by a reference, and the values to
    store, by secret name."""
    found: dict[str, str] = {}
    result = dict(entry)
    for field in ("env", "headers"):
        if isinstance(entry.get(field), dict):
            result[field] = {key: _moved(value, key, secret_name_for(server, key), found)
                             if isinstance(value, str) else value
                             for key, value in entry[field].items()}
    if isinstance(entry.get("args"), list):
        carried = argv_credentials([entry.get("command"), *entry["args"]])
        result["args"] = _args_without_secrets(server, entry["args"], found,
                                               {(i - 1, text) for i, text in carried if i})
    if isinstance(entry.get("url"), str):
        result["url"] = _url_without_secrets(server, entry["url"], found)
    if isinstance(entry.get("command"), str):
        result["command"] = _moved(entry["command"], None, secret_name_for(server, "command"),
                                   found)
    for key, value in entry.items():
        if key not in _KNOWN_FIELDS:
            result[key] = _tree_without_secrets(value, key, secret_name_for(server, key),
                                                found, 0)
    return result, found


def _moved(value: str, name: str | None, secret: str, found: dict[str, str]) -> str:
    """`value` with each credential in it (judged under `name`) replaced by a reference;
    the second and later ones are `<secret>-2`, `<secret>-3`…; the whole value when they
    are too many to be sure of all (`all_secrets`)."""
    shown = value
    matches, every_one = all_secrets(value, name=name)
    if not every_one:
        return _moved_whole(value, secret, found)
    for number, match in enumerate(matches, start=1):
        name_n = _unique(secret if number == 1 else f"{secret}-{number}"[:128], match.text,
                         found)
        shown, replaced = _replace_bounded(shown, match.text, reference(name_n))
        if not replaced:  # escaped inside JSON, say: the whole value is the secret
            return _moved_whole(value, secret, found)
        found[name_n] = match.text
    return shown


def _moved_whole(value: str, secret: str, found: dict[str, str]) -> str:
    """The reference to `value` kept whole as one secret."""
    whole = _unique(secret, value, found)
    found[whole] = value
    return reference(whole)


def _unique(name: str, value: str, found: dict[str, str]) -> str:
    """`name`, or `name-2`, `name-3`… when another value already took it: two keys that
    map to one name (`API KEY` and `API_KEY`) must not share one secret."""
    candidate, number = name, 1
    while found.get(candidate, value) != value:
        number += 1
        candidate = f"{name[:120]}-{number}"
    return candidate


def _replace_bounded(text: str, old: str, new: str) -> tuple[str, bool]:
    """`old` replaced where it stands alone (not inside a longer run of letters and
    digits), so a short password does not eat the same letters in a host name."""
    pattern = re.compile(rf"(?<![A-Za-z0-9]){re.escape(old)}(?![A-Za-z0-9])")
    result, count = pattern.subn(lambda _: new, text)
    if count == 0 and old in text:
        return text.replace(old, new), True
    return result, count > 0


def _args_without_secrets(server: str, args: list[Any], found: dict[str, str],
                          carried: set[tuple[int, str]]) -> list[Any]:
    """`--token ghp_…` and `--token=ghp_…` keep the option and lose the value; so do
    the passwords `carried` in a program's own options (`mysql -p…`, `curl -u u:…`)."""
    kept: list[Any] = []
    for index, arg in enumerate(args):
        if not isinstance(arg, str):
            kept.append(arg)
            continue
        secret = secret_name_for(server, f"arg{index}")
        named = named_value(arg)
        if named is not None and find_secret(named[1], name=named[0]):
            option, value = named
            moved = f"{option}={_moved(value, option, secret, found)}"
        else:
            moved = _moved(arg, option_before(args, index), secret, found)
        for text in sorted({t for i, t in carried if i == index}, key=len, reverse=True):
            name = _unique(f"{secret}-password", text, found)
            moved, replaced = _replace_bounded(moved, text, reference(name))
            if replaced:
                found[name] = text
        kept.append(moved)
    return kept


def _url_without_secrets(server: str, url: str, found: dict[str, str]) -> str:
    """A userinfo password, query values under secret names and tokens anywhere in the
    URL (its path too) become references."""
    try:
        parts = urlsplit(url)
        query = parse_qsl(parts.query, keep_blank_values=True)
        password = parts.password
    except ValueError:
        return _moved(url, None, secret_name_for(server, "url"), found)
    netloc = parts.netloc
    if password and find_secret(password, name="password"):
        name = secret_name_for(server, "url-password")
        found[name] = password
        netloc = netloc.replace(f":{password}@", f":{reference(name)}@", 1)
    changed = [(key, _moved(value, key, secret_name_for(server, f"url-{key}"), found))
               for key, value in query]
    rebuilt = url
    if netloc != parts.netloc or changed != query:
        rebuilt = urlunsplit(parts._replace(netloc=netloc,
                                            query=urlencode(changed, safe="${}:")))
    return _moved(rebuilt, None, secret_name_for(server, "url"), found)


def _tree_without_secrets(value: Any, key: str, secret: str, found: dict[str, str],
                          depth: int) -> Any:
    """A field mcpctl does not know, with each string judged under its own key."""
    if isinstance(value, str):
        return _moved(value, key, secret, found)
    if depth >= _MAX_DEPTH:
        return value
    if isinstance(value, dict):
        return {k: _tree_without_secrets(v, str(k), secret_name_for(secret, str(k)), found,
                                         depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_tree_without_secrets(v, key, secret_name_for(secret, str(i)), found, depth + 1)
                for i, v in enumerate(value)]
    return value
