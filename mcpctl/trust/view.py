"""Trust status for display: reads the store once, never fails a listing."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from mcpctl.model import Definition, Problem
from mcpctl.pinning.pinned_files import Lookups
from mcpctl.trust.state import Approval, TrustState, summary
from mcpctl.trust.status import Status, status_of
from mcpctl.trust.store import TrustStoreError, approvals_in, read_store


class TrustStates:
    """Statuses of definitions in one workspace; a bad store is a problem, not a crash.

    While the store is unreadable every workspace server shows as untrusted — nothing
    is trusted — and the store's problem is reported.
    """

    def __init__(self, root: Path, trust_file: Path, *,
                 environ: Mapping[str, str], home: Path) -> None:
        self.root = root
        # What a launch from here would expand with (DESIGN §4: it decides the pinned files).
        self._environ = environ
        self._home = home
        self._lookups = Lookups()
        self.problems: list[Problem] = []
        self._approvals: dict[str, Approval] = {}
        self._cache: dict[int, Status] = {}
        try:
            self._approvals = approvals_in(read_store(trust_file), root)
        except TrustStoreError as error:
            self.problems.append(Problem(trust_file, 1, 1, str(error)))

    def status(self, definition: Definition) -> Status:
        key = id(definition)
        if key not in self._cache:
            self._cache[key] = status_of(definition, self.root, self._approvals,
                                         self._environ, self._home, self._lookups)
        return self._cache[key]

    def state_of(self, definition: Definition) -> tuple[str, str]:
        status = self.status(definition)
        match status.state:
            case TrustState.CHANGED:
                note = summary(status.changes)
            case TrustState.UNPINNABLE:
                note = status.unpinned or ""
            case _:
                note = ""
        return status.state.value, note
