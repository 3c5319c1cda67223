"""The folders as git last walked them (`pinning/folder_snapshot.py`), on real folders:
what is kept, what makes a snapshot unusable, and that a kept one is read back only
when well formed."""

from __future__ import annotations

import time
from pathlib import Path

from mcpctl.pinning import folder_snapshot
from mcpctl.pinning.git_index import SETTLED_NS

LATER = 2 * SETTLED_NS  # a walk that began this long after the folders were made


def tree(root: Path) -> Path:
    for folder in ("src", "empty", "dist/sub", "node_modules/pkg", "vendor/lib"):
        (root / folder).mkdir(parents=True)
    (root / "src" / "a.js").write_text("a\n")
    (root / "dist" / "out.map").write_text("map\n")
    (root / "node_modules" / "pkg" / "index.js").write_text("x\n")
    (root / "vendor" / "lib" / "v.js").write_text("v\n")
    (root / ".git").mkdir()
    return root


def test_it_keeps_the_folders_git_and_the_ignored_listing_walk(tmp_path: Path) -> None:
    root = tree(tmp_path / "repo")
    snapshot = folder_snapshot.take(str(root), ["dist/", "node_modules/"], ["vendor"],
                                    time.time_ns() + LATER, others=["src/new.js"])
    assert snapshot is not None
    assert [folder for folder, *_ in snapshot.folders] == ["", "dist/", "dist/sub/",
                                                          "empty/", "src/"]
    assert snapshot.ignored == ["dist/out.map"]
    assert snapshot.others == ["src/new.js"]
    assert folder_snapshot.unchanged(str(root), snapshot) == []
    assert folder_snapshot.loads(folder_snapshot.dumps(snapshot)) == snapshot


def test_a_name_added_anywhere_it_walked_is_a_change(tmp_path: Path) -> None:
    root = tree(tmp_path / "repo")
    snapshot = folder_snapshot.take(str(root), ["dist/", "node_modules/"], ["vendor"],
                                    time.time_ns() + LATER)
    assert snapshot is not None
    (root / "dist" / "sub" / "new.js").write_text("x\n")
    assert folder_snapshot.unchanged(str(root), snapshot) is None


def test_a_mode_change_of_an_ignored_file_shows_in_what_is_pinned(tmp_path: Path) -> None:
    root = tree(tmp_path / "repo")
    snapshot = folder_snapshot.take(str(root), ["dist/"], [], time.time_ns() + LATER)
    assert snapshot is not None
    (root / "dist" / "out.map").chmod(0o700)
    assert folder_snapshot.unchanged(str(root), snapshot) == ["dist/out.map"]


def test_a_folder_changed_within_the_margin_makes_no_snapshot(tmp_path: Path) -> None:
    """The walk began now: a folder written less than `SETTLED_NS` before may change
    again within its clock's tick, unseen."""
    root = tree(tmp_path / "repo")
    assert folder_snapshot.take(str(root), [], [], time.time_ns()) is None


def test_a_malformed_snapshot_is_none(tmp_path: Path) -> None:
    for text in (None, "", "null", "{", "[1, 2]", '[[["", "x", 0, 0]], [], []]', "[[], 5, []]"):
        assert folder_snapshot.loads(text) is None, text
