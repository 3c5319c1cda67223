"""The trust store's record check on its own (issue 16): a store that did not come
through `read_store` is still checked record by record, and fails closed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcpctl.trust.store import TrustStoreError, approvals_in, update_store, workspace_key


@pytest.mark.parametrize("record", [[1], "sha256:x", None, 3])
def test_a_record_that_is_not_an_object_is_malformed_not_a_crash(tmp_path: Path,
                                                                record: Any) -> None:
    store: Any = {"schema_version": 1, "workspaces": {workspace_key(tmp_path): {"a": record}}}
    with pytest.raises(TrustStoreError, match=r"^the trust store's record of 'a' in .* is "
                                              r"malformed; it was left in place"):
        approvals_in(store, tmp_path)


def test_a_record_without_a_fingerprint_approves_nothing(tmp_path: Path) -> None:
    """Whatever else it holds: a record with no fingerprint is skipped, not read as a
    malformed approval. Fails with that skip left out (structural mutant: the record
    whose definition is not an object made the whole store malformed)."""
    store: Any = {"schema_version": 1, "workspaces": {workspace_key(tmp_path): {
        "a": {"approved_at": "x"}, "b": {"fingerprint": "sha256:" + "1" * 64},
        "c": {"approved_at": 5, "definition": "not an object"}}}}
    approvals = approvals_in(store, tmp_path)
    assert list(approvals) == ["b"]
    assert (approvals["b"].approved_at, dict(approvals["b"].definition)) == ("", {})


def test_the_store_is_written_with_one_space_indents(tmp_path: Path) -> None:
    path = tmp_path / "trust.json"
    update_store(path, lambda store: store["workspaces"].setdefault("/w", {"é": {}}))
    assert path.read_text() == ('{\n "schema_version": 2,\n "workspaces": {\n  "/w": {\n'
                                '   "é": {}\n  }\n }\n}\n')  # UTF-8, not \\u escapes
