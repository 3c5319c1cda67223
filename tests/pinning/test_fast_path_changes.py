"""What the fast path answers when files did change: every change reaches the set,
whatever its count or its digest, and a change that cannot be pinned is refused.

Each repo is approved and started once (the cache written, the fast path on), then
changed; the start after is shown to take the fast path (`fast`), so the exact pass
never covers for it.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from mcpctl.pinning.git_index import SETTLED_NS
from tests.pinning.repos import git_repo
from tests.pinning.test_fast_path import FILES, SERVER, cli, fast, recorded_run, refused


def approved(root: Path, files: dict[str, str]) -> Path:
    git_repo(root, {**FILES, **files, ".mcp.json": json.dumps(SERVER)})
    time.sleep(SETTLED_NS / 1e9 + 0.2)  # settled: in the private index
    assert cli(root, "trust", "srv", "--yes").code == 0
    assert cli(root, "run", "srv").code == 0
    return root


def test_more_changed_files_than_are_read_over_the_cache_are_all_seen(
        tmp_path: Path) -> None:
    """Past MAX_OVERLAY (256) changed rows the fast path merges them into the cache it
    writes again. Planted by hand: that merge left out (the structural `:370`): the
    300 edits were answered with the approved digests, and the server ran."""
    files = {f"lib/m{number:03d}.js": f"{number}\n" for number in range(300)}
    root = approved(tmp_path / "repo", files)
    for relative in files:
        (root / relative).write_text("edited after approval\n")
    result, calls = recorded_run(root, tmp_path / "calls")
    assert refused(result, "lib/m000.js modified", "lib/m299.js modified"), result.err[:200]
    assert fast(calls), calls


def _same_first_digit(old: str) -> str:
    """Another text whose SHA-256 begins with the same hex digit as `old`'s."""
    first = hashlib.sha256(old.encode()).hexdigest()[0]
    return next(text for number in range(1000) if (text := f"edited {number}\n") != old
                and hashlib.sha256(text.encode()).hexdigest()[0] == first)


def test_an_edit_whose_digest_begins_as_the_old_one_is_seen(tmp_path: Path) -> None:
    """A changed file's digest is compared whole: `sha256:` and its first hex digit are
    shared by one edit in 16. Planted by hand: the digests compared by 8 characters
    (the structural `:454`): the edit was not in the overlay, and the server ran."""
    root = approved(tmp_path / "repo", {"lib/c.js": "approved\n"})
    (root / "lib" / "c.js").write_text(_same_first_digit("approved\n"))
    result, calls = recorded_run(root, tmp_path / "calls")
    assert refused(result, "lib/c.js modified"), result.err
    assert fast(calls), calls


def test_a_link_out_of_the_workspace_added_after_approval_is_unpinnable(
        tmp_path: Path) -> None:
    """A link to a folder outside, new since the cache was written: the fast path
    hands the set to the exact pass, which makes it unpinnable, so it can never be
    approved, not even as an accepted change. Planted by hand: the fast path's check
    of `unpinned` left out (the structural `:346`): the change was accepted, the link
    in the approved set."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "code.js").write_text("elsewhere\n")
    root = approved(tmp_path / "repo", {})
    (root / "lib" / "out").symlink_to(outside)
    result = cli(root, "trust", "srv", "--yes", "--accept-changed")
    assert result.code == 4, result.err
    assert "lib/out: a symlink to a folder outside the workspace" in result.err
    assert cli(root, "run", "srv").code == 4
