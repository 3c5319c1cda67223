"""Trust states and the field-by-field diff of an approval against today (pure).

States (DESIGN §4): `user` (user tier), `trusted`, `untrusted` (never approved),
`changed` (approved, then the definition or a pinned file changed — the attack trust
exists for), `shadowed`; a record whose workspace or server is gone is `orphaned`.
`unpinnable`: the server reaches more workspace code than mcpctl can pin (a bound of
`pinned_files` is passed, or a file cannot be read), so a swap could go unnoticed; it
is neither approved nor started until it names less.
"""

import json
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple

from mcpctl.model import ServerSpec, Tier
from mcpctl.sha256 import sha256_hex

if TYPE_CHECKING:
    from mcpctl.pinning.pin_set import PinSet


class TrustState(StrEnum):
    USER = "user"
    TRUSTED = "trusted"
    UNTRUSTED = "untrusted"
    CHANGED = "changed"
    SHADOWED = "shadowed"
    ORPHANED = "orphaned"
    UNPINNABLE = "unpinnable"


NEEDS_ATTENTION = frozenset({TrustState.UNTRUSTED, TrustState.CHANGED, TrustState.UNPINNABLE})


class Approval(NamedTuple):
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
    from mcpctl.credentials.secretlike import looks_secret  # noqa: PLC0415 - approving only

    if looks_secret(value, name=key):
        return {"sha256": sha256_hex(value.encode("utf-8"))}
    return value


def approved_definition(spec: ServerSpec, pins: "PinSet") -> dict[str, Any]:
    """What the trust store keeps of a definition (no secret-looking value in clear).
    The per-path digests go to a manifest beside the store (`store.save_manifest`),
    named by `manifest`, so a diff can name the files that changed."""
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
        "pinSet": pins.kind,
        "ignored": list(pins.ignored),
        "named": list(pins.named),
        "manifest": pins.digest,
        "fileCount": len(pins.files),
    }


def is_legacy(definition: Mapping[str, Any]) -> bool:
    """A schema 1 record: it pinned only the files the definition named."""
    return "pinSet" not in definition


LEGACY = ("approved before mcpctl pinned the whole workspace (only the files the "
          "definition named were covered); approve again to cover it")
NO_MANIFEST = ("the list of files approved is missing from mcpctl's data folder, so the "
               "changed files cannot be named; approve again after reviewing the workspace")


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return "(a secret-looking value)"
    return json.dumps(value, ensure_ascii=False)


_SCALARS = ("transport", "command", "cwd", "envFile", "url", "pinSet")


def diff(old: Mapping[str, Any], new: Mapping[str, Any],
         files: Sequence[tuple[str, str]] = ()) -> list[str]:
    """One line per change, in a stable order: scalars, args, env, headers, files.
    `files` are (path, modified/added/removed) from comparing the manifests."""
    if is_legacy(old):
        changes = [LEGACY]
        changes += [f"{field}: {_show(old.get(field))} → {_show(new.get(field))}"
                    for field in _SCALARS[:-1] if old.get(field) != new.get(field)]
    else:
        changes = [f"{field}: {_show(old.get(field))} → {_show(new.get(field))}"
                   for field in _SCALARS if old.get(field) != new.get(field)]
        for label in ("ignored", "named"):
            if old.get(label, []) != new.get(label, []):
                changes.append(f"{label}: {_show(old.get(label, []))} → "
                               f"{_show(new.get(label, []))}")
    changes += _list_diff("args", old.get("args", []), new.get("args", []))
    changes += _map_diff("env", old.get("env", {}), new.get("env", {}))
    changes += _map_diff("header", old.get("headers", {}), new.get("headers", {}))
    changes += [f"file {path} {what}" for path, what in files]
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


def summary(changes: Sequence[str]) -> str:
    """The first change; files changed are named together (`3 files changed since
    approval: src/server.js modified, lib/x.js added, .npmrc added`)."""
    files = [change.removeprefix("file ") for change in changes if change.startswith("file ")]
    others = [change for change in changes if not change.startswith("file ")]
    if len(files) > 1:
        shown = ", ".join(files[:3]) + (f", +{len(files) - 3} more" if len(files) > 3 else "")
        others.append(f"{len(files)} files changed since approval: {shown}")
    elif files:
        others.append(f"file {files[0]}")
    more = f" (+{len(others) - 1} more)" if len(others) > 1 else ""
    return others[0] + more if others else ""
