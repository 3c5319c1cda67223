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


def test_a_virtual_environment_in_an_ignored_folder_is_not_walked(tmp_path: Path) -> None:
    """`ignored_loadable` does not look inside an ignored virtual environment, so neither
    does the snapshot: its files are no candidates and its folders no part of it.
    Planted by hand: the `pyvenv.cfg` check left out (the venv's `bin/python` became an
    ignored file to pin, which the exact pass never pins)."""
    root = tree(tmp_path / "repo")
    venv = root / "env"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "bin" / "python").write_text("#!/bin/sh\n")
    (venv / "bin" / "python").chmod(0o755)
    snapshot = folder_snapshot.take(str(root), ["env/"], [], after_settling(root))
    assert snapshot is not None
    assert "env/" in [folder for folder, *_ in snapshot.folders]
    assert "env/bin/" not in [folder for folder, *_ in snapshot.folders]
    assert snapshot.ignored == []


def test_a_link_to_a_folder_is_not_walked_as_one(tmp_path: Path) -> None:
    """A symlink is a name in its folder, never a folder to walk: git does not follow it
    either, and one pointing at its own folder would walk forever. Planted by hand:
    the children's `is_dir` following links (the linked folders were walked)."""
    root = tree(tmp_path / "repo")
    (root / "src" / "again").symlink_to(root / "src")
    (root / "elsewhere").symlink_to(tmp_path)
    snapshot = folder_snapshot.take(str(root), [], [], after_settling(root))
    assert snapshot is not None
    assert [folder for folder, *_ in snapshot.folders] == [
        "", "dist/", "dist/sub/", "empty/", "node_modules/", "node_modules/pkg/", "src/",
        "vendor/", "vendor/lib/"]


def test_past_its_limit_there_is_no_snapshot(tmp_path: Path) -> None:
    """Bounded: a tree of more folders and files than `limit` keeps none (git walks it).
    Planted by hand: the limit's check left out."""
    root = tree(tmp_path / "repo")
    assert folder_snapshot.take(str(root), [], [], after_settling(root), limit=9) is not None
    assert folder_snapshot.take(str(root), [], [], after_settling(root), limit=8) is None


def test_a_snapshot_whose_digest_differs_in_its_last_digit_is_none() -> None:
    """The kept digest is compared whole. Planted by hand: compared by its first 8
    characters (a damaged tail passed)."""
    kept = folder_snapshot.dumps(folder_snapshot.Snapshot([("", 1, 2, 3)], [], ["a.js"]))
    digest = kept[2:66]
    damaged = kept.replace(digest, digest[:-1] + ("0" if digest[-1] != "0" else "1"), 1)
    assert damaged != kept
    assert folder_snapshot.loads(damaged) is None
