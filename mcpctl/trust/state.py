"""Trust states and the field-by-field diff of an approval against today (pure).

States (DESIGN §4): `user` (user tier), `trusted`, `untrusted` (never approved),
`changed` (approved, then the definition or a pinned file changed — the attack trust
exists for), `shadowed`; a record whose workspace or server is gone is `orphaned`.
`unpinnable`: the server reaches more workspace code than mcpctl can pin (a bound of
`pinned_files` is passed, or a file cannot be read), so a swap could go unnoticed; it
is neither approved nor started until it names less.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from mcpctl.credentials.secretlike import looks_secret
from mcpctl.model import PinnedFile, ServerSpec, Tier


class TrustState(StrEnum):
    USER = "user"
    TRUSTED = "trusted"
    UNTRUSTED = "untrusted"
    CHANGED = "changed"
    SHADOWED = "shadowed"
    ORPHANED = "orphaned"
    UNPINNABLE = "unpinnable"


NEEDS_ATTENTION = frozenset({TrustState.UNTRUSTED, TrustState.CHANGED, TrustState.UNPINNABLE})


@dataclass(frozen=True)
class Approval:
    """One trust record: what was approved, when, and the definition for diffs."""

    fingerprint: str
    approved_at: str
    definition: Mapping[str, Any]


def state_of(tier: Tier, fingerprint: str, approval: Approval | None) -> TrustState:
    if tier is Tier.USER:
        return TrustState.USER
    if approval is None:
        return TrustState.UNTRUSTED
    if approval.fingerprint == fingerprint:
        return TrustState.TRUSTED
    return TrustState.CHANGED


def _stored_value(key: str, value: str) -> str | dict[str, str]:
    """A literal that looks like a secret is kept only as its hash."""
    if looks_secret(value, name=key):
        return {"sha256": hashlib.sha256(value.encode("utf-8")).hexdigest()}
    return value


def approved_definition(spec: ServerSpec, files: Sequence[PinnedFile]) -> dict[str, Any]:
    """What the trust store keeps of a definition (no secret-looking value in clear)."""
    return {
        "transport": spec.transport.value,
        "command": spec.command,
        "args": list(spec.args),
        "env": {key: _stored_value(key, value) for key, value in sorted(spec.env.items())},
        "cwd": spec.cwd,
        "envFile": spec.env_file,
        "url": spec.url,
        "headers": {key: _stored_value(key, value)
                    for key, value in sorted(spec.headers.items())},
        "files": dict(sorted(files)),
    }


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return "(a secret-looking value)"
    return json.dumps(value, ensure_ascii=False)


_SCALARS = ("transport", "command", "cwd", "envFile", "url")


def diff(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """One line per change, in a stable order: scalars, args, env, headers, files."""
    changes = [f"{field}: {_show(old.get(field))} → {_show(new.get(field))}"
               for field in _SCALARS if old.get(field) != new.get(field)]
    changes += _list_diff("args", old.get("args", []), new.get("args", []))
    changes += _map_diff("env", old.get("env", {}), new.get("env", {}))
    changes += _map_diff("header", old.get("headers", {}), new.get("headers", {}))
    changes += _file_diff(old.get("files", {}), new.get("files", {}))
    return changes


def _list_diff(label: str, old: Sequence[Any], new: Sequence[Any]) -> list[str]:
    changes = []
    for index in range(max(len(old), len(new))):
        if index >= len(old):
            changes.append(f"{label}[{index}] added: {_show(new[index])}")
        elif index >= len(new):
            changes.append(f"{label}[{index}] removed: {_show(old[index])}")
        elif old[index] != new[index]:
            changes.append(f"{label}[{index}]: {_show(old[index])} → {_show(new[index])}")
    return changes


def _map_diff(label: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    changes = []
    for key in sorted(old.keys() | new.keys()):
        if key not in old:
            changes.append(f"{label} {key} added: {_show(new[key])}")
        elif key not in new:
            changes.append(f"{label} {key} removed")
        elif old[key] != new[key]:
            changes.append(f"{label} {key}: {_show(old[key])} → {_show(new[key])}")
    return changes


def _file_diff(old: Mapping[str, str], new: Mapping[str, str]) -> list[str]:
    changes = []
    for path in sorted(old.keys() | new.keys()):
        if path not in old:
            changes.append(f"file {path} now pinned (newly named or created)")
        elif path not in new:
            changes.append(f"file {path} no longer pinned (gone, or no longer named)")
        elif old[path] != new[path]:
            changes.append(f"file {path} content changed")
    return changes


def summary(changes: Sequence[str]) -> str:
    if not changes:
        return ""
    more = f" (+{len(changes) - 1} more)" if len(changes) > 1 else ""
    return changes[0] + more
