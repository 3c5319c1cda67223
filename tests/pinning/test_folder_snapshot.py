"""The folders as git last walked them (`pinning/folder_snapshot.py`), on real folders:
what is kept, what makes a snapshot unusable, and that a kept one is read back only
when well formed."""

from __future__ import annotations

from pathlib import Path

from mcpctl.pinning import folder_snapshot
from mcpctl.pinning.git_index import SETTLED_NS


def after_settling(root: Path) -> int:
    """A moment past the margin after the newest folder under `root` was written, as the
    filesystem stamped it: a walk that began then finds them all settled."""
    stamps = [max(folder.lstat().st_mtime_ns, folder.lstat().st_ctime_ns)
              for folder in [root, *root.rglob("*")] if folder.is_dir()]
    return max(stamps) + SETTLED_NS


def newest(root: Path) -> int:
    """The moment the newest folder under `root` was written: a walk that began then
    finds it within the margin."""
    return after_settling(root) - SETTLED_NS


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
                                    after_settling(root), others=["src/new.js"])
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
                                    after_settling(root))
    assert snapshot is not None
    (root / "dist" / "sub" / "new.js").write_text("x\n")
    assert folder_snapshot.unchanged(str(root), snapshot) is None


def test_a_mode_change_of_an_ignored_file_shows_in_what_is_pinned(tmp_path: Path) -> None:
    root = tree(tmp_path / "repo")
    snapshot = folder_snapshot.take(str(root), ["dist/"], [], after_settling(root))
    assert snapshot is not None
    (root / "dist" / "out.map").chmod(0o700)
    assert folder_snapshot.unchanged(str(root), snapshot) == ["dist/out.map"]


def test_a_folder_changed_within_the_margin_makes_no_snapshot(tmp_path: Path) -> None:
    """The walk began now: a folder written less than `SETTLED_NS` before may change
    again within its clock's tick, unseen."""
    root = tree(tmp_path / "repo")
    assert folder_snapshot.take(str(root), [], [], newest(root)) is None


def test_a_malformed_snapshot_is_none(tmp_path: Path) -> None:
    for text in (None, "", "null", "{", "[1, 2]", '[[["", "x", 0, 0]], [], []]', "[[], 5, []]"):
        assert folder_snapshot.loads(text) is None, text
    kept = folder_snapshot.dumps(folder_snapshot.Snapshot([("", 1, 2, 3)], [], ["a.js"]))
    assert folder_snapshot.loads(kept) is not None
    assert folder_snapshot.loads(kept.replace("a.js", "b.js")) is None  # its digest
