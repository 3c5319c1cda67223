"""Changing approvals: approve, revoke, revoke the stale ones."""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mcpctl.config.merge import MergedServer, merge
from mcpctl.config.workspace import find_workspace_root, folder_of, load_workspace
from mcpctl.errors import TrustRefused
from mcpctl.machine import Machine
from mcpctl.model import Definition
from mcpctl.pinning.workspace import Entry
from mcpctl.trust.gate import unpinnable_message
from mcpctl.trust.state import Approval, TrustState, approved_definition
from mcpctl.trust.status import Status
from mcpctl.trust.store import (
    Store,
    TrustStoreError,
    record_of,
    save_manifest,
    update_store,
    workspace_key,
)
from mcpctl.trust.view import TrustStates


def statuses(servers: list[MergedServer], machine: Machine,
             ignored: Sequence[str] | None = None) -> list[tuple[MergedServer, Status]]:
    """Pinned with what a launch on `machine` would expand (DESIGN §4), with one store
    read and one pass over the workspace for all of them; `ignored` replaces the
    folders each approval excludes (`trust --ignore-changes-in`)."""
    states = TrustStates.on(machine)
    if states.store_error is not None:
        raise TrustStoreError(states.store_error)
    return [(server, states.status(server.winner, ignored)) for server in servers]



def approve(server: MergedServer, status: Status, root: Path, trust_file: Path) -> None:
    """Record the approval; an unpinnable server is refused: it could never be checked."""
    spec = server.winner.spec
    if status.state is TrustState.UNPINNABLE or status.pins is None:
        raise TrustRefused(unpinnable_message(spec.name, status.unpinned))
    pins = status.pins
    approval = Approval(status.fingerprint, datetime.now(UTC).isoformat(timespec="seconds"),
                        approved_definition(spec, pins))
    # One pass over a cached workspace set, which reads it lazily; a dict as it is.
    sizes = pins.sizes if isinstance(pins.sizes, dict) else dict(pins.sizes.items())
    entries = {path: sizes.get(path) or Entry(digest) for path, digest in pins.files.items()}

    def mutate(store: Store) -> None:
        # Under the store's lock: a concurrent revoke must not drop the new manifest.
        save_manifest(trust_file, pins.digest, entries)
        store["workspaces"].setdefault(workspace_key(root), {})[spec.name] = record_of(approval)

    update_store(trust_file, mutate)


def revoke_in(trust_file: Path, root: Path, names: list[str] | None) -> list[dict[str, Any]]:
    key = workspace_key(root)

    def mutate(store: Store) -> list[dict[str, Any]]:
        records = store["workspaces"].get(key, {})
        chosen = list(records) if names is None else [n for n in names if n in records]
        for name in chosen:
            del records[name]
        if not records:
            store["workspaces"].pop(key, None)
        return [{"workspace": key, "name": n, "reason": "revoked"} for n in chosen]

    return update_store(trust_file, mutate)


def revoke_all(trust_file: Path) -> list[dict[str, Any]]:
    def mutate(store: Store) -> list[dict[str, Any]]:
        removed = [{"workspace": key, "name": name, "reason": "revoked"}
                   for key, records in store["workspaces"].items() for name in records]
        store["workspaces"].clear()
        return removed

    return update_store(trust_file, mutate)


def stale_records(store: Store, machine: Machine) -> list[dict[str, Any]]:
    """Records that are changed, or orphaned (workspace gone, server no longer defined);
    pinned with what a launch on `machine` would expand."""
    stale: list[dict[str, Any]] = []
    for key, records in store["workspaces"].items():
        root = Path(key)
        if not os.path.isdir(root):
            stale += [{"workspace": key, "name": n, "reason": TrustState.ORPHANED.value,
                       "detail": "workspace folder is gone"} for n in records]
            continue
        states = TrustStates.on(machine, root)
        # The approval is of the winning definition; a shadowed one in a later file is not it.
        winners = {s.name: s.winner for s in merge(_defined_in(root))}
        for name in records:
            definition = winners.get(name)
            if definition is None:
                stale.append({"workspace": key, "name": name,
                              "reason": TrustState.ORPHANED.value,
                              "detail": "no longer defined in the workspace"})
                continue
            status = states.status(definition)
            if status.state in (TrustState.CHANGED, TrustState.UNPINNABLE):
                detail = status.unpinned or "; ".join(status.changes)
                stale.append({"workspace": key, "name": name, "reason": status.state.value,
                              "detail": detail})
    return stale


def _defined_in(folder: Path) -> list[Definition]:
    """The definitions approvals recorded for `folder` are of: its own files read as the
    clients read them there (issue 22: a Codex entry merged with the layers above it,
    as `trust` from that folder approved it), not its parents'."""
    here = Path(os.path.realpath(folder))
    read = load_workspace(find_workspace_root(here), here).definitions
    return [d for d in read if folder_of(d.source, here) == here]


def revoke_stale(machine: Machine) -> list[dict[str, Any]]:
    def mutate(store: Store) -> list[dict[str, Any]]:
        stale = stale_records(store, machine)
        for item in stale:
            records = store["workspaces"][item["workspace"]]
            records.pop(item["name"], None)
            if not records:
                del store["workspaces"][item["workspace"]]
        return stale

    return update_store(machine.paths.trust_file, mutate)
