"""Storing, replacing and forgetting a server's secrets in the keyring (issue 14).

`add` with a new value for a secret the keyring already holds replaces it only with
`--replace`, and says so; otherwise it refuses before anything is stored or written.
`remove` forgets the secrets that only the removed server referenced. Each step
returns what it did, so the command can say it, line by line.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from mcpctl.credentials.keyring_store import (
    delete_secret,
    get_secret,
    indexed_names,
    set_secret,
)
from mcpctl.errors import UsageError

STORED, REPLACED, SAME = "stored", "replaced", "unchanged"


@dataclass(frozen=True)
class SecretAction:
    name: str
    action: str  # stored | replaced | unchanged | removed | kept
    why: str = ""


def plan_storage(found: Mapping[str, str], *, replace: bool) -> list[SecretAction]:
    """What storing `found` would do; refuses (nothing stored) when a value differs from
    the keyring's and `replace` is false: rotation is never silently ignored."""
    actions = []
    for name, value in found.items():
        current = get_secret(name)
        action = STORED if current is None else SAME if current == value else REPLACED
        if action == REPLACED and not replace:
            raise UsageError(f"secret {name!r} in the OS keyring holds a different value than "
                             "the one given; nothing was changed; use --replace to replace "
                             f"it (or: mcpctl secret set {name})")
        actions.append(SecretAction(name, action))
    return actions


def store(index: Path, found: Mapping[str, str], actions: Iterable[SecretAction]) -> None:
    for action in actions:
        if action.action != SAME:
            set_secret(index, action.name, found[action.name])


def forget(index: Path, referenced: Collection[str],
           still_used: Mapping[str, list[str]]) -> list[SecretAction]:
    """Delete each of `referenced` that no other server uses (`still_used`: secret →
    the servers that still reference it). Only secrets mcpctl stored (the index names
    them) are deleted; the keyring is not asked about others, so removing a server whose
    secret was never set works on a machine without a keyring."""
    stored = set(indexed_names(index))
    actions = []
    for name in referenced:
        users = still_used.get(name, [])
        if users:
            actions.append(SecretAction(name, "kept", f"still referenced by {', '.join(users)}"))
        elif name in stored and delete_secret(index, name):
            actions.append(SecretAction(name, "removed"))
    return actions
