"""The trust status's own values: the diffstat of one file, and statuses that stay put."""

from __future__ import annotations

import dataclasses

import pytest

from mcpctl.pinning.pin_set import ABSENT
from mcpctl.pinning.workspace import Entry
from mcpctl.trust.state import TrustState
from mcpctl.trust.status import FileChange, Status

BEFORE = Entry("sha256:" + "1" * 64, size=12, lines=3)
AFTER = Entry("sha256:" + "2" * 64, size=20, lines=5)


def test_a_file_counts_its_lines_before_and_after() -> None:
    assert FileChange("a.js", "modified", BEFORE, AFTER).stat() == "3 → 5 lines"
    assert FileChange("a.js", "added", None, AFTER).stat() == "5 lines"
    assert FileChange("a.js", "removed", BEFORE, None).stat() == "3 lines"


def test_a_runner_input_approved_absent_counts_only_its_new_lines() -> None:
    # A runner's input is approved "absent" (an entry, not a missing one); creating it
    # is an addition, and an addition has no "before".
    assert FileChange(".npmrc", "added", Entry(ABSENT), AFTER).stat() == "5 lines"


def test_a_runner_input_deleted_counts_only_its_old_lines() -> None:
    assert FileChange(".npmrc", "removed", BEFORE, Entry(ABSENT)).stat() == "3 lines"


def test_a_status_cannot_be_changed_by_one_of_the_reports_that_share_it() -> None:
    # One status per definition serves every report of a command (trust/view.py).
    status = Status(TrustState.CHANGED, "sha256:" + "3" * 64, [], changes=["cwd: a → b"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        status.state = TrustState.TRUSTED  # type: ignore[misc]
    change = FileChange("a.js", "modified", BEFORE, AFTER)
    with pytest.raises(dataclasses.FrozenInstanceError):
        change.what = "added"  # type: ignore[misc]
