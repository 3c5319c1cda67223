"""The trust store: `<data dir>/trust.json` (DESIGN §4, STYLE 6-7).

Versioned, mode 0600, replaced atomically under a lock for every read-modify-write.
Keyed by the workspace root's resolved real path, then server name. A newer
`schema_version` is refused and never overwritten; a corrupt store is reported with
its path and left in place, and nothing is trusted while it is unreadable.

Schema 2 (issue 11): an approval covers the whole workspace, so its per-path digests
go to a manifest beside the store, `approved-files/<sha256>.bin` (issue 24: compact,
`save_manifest`; older ones are `.json`), named by the SHA-256 the fingerprint holds
(servers of one workspace share one); a corrupt manifest is not used. Schema 1
records migrate as they are: they pinned only the named files, so they read as
`changed` with that reason until approved again (`state.LEGACY`).
"""

from __future__ import annotations

import contextlib
import json
import os
import struct
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from mcpctl.errors import ConfigError
from mcpctl.files.atomic import atomic_write_bytes, atomic_write_text, file_lock
from mcpctl.pinning.manifest import manifest_digest, short
from mcpctl.pinning.workspace import Entry
from mcpctl.sha256 import sha256_hex
from mcpctl.trust.state import Approval

SCHEMA_VERSION = 2
MIGRATABLE = frozenset({1, 2})
MANIFESTS = "approved-files"
T = TypeVar("T")
Store = dict[str, Any]


class TrustStoreError(ConfigError):
    """The trust store cannot be used; it is left as it is."""


def workspace_key(root: Path) -> str:
    return os.path.realpath(root)


def empty_store() -> Store:
    return {"schema_version": SCHEMA_VERSION, "workspaces": {}}


def read_store(path: Path) -> Store:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return empty_store()
    except (OSError, UnicodeDecodeError) as error:
        raise TrustStoreError(f"trust store {path} cannot be read ({error}); "
                              "nothing is trusted until it is fixed or removed") from None
    return parse_store(text, path)


def parse_store(text: str, path: Path) -> Store:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise TrustStoreError(
            f"trust store {path} is corrupt (line {error.lineno}, column {error.colno}: "
            f"{error.msg}); it was left in place and nothing is trusted until it is fixed "
            "or removed") from None
    version = data.get("schema_version") if isinstance(data, dict) else None
    if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
        raise TrustStoreError(
            f"trust store {path} has schema_version {version}, newer than this mcpctl "
            f"understands ({SCHEMA_VERSION}); upgrade mcpctl — the file was not changed")
    if version not in MIGRATABLE or isinstance(version, bool) or not _well_formed(data):
        raise TrustStoreError(f"trust store {path} is not an mcpctl trust store "
                              "(no schema_version, or workspaces that are not objects of "
                              "records); it was left in place and nothing is trusted until it "
                              "is fixed or removed")
    store: Store = data
    store["schema_version"] = SCHEMA_VERSION  # v1 records keep their shape (see is_legacy)
    return store


def _well_formed(data: dict[str, Any]) -> bool:
    """Workspaces map to objects of records. Each record's own shape is checked when its
    workspace is read (`approvals_in`): 10,000 records in other workspaces must not slow
    down `list` here."""
    workspaces = data.get("workspaces")
    return isinstance(workspaces, dict) and all(
        isinstance(records, dict) and all(isinstance(r, dict) for r in records.values())
        for records in workspaces.values())


def _record_ok(record: Any) -> bool:
    """A record without a fingerprint approves nothing and is skipped; one with a
    fingerprint must have the fields a diff reads, else the store is corrupt."""
    if not isinstance(record, dict):
        return False
    if not isinstance(record.get("fingerprint"), str):
        return True
    return (isinstance(record.get("approved_at", ""), str)
            and _definition_ok(record.get("definition", {})))


def _definition_ok(definition: Any) -> bool:
    """The stored definition a diff reads: scalars, args, env/headers, and the files
    (schema 1: a map of digests; schema 2: the pin set, its manifest and exclusions)."""
    if not isinstance(definition, dict):
        return False
    scalars = all(isinstance(definition.get(k), str | None)
                  for k in ("transport", "command", "cwd", "envFile", "url", "pinSet",
                            "manifest"))
    args = definition.get("args", [])
    pairs = all(_stored_map_ok(definition.get(k, {})) for k in ("env", "headers"))
    lists = all(_strings(definition.get(k, [])) for k in ("args", "ignored", "named"))
    files = definition.get("files", {})
    return (scalars and pairs and lists and isinstance(args, list)
            and isinstance(files, dict) and all(isinstance(d, str) for d in files.values()))


def _strings(values: Any) -> bool:
    return isinstance(values, list) and all(isinstance(v, str) for v in values)


def _stored_map_ok(values: Any) -> bool:
    return isinstance(values, dict) and all(
        isinstance(v, str) or (isinstance(v, dict) and isinstance(v.get("sha256"), str))
        for v in values.values())


