"""Move secret-looking literals out of an entry before it is written (pure).

`add --env GITHUB_TOKEN=ghp_…` must not put the token in config.toml: the value goes
to the keyring as `<server>-<KEY>` and the entry says `${secret:<server>-<KEY>}`.
Only the credential part is replaced, so `Bearer <token>` keeps its scheme.
"""

from __future__ import annotations

import re
from typing import Any

from mcpctl.secretlike import find_secret


def secret_name_for(server: str, key: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{server}-{key}")
    return name[:128]


def reference(name: str) -> str:
    return "${secret:" + name + "}"


def extract_secrets(server: str, entry: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The entry with secret-looking env and header values replaced by references, and
    the values to store, by secret name."""
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
    return result, found
