"""A client's file with its secret values taken out, for keeping as a backup (pure).

`export` and `sync` keep the file they replace, and that file often holds the very
tokens `import` just moved to the keyring. The backup keeps everything else byte for
byte; each credential value becomes the `${secret:…}` reference `import` gives that
field (`<server>-<KEY>`), or `${secret:redacted}` where no server owns it, so the
backup shows what was there and where its value now lives, never the value.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mcpctl.credentials.extraction import extract_secrets, reference
from mcpctl.credentials.secretlike import all_secrets, keyed_strings
from mcpctl.syntax.jsonc import JsonSyntaxError, blank_jsonc

# The keys under which clients keep their servers (Claude, Cursor, VS Code, Codex, Zed).
_SERVER_MAPS = frozenset({"mcpServers", "servers", "mcp_servers", "context_servers"})
UNOWNED = "redacted"


@dataclass(frozen=True)
class Scrubbed:
    text: str
    replaced: int  # distinct secret values taken out
    complete: bool  # False: a value is still in `text` (written in a way not recognised)


def scrub(text: str, *, toml: bool) -> Scrubbed:
    """`text` with every credential value replaced by a reference. Found in the parsed
    document (each value judged under its key, entries as `import` would judge them)
    and, if the text does not parse, by look alone. Not complete when a string held as
    many credentials as the detector gives (`all_secrets`): more may be left in it."""
    document = _parse(text, toml=toml)
    if document is not None:
        values, every_one = _secret_values(document)
    else:
        matches, every_one = all_secrets(text)
        values = {match.text: UNOWNED for match in matches}
    scrubbed = text
    for value in sorted(values, key=len, reverse=True):
        for form in {value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]}:
            scrubbed = _replace_bounded(scrubbed, form, reference(values[value]))
    return Scrubbed(scrubbed, len(values),
                    every_one and not any(value in scrubbed for value in values))


def _parse(text: str, *, toml: bool) -> Any:
    try:
        if toml:
            return tomllib.loads(text)
        return json.loads(blank_jsonc(text.removeprefix("\ufeff")))
    except (ValueError, JsonSyntaxError, RecursionError):
        return None


def _secret_values(document: Any) -> tuple[dict[str, str], bool]:
    """Secret value → the name of the secret it becomes; and whether those are all of
    them (no string held as many as the detector gives)."""
    values: dict[str, str] = {}
    every_one = True
    for server, entry in _entries(document):
        _, found = extract_secrets(server, entry)
        for name, value in found.items():
            values.setdefault(value, name)
    for key, text in keyed_strings(document):
        matches, complete = all_secrets(text, name=key)
        every_one = every_one and complete
        for match in matches:
            values.setdefault(match.text, UNOWNED)
    return values, every_one


def _entries(document: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every server entry at any depth (`projects[path].mcpServers` too), iteratively."""
    stack = [document]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                if key in _SERVER_MAPS and isinstance(child, dict):
                    yield from ((str(k), v) for k, v in child.items() if isinstance(v, dict))
                stack.append(child)
        elif isinstance(item, list):
            stack.extend(item)


def _replace_bounded(text: str, old: str, new: str) -> str:
    """`old` replaced where it does not continue a run of letters and digits, so a short
    password leaves the same letters elsewhere in the file alone."""
    if not old or old not in text:
        return text
    pattern = re.compile(rf"(?<![A-Za-z0-9]){re.escape(old)}(?![A-Za-z0-9])")
    replaced = pattern.sub(lambda _: new, text)
    return replaced if replaced != text else text.replace(old, new)