def approvals_in(store: Store, root: Path) -> dict[str, Approval]:
    """The approvals of one workspace; TrustStoreError when one of its records is
    malformed (nothing is trusted then, and the file is left as it is)."""
    key = workspace_key(root)
    records = store["workspaces"].get(key, {})
    approvals: dict[str, Approval] = {}
    for name, record in records.items():
        if not _record_ok(record):
            raise TrustStoreError(
                f"the trust store's record of {name!r} in {key} is malformed; it was left in "
                "place and nothing is trusted until it is fixed or removed")
        if isinstance(record.get("fingerprint"), str):
            approvals[name] = Approval(record["fingerprint"], record.get("approved_at", ""),
                                       record.get("definition") or {})
    return approvals


def record_of(approval: Approval) -> dict[str, Any]:
    return {"fingerprint": approval.fingerprint, "approved_at": approval.approved_at,
            "definition": dict(approval.definition)}


def update_store(path: Path, mutate: Callable[[Store], T]) -> T:
    """Read, change and write the store under its lock; write only if `mutate` changed it."""
    with file_lock(path):
        store = read_store(path)
        before = json.dumps(store, sort_keys=True)
        result = mutate(store)
        if json.dumps(store, sort_keys=True) != before:
            atomic_write_text(path, json.dumps(store, indent=1, ensure_ascii=False) + "\n",
                              mode=0o600)
            drop_unused_manifests(path, store)
        return result


def manifest_path(trust_file: Path, digest: str, suffix: str = ".bin") -> Path:
    return trust_file.parent / MANIFESTS / f"{digest.removeprefix('sha256:')}{suffix}"


_MAGIC = b"mcpctl approved files 3\n"
_ROW = struct.Struct(">H8sQQ")  # path length, digest, size, lines; then the path


def save_manifest(trust_file: Path, digest: str, files: Mapping[str, Entry]) -> None:
    """The approved files, once per content, compact: sorted paths (zlib shares their
    common starts), 64 bits of each digest (`manifest.short`: enough to name what
    changed; the approval's fingerprint holds the set's full digest), size and lines
    for the diffstat; compressed, with a SHA-256 of the set's digest and the rows: a
    corrupt file, or one written for another approval and put under this name, is not
    this approval's list. About 13 bytes a file, measured: 1.2 MB for 100,000 files,
    12.6 MB for 1,000,000."""
    import zlib  # noqa: PLC0415 - approving only

    path = manifest_path(trust_file, digest)
    if path.exists():
        return
    pack, fromhex = _ROW.pack, bytes.fromhex
    parts: list[bytes] = []
    add = parts.append
    for name in sorted(files):  # inlined: 100,000 files
        raw, (of_file, size, lines) = name.encode("utf-8", "surrogateescape"), files[name]
        token = of_file[7:23] if len(of_file) == 71 and of_file.startswith("sha256:") \
            else short(of_file)[1:]  # as `manifest.short` has it
        add(pack(len(raw), fromhex(token), size, lines))
        add(raw)
    body = b"".join(parts)
    data = _MAGIC + _checksum(digest, body) + zlib.compress(body, 1)
    atomic_write_bytes(path, data, mode=0o600)


def load_manifest(trust_file: Path, digest: str) -> dict[str, Entry] | None:
    """The approved files (digests as `manifest.short` has them), or None when missing,
    unreadable or corrupt. A manifest of an older mcpctl (JSON, full digests) is read
    too, and used only if it hashes to its name."""
    try:
        data = manifest_path(trust_file, digest).read_bytes()
    except FileNotFoundError:
        return _load_json_manifest(trust_file, digest)
    except OSError:
        return None
    return _parse_manifest(data, digest)


def _checksum(digest: str, body: bytes) -> bytes:
    """64 hex digits binding the rows to the digest the approval names them by."""
    return sha256_hex(digest.encode("ascii", "replace") + b"\n" + body).encode("ascii")


def _parse_manifest(data: bytes, digest: str) -> dict[str, Entry] | None:
    import zlib  # noqa: PLC0415 - a change report only

    head = len(_MAGIC)
    if not data.startswith(_MAGIC):
        return None
    try:
        body = zlib.decompress(data[head + 64:])
    except zlib.error:
        return None
    if _checksum(digest, body) != data[head:head + 64]:
        return None
    files: dict[str, Entry] = {}
    offset, size, unpack, width = 0, len(body), _ROW.unpack_from, _ROW.size
    try:
        while offset < size:
            length, token, file_size, lines = unpack(body, offset)
            offset += width
            name = body[offset:offset + length].decode("utf-8", "surrogateescape")
            offset += length
            files[name] = Entry("~" + token.hex(), file_size, lines)
    except struct.error:
        return None
    return files


def _load_json_manifest(trust_file: Path, digest: str) -> dict[str, Entry] | None:
    try:
        text = manifest_path(trust_file, digest, ".json").read_text(encoding="utf-8")
        rows = json.loads(text)["files"]
        files = {name: Entry(row[0], int(row[1]), int(row[2])) for name, row in rows.items()}
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None
    if manifest_digest({name: entry.digest for name, entry in files.items()}) != digest:
        return None
    return files


def drop_unused_manifests(trust_file: Path, store: Store) -> None:
    """Manifests no record names any more (after a revoke or a re-approval)."""
    used = {record.get("definition", {}).get("manifest") for records in
            store["workspaces"].values() for record in records.values()}
    folder = trust_file.parent / MANIFESTS
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        stem = name.removesuffix(".json").removesuffix(".bin")
        if stem != name and f"sha256:{stem}" not in used:
            with contextlib.suppress(OSError):
                os.unlink(folder / name)
