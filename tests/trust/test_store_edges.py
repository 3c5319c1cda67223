"""The trust store's record check on its own (issue 16): a store that did not come
through `read_store` is still checked record by record, and fails closed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcpctl.trust.store import TrustStoreError, approvals_in, workspace_key


@pytest.mark.parametrize("record", [[1], "sha256:x", None, 3])
def test_a_record_that_is_not_an_object_is_malformed_not_a_crash(tmp_path: Path,
                                                                record: Any) -> None:
    store: Any = {"schema_version": 1, "workspaces": {workspace_key(tmp_path): {"a": record}}}
    with pytest.raises(TrustStoreError, match=r"^the trust store's record of 'a' in .* is "
                                              r"malformed; it was left in place"):
        approvals_in(store, tmp_path)


def test_a_record_without_a_fingerprint_approves_nothing(tmp_path: Path) -> None:
    store: Any = {"schema_version": 1, "workspaces": {workspace_key(tmp_path): {
        "a": {"approved_at": "x"}, "b": {"fingerprint": "sha256:" + "1" * 64}}}}
    approvals = approvals_in(store, tmp_path)
    assert list(approvals) == ["b"]
    assert (approvals["b"].approved_at, dict(approvals["b"].definition)) == ("", {})
