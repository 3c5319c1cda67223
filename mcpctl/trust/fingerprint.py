"""Fingerprint v2 of a server definition (DESIGN §4; issue 11). Pure.

SHA-256 over a canonical JSON form of what would run, with values as written
(unexpanded), so rotating a secret or an env var keeps trust, and no secret value is
hashed in. Env and headers are structural pairs, never `k=v` strings, so
`{"a": "b=c"}` and `{"a=b": "c"}` differ. Never shortened: the attacker authors the
approved value, so a short hash would be a second-preimage target.

v2 differs from v1 only in what stands for the pinned files: v1 listed the named files'
`[path, digest]` pairs; v2 pins the whole workspace (or a runner's inputs), so the
form holds which set applies (`pinSet`), the folders the user excluded (`ignored`),
the workspace paths the launch names (`named`: the prompt's headline, so an env var
that later names another file is a change), and one SHA-256 over the sorted pairs
(`files`, `manifest.manifest_digest`) — the same commitment, without serialising
100,000 pairs for every server of a command.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from mcpctl.model import PinnedFile, ServerSpec
from mcpctl.pinning.manifest import WORKSPACE, manifest_digest
from mcpctl.sha256 import sha256_hex

if TYPE_CHECKING:  # a user-tier server's fingerprint needs no pin set (`run` skips it)
    from mcpctl.pinning.pin_set import PinSet

VERSION_TAG = "mcpctl-fingerprint-v2"
Pins: TypeAlias = "PinSet | Sequence[PinnedFile]"  # a bare list of pairs: a workspace set of those


def canonical_form(spec: ServerSpec, files: Pins = ()) -> dict[str, Any]:
    pins, listed = _split(files)
    return {
        "transport": spec.transport.value,
        "command": spec.command,
        "args": list(spec.args),
        "env": sorted([key, value] for key, value in spec.env.items()),
        "cwd": spec.cwd,
        "envFile": spec.env_file,
        "url": spec.url,
        "headers": sorted([key, value] for key, value in spec.headers.items()),
        "pinSet": pins.kind if pins else WORKSPACE,
        "ignored": list(pins.ignored) if pins else [],
        "named": list(pins.named) if pins else [],
        "files": pins.digest if pins else manifest_digest(dict(listed)),
    }


def _split(files: Pins) -> tuple[PinSet | None, Sequence[PinnedFile]]:
    """A PinSet is a NamedTuple, so a Sequence too: it is told apart by its class, which
    is imported only when there are files to tell apart (a user-tier server has none)."""
    if not files:
        return None, ()
    from mcpctl.pinning.pin_set import PinSet  # noqa: PLC0415

    return (files, ()) if isinstance(files, PinSet) else (None, files)


def canonical_bytes(spec: ServerSpec, files: Pins = ()) -> bytes:
    text = json.dumps([VERSION_TAG, canonical_form(spec, files)],
                      ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return text.encode("utf-8")


def fingerprint_of(spec: ServerSpec, files: Pins = ()) -> str:
    return "sha256:" + sha256_hex(canonical_bytes(spec, files))
