"""Where pinning's git comes from and which tree it lists (issue 30: each test was shown
to fail with the bug planted by hand, as its docstring says)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mcpctl.pinning.git import index_stat, rules_of
from tests.conftest import run_mcpctl
from tests.pinning.repos import git, git_repo

SERVER = {"mcpServers": {"srv": {"command": "bash", "args": ["run.sh"]}}}


def state(root: Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    listed = run_mcpctl(["list", "--json", "-w", str(root)], cwd=cwd, env=env)
    assert listed.code in (0, 1), listed.err
    return str(json.loads(listed.out)["servers"][0]["state"])


def test_a_git_in_the_workspace_is_not_run_through_a_relative_path_entry(
    tmp_path: Path
) -> None:
    """With `.` first on PATH and the workspace as the current folder, a `git` the repo
    ships would be found first; mcpctl takes git from absolute PATH entries only.

    Planted by hand, dropping `os.path.isabs(entry)` from `git_program` ran the repo's
    `git`: its marker appeared."""
    root = git_repo(tmp_path / "repo", {".mcp.json": json.dumps(SERVER), "run.sh": "true\n"})
    fake = root / "git"
    fake.write_text(f"#!/bin/sh\ntouch {tmp_path / 'MARKER'}\nexit 1\n")
    fake.chmod(0o755)
    env = {"PATH": f".{os.pathsep}{os.environ['PATH']}"}
    assert state(root, root, env) == "untrusted"
    assert run_mcpctl(["trust", "srv", "--yes", "-w", str(root)], cwd=root, env=env).code == 0
    assert state(root, root, env) == "trusted"
    assert not (tmp_path / "MARKER").exists()


@pytest.mark.parametrize("elsewhere", ["benign", "repo"], ids=["apart", "name-prefix"])
def test_a_work_tree_git_places_elsewhere_is_not_this_workspace_listing(
    tmp_path: Path, elsewhere: str
) -> None:
    """A delivered `.git/config` with `core.worktree` elsewhere makes git list another
    folder's files; mcpctl then walks the workspace itself, so a file only this folder
    holds is pinned. That holds when the other folder's path is the start of this one's
    too (`/x/repo` for `/x/repo-evil`).

    Planted by hand, dropping the `--show-toplevel` comparison in `work_tree_files`
    pinned the other tree's listing: `lib.sh`'s change stayed `trusted`; so did the
    comparison made by text without the `/` (`git.py:293`), for the second."""
    benign = git_repo(tmp_path / elsewhere, {"run.sh": "true\n"})
    root = tmp_path / "repo-evil"
    root.mkdir()
    (root / ".mcp.json").write_text(json.dumps(SERVER))
    (root / "run.sh").write_text(". ./lib.sh\n")
    (root / "lib.sh").write_text("true\n")
    os.rename(benign / ".git", root / ".git")
    git(root, "config", "core.worktree", str(benign))
    assert run_mcpctl(["trust", "srv", "--yes", "-w", str(root)], cwd=tmp_path).code == 0
    assert state(root, tmp_path) == "trusted"
    (root / "lib.sh").write_text(f"touch {tmp_path / 'MARKER'}\n")
    assert state(root, tmp_path) == "changed"
    assert run_mcpctl(["run", "srv", "-w", str(root)], cwd=tmp_path).code == 4
    assert not (tmp_path / "MARKER").exists()


def test_a_link_to_a_folder_beside_the_workspace_with_a_longer_name_is_outside(
    tmp_path: Path
) -> None:
    """`/x/repo-evil` starts with the text `/x/repo` but is not inside `/x/repo`: a link
    to a folder there is a folder outside, which mcpctl cannot pin.

    Planted by hand, `real.startswith(self.real_root)` (no `/`) counted it inside: the
    approval went through and a change in that folder ran under it."""
    root = tmp_path / "repo"
    evil = tmp_path / "repo-evil" / "lib"
    evil.mkdir(parents=True)
    (evil / "run.sh").write_text("true\n")
    root.mkdir()
    (root / ".mcp.json").write_text(json.dumps(
        {"mcpServers": {"srv": {"command": "bash", "args": ["lib/run.sh"]}}}))
    (root / "lib").symlink_to(evil)
    trusted = run_mcpctl(["trust", "srv", "--yes", "-w", str(root)], cwd=tmp_path)
    assert trusted.code == 4
    assert "a symlink to a folder outside the workspace" in trusted.err
    assert state(root, tmp_path) == "unpinnable"


def test_an_index_written_moments_ago_gives_no_stat_to_key_its_paths_by(
        tmp_path: Path) -> None:
    """The repo's path list is kept keyed by its index's stat only once the index has
    settled (3 s): where timestamps are coarse, a second write within the same tick
    leaves the stat as it was, and a list kept by it would miss a file added then.
    Planted by hand: without the settled check (`git.py:276`) the stat of an index
    written just now was given."""
    root = git_repo(tmp_path / "repo", {"a.py": "a"})  # its commit wrote the index now
    assert (root / ".git" / "index").is_file()
    assert index_stat(root) is None


def test_a_missing_exclude_file_reads_as_an_empty_one(tmp_path: Path) -> None:
    """Git reads no `info/exclude` as no rules, so the rules' digest is the same with
    the file missing or empty. Planted by hand: without the empty text put in a missing
    file's place (`git.py:315`) the texts after it moved up, and with the user's
    excludes missing too `rules_of` ended in an IndexError."""
    root = git_repo(tmp_path / "repo", {"a.py": "a"})
    env = {"HOME": str(tmp_path / "home")}
    exclude = root / ".git" / "info" / "exclude"
    exclude.write_text("")
    empty = rules_of(str(root / ".git"), env)
    exclude.unlink()
    assert empty is not None
    assert rules_of(str(root / ".git"), env) == empty


def test_the_user_s_own_excludes_file_counts_in_the_rules(tmp_path: Path) -> None:
    """With `XDG_CONFIG_HOME` unset git reads `~/.config/git/ignore`, so a change there
    changes the rules' digest (and the kept listing is not used). Planted by hand: with
    the variable taken as it is when empty (`git.py:327`), `git/ignore` was looked for
    in the current folder and the user's file never read."""
    root = git_repo(tmp_path / "repo", {"a.py": "a"})
    home = tmp_path / "home"
    ignore = home / ".config" / "git" / "ignore"
    ignore.parent.mkdir(parents=True)
    ignore.write_text("*.log\n")
    env = {"HOME": str(home), "XDG_CONFIG_HOME": ""}
    before = rules_of(str(root / ".git"), env)
    ignore.write_text("*.log\nsecret.py\n")
    assert rules_of(str(root / ".git"), env) != before
