"""Trust status of one command: the store read once, the workspace pinned once.

Every status a command needs (`list`, `cost`, `doctor`, the gate) comes from one
`TrustStates`: one read of the trust store, one listing and digest pass of the
workspace shared by all its servers, one pin set per server (issue 10, item 4). A
launch still pins its resolved command line again (`launch.resolve_launch`). A bad
store is a problem, not a crash: while it is unreadable every workspace server shows
as untrusted — nothing is trusted — and the gate refuses them all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from mcpctl.config.workspace import folder_of
from mcpctl.machine import Machine
from mcpctl.model import Definition, Problem
from mcpctl.pinning.pinned_files import Lookups
from mcpctl.pinning.workspace import Entry
from mcpctl.trust.state import Approval, TrustState, summary
from mcpctl.trust.status import Status, status_of
from mcpctl.trust.store import (
    Store,
    TrustStoreError,
    approvals_in,
    load_manifest,
    read_store,
)


class TrustStates:
    """Statuses of definitions in one workspace, computed once each; a definition read
    from another folder's file (from a subfolder, issue 22) against that folder's
    approvals."""

    def __init__(self, root: Path, trust_file: Path, *,
                 environ: Mapping[str, str], home: Path,
                 cache_dir: Path | None) -> None:
        self.root = root
        self.trust_file = trust_file
        # What a launch from here would expand with (DESIGN §4: it decides the pinned files).
        self.environ = environ
        self.home = home
        # mcpctl's own cache follows this process (the Machine), not the launch's env.
        self._lookups = Lookups(cache_dir, self.environ)
        self.problems: list[Problem] = []
        self.store_error: str | None = None
        self._store: Store | None = None
        self._approvals: dict[Path, dict[str, Approval]] = {}
        self._cache: dict[int, Status] = {}
        self._manifests: dict[str, Mapping[str, Entry] | None] = {}
        try:
            self._store = read_store(trust_file)
        except TrustStoreError as error:
            self._fail(error)
        self.approvals(root)

    @classmethod
    def on(cls, machine: Machine, root: Path | None = None) -> TrustStates:
        """For a command on `machine` (in `root`, default the machine's workspace): what
        a launch there would expand with, and mcpctl's own digest cache."""
        return cls(machine.root if root is None else root, machine.paths.trust_file,
                   environ=machine.environ, home=machine.home,
                   cache_dir=machine.paths.cache_dir)

    def _fail(self, error: TrustStoreError) -> None:
        """While the store cannot be read nothing is trusted, in any folder."""
        self._store = None
        self.store_error = str(error)
        self.problems.append(Problem(self.trust_file, 1, 1, str(error)))

    def approvals(self, root: Path) -> dict[str, Approval]:
        """The approvals of the workspace at `root`, read from the store once."""
        if self._store is None:
            return {}
        if root not in self._approvals:
            try:
                self._approvals[root] = approvals_in(self._store, root)
            except TrustStoreError as error:
                self._fail(error)
                return {}
        return self._approvals[root]

    def root_of(self, definition: Definition) -> Path:
        """The folder whose approvals gate `definition`: the one its file is read for
        (a subfolder's `.mcp.json` is a server of that subfolder, as `run --guard` has
        it), else this workspace's root."""
        return folder_of(definition.source, self.root)

    def manifest(self, digest: str) -> Mapping[str, Entry] | None:
        if digest not in self._manifests:
            self._manifests[digest] = load_manifest(self.trust_file, digest)
        return self._manifests[digest]

    def status(self, definition: Definition, ignored: Sequence[str] | None = None) -> Status:
        """`ignored` replaces the folders the approval excludes (`trust --ignore-changes-in`)."""
        root = self.root_of(definition)
        if ignored is not None:
            return status_of(definition, root, self.approvals(root), self.environ, self.home,
                             self._lookups, self.manifest, ignored)
        key = id(definition)
        if key not in self._cache:
            self._cache[key] = status_of(definition, root, self.approvals(root),
                                         self.environ, self.home, self._lookups,
                                         self.manifest)
        return self._cache[key]

    def state_of(self, definition: Definition) -> tuple[str, str]:
        status = self.status(definition)
        match status.state:
            case TrustState.CHANGED:
                note = summary(status.changes)
            case TrustState.UNPINNABLE:
                note = status.unpinned or ""
            case TrustState.TRUSTED if status.pins is not None and status.pins.ignored:
                note = f"changes in {', '.join(status.pins.ignored)} ignored"
            case _:
                note = ""
        return status.state.value, note
