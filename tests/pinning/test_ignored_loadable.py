"""Which of git's ignored paths are pinned (`pinning/ignored.py`, issue 23 item 2): what
a launch can load, also deep inside an ignored folder, never inside a folder the user's
own tools make. Called with the paths as git lists them (a folder ends in `/`)."""

from __future__ import annotations

import os
from pathlib import Path

from mcpctl.pinning.ignored import ignored_loadable


def write(root: Path, relative: str, text: str = "x\n") -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_an_ignored_folder_is_walked_to_its_depth_and_tool_made_folders_are_not(
        tmp_path: Path) -> None:
    """Planted by hand, each failed: a folder found inside an ignored folder not walked
    (`ignored.py:68`, `:69`: `vendor/lib/deep.py` unpinned); a `node_modules` inside one
    walked (`:66`); a listed path in a tool-made folder taken (`:45`); a link inside one
    judged by what it leads to (`:70`: a link to a data file was not pinned, though
    retargeting it changes what runs); a link to a folder walked as a folder (`:68`
    following links: the link went unpinned and the files behind it were pinned)."""
    root = tmp_path / "repo"
    write(root, "vendor/lib/deep.py")
    write(root, "vendor/node_modules/dep/index.js")
    write(root, "vendor/notes.txt")
    write(root, "node_modules/top.js")
    write(root, "build/node_modules/listed.js")
    write(root, "data.txt")
    write(root, "elsewhere/a.py")
    os.symlink("../data.txt", root / "vendor" / "run")
    os.symlink("../elsewhere", root / "vendor" / "out")
    listed = ["vendor/", "node_modules/", "build/node_modules/listed.js"]
    assert sorted(ignored_loadable(str(root), listed, 100)) == [
        "vendor/lib/deep.py", "vendor/out", "vendor/run"]


def test_each_kind_of_loadable_file_is_pinned_and_data_is_not(tmp_path: Path) -> None:
    """Code by its suffix, also the packaged kinds (a wheel, an egg, a zipapp) a path
    entry can load and a `.npmrc` that points npm elsewhere; an executable of any name;
    data files never. Planted by hand: the last suffix dropped from the list
    (`ignored.py:35`: the wheel went unpinned)."""
    root = tmp_path / "repo"
    names = ["lib.whl", "old.egg", "app.pyz", ".npmrc", "site.pth", "ext.so", "tool.mjs",
             "readme.md", "data.json", "notes.txt"]
    for name in names:
        write(root, name)
    write(root, "start")
    (root / "start").chmod(0o755)
    assert sorted(ignored_loadable(str(root), [*names, "start"], 100)) == [
        ".npmrc", "app.pyz", "ext.so", "lib.whl", "old.egg", "site.pth", "start",
        "tool.mjs"]
