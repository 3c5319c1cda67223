"""Fingerprint v1 of a server definition (DESIGN §4). Pure.

SHA-256 over a canonical JSON form of what would run, with values as written
(unexpanded), so rotating a secret or an env var keeps trust, and no secret value is
hashed in. Env and headers are structural pairs, never `k=v` strings, so
`{"a": "b=c"}` and `{"a=b": "c"}` differ. Never shortened: the attacker authors the
approved value, so a short hash would be a second-preimage target.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from mcpctl.model import PinnedFile, ServerSpec

VERSION_TAG = "mcpctl-fingerprint-v1"

def canonical_form(spec: ServerSpec, files: Sequence[PinnedFile] = ()) -> dict[str, Any]:
    return {
        "transport": spec.transport.value,
        "command": spec.command,
        "args": list(spec.args),
        "env": sorted([key, value] for key, value in spec.env.items()),
        "cwd": spec.cwd,
        "envFile": spec.env_file,
        "url": spec.url,
        "headers": sorted([key, value] for key, value in spec.headers.items()),
        "files": sorted([path, digest] for path, digest in files),
    }


def canonical_bytes(spec: ServerSpec, files: Sequence[PinnedFile] = ()) -> bytes:
    text = json.dumps([VERSION_TAG, canonical_form(spec, files)],
                      ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return text.encode("utf-8")


def fingerprint_of(spec: ServerSpec, files: Sequence[PinnedFile] = ()) -> str:
    return "sha256:" + hashlib.sha256(canonical_bytes(spec, files)).hexdigest()
