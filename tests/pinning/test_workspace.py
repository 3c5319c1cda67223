"""The whole workspace as an approval covers it: git's files or every file, a digest each,
links pinned as links, the repo's git configuration never run, a cache that never lies."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcpctl.errors import ConfigError
from mcpctl.pinning import digest_cache
from mcpctl.pinning.git import git_environment
from mcpctl.pinning.git_index import SETTLED_NS
from mcpctl.pinning.workspace import FOLDER, GIT, MAX_FILES, workspace_files
from tests.cli.test_run import workspace_with
from tests.components import require_program
from tests.conftest import REPO, run_mcpctl
from tests.pinning.repos import git, git_repo

ENV = dict(os.environ)


def sha(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def digests_of(root: Path, cache: Path | None = None) -> dict[str, str]:
    return {path: entry.digest for path, entry in workspace_files(root, ENV, cache).entries.items()}


def test_a_work_tree_pins_tracked_unignored_and_ignored_code_files(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {".gitignore": "build/\n*.log\n", "src/a.js": "a\n",
                                        "cached/__pycache__/m.cpython-311.pyc": "tracked"})
    (root / "new.js").write_text("untracked\n")
    (root / "build").mkdir()
    (root / "build" / "out.js").write_text("ignored\n")
    (root / "x.log").write_text("ignored\n")
    (root / "pkg" / "__pycache__").mkdir(parents=True)
    (root / "pkg" / "__pycache__" / "m.cpython-311.pyc").write_text("python wrote me")
    listing = workspace_files(root, ENV)
    assert listing.source == GIT
    assert {path: entry.digest for path, entry in listing.entries.items()} == {
        ".gitignore": sha("build/\n*.log\n"), "src/a.js": sha("a\n"), "new.js": sha("untracked\n"),
        # ignored but there, and code a launch can load (issue 23); the log is not
        "build/out.js": sha("ignored\n"),
        # committed bytecode replaces the reviewed source: pinned like any file
        "cached/__pycache__/m.cpython-311.pyc": sha("tracked")}
    assert listing.unpinned is None


def test_outside_git_every_file_under_the_root_counts(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    (root / "node_modules" / "x").mkdir(parents=True)
    (root / "node_modules" / "x" / "index.js").write_text("x\n")
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "m.pyc").write_text("b")
    listing = workspace_files(root, ENV)
    assert listing.source == FOLDER
    assert {path: e.digest for path, e in listing.entries.items()} == {
        "node_modules/x/index.js": sha("x\n"), "__pycache__/m.pyc": sha("b")}


HASH_UNDER_A_LIMIT = """\
import json, resource, sys
from pathlib import Path
resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
from mcpctl.pinning.workspace import workspace_files
listing = workspace_files(Path(sys.argv[1]), {"PATH": "/usr/bin:/bin"})
print(json.dumps([listing.unpinned, {p: e.digest for p, e in listing.entries.items()}]))
"""


def test_a_workspace_of_more_files_than_the_open_file_limit_is_hashed(tmp_path: Path) -> None:
    """Each file is closed once read: 300 files hash under a limit of 64 open files.
    Fails with the close after the read left out (structural mutant: one descriptor
    leaked per file, then every later file unreadable)."""
    root = tmp_path / "many"
    root.mkdir()
    for number in range(300):
        (root / f"f{number}.js").write_text(f"{number}\n")
    done = subprocess.run([sys.executable, "-c", HASH_UNDER_A_LIMIT, str(root)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    unpinned, entries = json.loads(done.stdout)
    assert unpinned is None
    assert entries == {f"f{number}.js": sha(f"{number}\n") for number in range(300)}


FIVE_FOLDERS = {f"d{folder}/f{number}.js": f"{folder}{number}\n"
                for folder in range(5) for number in range(4)}


def _twenty_files(tmp_path: Path, where: str) -> Path:
    if where == "folder":
        root = tmp_path / "plain"
        for relative, text in FIVE_FOLDERS.items():
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            (root / relative).write_text(text)
        return root
    if where == "git":
        return git_repo(tmp_path / "repo", FIVE_FOLDERS)
    root = git_repo(tmp_path / "repo", {})  # the twenty in a clone inside: walked
    git_repo(root / "inner", FIVE_FOLDERS)
    return root


@pytest.mark.parametrize("where", ["folder", "git", "repository inside"])
def test_past_the_file_bound_nothing_is_pinned_not_a_part(tmp_path: Path, where: str) -> None:
    """Past the bound on listed paths the set carries the reason and no entry: the walk
    (or git's list) stops there, and a part pinned as the whole would let a file past
    it change after approval unseen. MAX_FILES (1.5 million) is more files than a test
    should make, so the test lowers it, as `max_files` lets it. Planted by hand: the
    count check after the listing left out (12 of the 20 files pinned under a bound
    of 11, the set settled). Where the walk stops only saves time: the check refuses
    whatever it listed past the bound."""
    root = _twenty_files(tmp_path, where)
    whole = workspace_files(root, ENV, max_files=20)
    assert whole.unpinned is None
    assert {path.removeprefix("inner/") for path in whole.entries} == set(FIVE_FOLDERS)
    for bound in (19, 11):
        past = workspace_files(root, ENV, max_files=bound)
        assert (past.source, dict(past.entries), past.unpinned) == (
            whole.source, {},
            f"more than {bound} files in the workspace; mcpctl pins at most {bound}")
    assert MAX_FILES == 1_500_000  # the bound this test lowers, as docs/design.md states


def test_a_cache_that_fails_after_the_answer_is_a_clear_error_and_removed(
        tmp_path: Path) -> None:
    """The fast path answers with entries read from the cache when asked: a read that
    fails then (the file damaged meanwhile; here its connection closed) is mcpctl's
    error, and the cache is removed so the next command rebuilds it. Planted by hand:
    that raise left out (the structural `:105`): an UnboundLocalError, a traceback."""
    root = git_repo(tmp_path / "repo", {"a.js": "a\n"})
    time.sleep(SETTLED_NS / 1e9 + 0.2)  # settled: the next pass takes the fast path
    workspace_files(root, ENV, tmp_path / "cache")
    listing = workspace_files(root, ENV, tmp_path / "cache")
    cache = listing.memo
    assert isinstance(cache, digest_cache.Cache)  # the fast path's answer, read lazily
    cache.close()
    with pytest.raises(ConfigError, match=r"unreadable and is removed; run the command "):
        listing.entries["a.js"]
    assert not cache.path.exists()
    assert digests_of(root, tmp_path / "cache") == {"a.js": sha("a\n")}


def test_a_submodule_is_pinned_file_by_file(tmp_path: Path) -> None:
    inner = git_repo(tmp_path / "inner", {"lib.js": "lib\n"})
    root = git_repo(tmp_path / "repo", {"main.js": "main\n"})
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), "vendor")
    git(root, "commit", "-qm", "sub")
    (root / "vendor" / "extra.js").write_text("untracked in the submodule\n")
    assert digests_of(root) == {
        "main.js": sha("main\n"), ".gitmodules": sha((root / ".gitmodules").read_text()),
        "vendor/lib.js": sha("lib\n"), "vendor/extra.js": sha("untracked in the submodule\n")}


def test_a_tracked_file_missing_from_disk_is_left_out_of_a_first_pass(tmp_path: Path) -> None:
    """Deleted but still in git's index: listed by git, gone from disk, so not in the
    set. Planted by hand: an entry kept for it anyway (empty), which every use of the
    set then failed on."""
    root = git_repo(tmp_path / "repo", {"a.js": "a\n", "gone.js": "gone\n"})
    (root / "gone.js").unlink()
    assert digests_of(root) == {"a.js": sha("a\n")}


def test_tracked_names_with_tabs_and_a_gitlink_are_each_listed_once(tmp_path: Path) -> None:
    """git's `ls-files -s` entries are split in C when each holds one tab. Planted by
    hand: that split used whatever the tab count, and `a\\tb.js` became two names (one
    of them `b.js`), so the file itself went unpinned; and a gitlink's mode check
    skipped in the C split, which pinned `vendor` as a missing file, not a folder."""
    inner = git_repo(tmp_path / "inner", {"lib.js": "lib\n"})
    root = git_repo(tmp_path / "repo", {"a\tb.js": "tab\n", "160000 x.js": "odd\n"})
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), "vendor")
    git(root, "commit", "-qm", "sub")
    assert digests_of(root) == {
        "a\tb.js": sha("tab\n"), "160000 x.js": sha("odd\n"),
        ".gitmodules": sha((root / ".gitmodules").read_text()), "vendor/lib.js": sha("lib\n")}
    (root / "only.js").write_text("no tab in any name\n")
    git(root, "rm", "-q", "--cached", "a\tb.js")
    git(root, "commit", "-qm", "no tab")
    assert set(digests_of(root)) == {"a\tb.js", "160000 x.js", "only.js", ".gitmodules",
                                      "vendor/lib.js"}


def test_the_repos_git_configuration_never_runs(tmp_path: Path) -> None:
    """core.fsmonitor names a program `git ls-files --others` would start."""
    root = git_repo(tmp_path / "repo", {"a.js": "a\n"})
    marker = tmp_path / "fsmonitor-ran"
    hook = tmp_path / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch '{marker}'\n")
    hook.chmod(0o755)
    git(root, "config", "core.fsmonitor", str(hook))
    git(root, "config", "core.hooksPath", str(tmp_path))
    git(root, "config", "alias.ls-files", f"!touch '{marker}'")
    # The control: git as the repo configures it runs the repo's program.
    subprocess.run(["git", "-C", str(root), "status", "--porcelain"], env=git_environment(ENV) | {
        "GIT_CONFIG_GLOBAL": os.devnull}, capture_output=True, check=True, timeout=60)
    assert marker.exists()
    marker.unlink()
    assert digests_of(root) == {"a.js": sha("a\n")}
    assert not marker.exists()
    # And end to end: listing a workspace with a server pins it without running the hook.
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"s": {"command": "node",
                                                                      "args": ["a.js"]}}}))
    listed = run_mcpctl(["list", "--json", "-w", str(root)])
    assert json.loads(listed.out)["servers"][0]["state"] == "untrusted"
    assert not marker.exists()


def test_a_git_in_a_relative_path_entry_is_never_run(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"a.js": "a\n"})
    marker = tmp_path / "fake-git-ran"
    (root / "git").write_text(f"#!/bin/sh\ntouch '{marker}'\n")
    (root / "git").chmod(0o755)
    git(root, "add", "git")
    git(root, "commit", "-qm", "git")
    listing = workspace_files(root, {**ENV, "PATH": f".:{ENV['PATH']}"})
    assert listing.source == GIT
    assert not marker.exists()


def test_git_variables_of_the_caller_do_not_point_git_elsewhere(tmp_path: Path) -> None:
    decoy = git_repo(tmp_path / "decoy", {"benign.js": "ok\n"})
    root = git_repo(tmp_path / "repo", {"evil.js": "evil\n"})
    env = {**ENV, "GIT_DIR": str(decoy / ".git"), "GIT_WORK_TREE": str(decoy)}
    assert set(workspace_files(root, env).entries) == {"evil.js"}


def test_a_symlink_is_pinned_as_a_link_with_where_it_leads(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    outside_a, outside_b = tmp_path / "a.sh", tmp_path / "b.sh"
    outside_a.write_text("same\n")
    outside_b.write_text("same\n")
    (root / "run.sh").symlink_to(outside_a)
    first = digests_of(root)["run.sh"]
    assert first.startswith("symlink:sha256:")
    (root / "run.sh").unlink()
    (root / "run.sh").symlink_to(outside_b)  # the same content elsewhere: still a change
    second = digests_of(root)["run.sh"]
    assert second != first
    outside_b.write_text("other\n")  # the outside file it names is pinned by content too
    assert digests_of(root)["run.sh"] not in (first, second)


def test_a_tracked_file_made_executable_is_a_change(tmp_path: Path) -> None:
    """git records a tracked file's executable bit, so a clone has it: a small script
    read on the pass's quick path is pinned with it. Planted: the bit left out there
    (`workspace.py:788`), and `chmod +x` on a tracked script changed nothing pinned."""
    root = git_repo(tmp_path / "repo", {"run.sh": "echo hi\n"})
    before = digests_of(root)["run.sh"]
    (root / "run.sh").chmod(0o755)
    after = digests_of(root)["run.sh"]
    assert (before.startswith("sha256:"), after == "exec:" + before) == (True, True)


def test_a_link_named_like_a_tool_made_folder_is_still_pinned(tmp_path: Path) -> None:
    """In a repository inside the workspace (walked as a folder), only a real folder
    named `node_modules` (or another tool's) is left out: a symlink of that name is an
    entry like any other, pinned with where it leads. Planted: the folder test following
    links (`workspace.py:575`, `follow_symlinks` dropped), and the link was not pinned."""
    root = git_repo(tmp_path / "repo", {"server.js": "ok\n"})
    inner = git_repo(root / "vendor", {"lib/index.js": "module.exports = 1\n"})
    (inner / "node_modules").symlink_to("lib")
    assert digests_of(root)["vendor/node_modules"].startswith("symlink:")


def test_a_folder_the_walk_cannot_read_is_pinned_as_such(tmp_path: Path) -> None:
    """A folder the walk cannot open is an entry of its own (`unreadable:folder`), so the
    approval says what it could not see. Root reads every folder: the listing runs
    without the capabilities that let it (`setpriv`), in a repository inside the
    workspace, which is walked as a folder. Planted: the entry dropped
    (`workspace.py:571`), and the folder was not pinned."""
    setpriv = require_program("setpriv")
    root = git_repo(tmp_path / "repo", {"server.js": "ok\n"})
    inner = git_repo(root / "vendor", {"index.js": "ok\n"})
    (inner / "locked").mkdir()
    (inner / "locked").chmod(0)
    code = ("import json, os, sys; from mcpctl.pinning.workspace import workspace_files; "
            "found = workspace_files(sys.argv[1], dict(os.environ)).entries; "
            "print(json.dumps({path: entry.digest for path, entry in found.items()}))")
    try:
        done = subprocess.run([setpriv, "--bounding-set=-dac_override,-dac_read_search", "--",
                               sys.executable, "-c", code, str(root)], capture_output=True,
                              text=True, timeout=60, check=False, cwd=REPO)
    finally:
        (inner / "locked").chmod(0o755)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["vendor/locked/"] == "unreadable:folder"


def test_a_symlink_to_an_outside_folder_makes_the_set_unpinned(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    (tmp_path / "lib").mkdir()
    (root / "vendor").symlink_to(tmp_path / "lib")
    listing = workspace_files(root, ENV)
    assert listing.unpinned == (f"vendor: a symlink to a folder outside the workspace "
                                f"({tmp_path / 'lib'}); mcpctl cannot pin what it holds")


def test_special_files_are_pinned_by_kind_never_opened(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    os.mkfifo(root / "pipe")
    assert digests_of(root) == {"pipe": "special:p"}


def test_the_cache_is_used_and_a_swap_that_restores_the_mtime_is_still_seen(
    tmp_path: Path
) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    (root / "server.js").write_text("good\n")
    cache = tmp_path / "cache"
    assert digests_of(root, cache) == {"server.js": sha("good\n")}
    saved = digest_cache.load(cache, str(root))
    assert saved is not None
    row = saved.row("server.js")
    assert row is not None
    assert (row.digest, row.lines) == (sha("good\n"), 1)
    before = os.stat(root / "server.js")
    (root / "server.js").write_text("evil\n")  # same size
    os.utime(root / "server.js", ns=(before.st_atime_ns, before.st_mtime_ns))
    assert digests_of(root, cache) == {"server.js": sha("evil\n")}
    assert stat.S_IMODE(os.stat(digest_cache.cache_file(cache, str(root))).st_mode) == 0o600


def test_a_git_pull_that_changes_no_file_keeps_the_approval(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"server.sh": "true\n"})
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "s": {"command": "bash", "args": ["server.sh"]}}}))
    assert run_mcpctl(["trust", "s", "--yes", "-w", str(root)]).code == 0
    git(root, "commit", "-q", "--allow-empty", "-m", "nothing")
    os.utime(root / "server.sh")  # touched, same content
    listed = json.loads(run_mcpctl(["list", "--json", "-w", str(root)]).out)["servers"]
    assert [(row["name"], row["state"]) for row in listed] == [("s", "trusted")]


def test_three_changed_files_are_named_together(tmp_path: Path) -> None:
    root = workspace_with(tmp_path, {"s": {"command": "node", "args": ["src/server.js"]}})
    (root / "src").mkdir()
    (root / "src" / "server.js").write_text("a\n")
    assert run_mcpctl(["trust", "s", "--yes", "-w", str(root)]).code == 0
    (root / "src" / "server.js").write_text("a\nb\nc\n")
    (root / "lib").mkdir()
    (root / "lib" / "x.js").write_text("x\n")
    (root / ".npmrc").write_text("node-options=--require ./lib/x.js\n")
    listed = json.loads(run_mcpctl(["list", "--json", "-w", str(root)]).out)["servers"][0]
    assert (listed["state"], listed["note"]) == (
        "changed", "3 files changed since approval: .npmrc added, lib/x.js added, "
        "src/server.js modified")
    again = run_mcpctl(["trust", "s", "--yes", "-w", str(root)])
    assert again.out.startswith(
        "3 files changed in the workspace since the last approval:\n"
        "  .npmrc added (1 lines)\n  lib/x.js added (1 lines)\n"
        "  src/server.js modified (1 → 3 lines)\ns  (changed) from ")


def test_a_cache_renamed_to_another_roots_name_is_not_read(tmp_path: Path) -> None:
    """A cache is named by its root's digest and names its root inside too: one copied
    or renamed to another root's name (the two alike in their first characters) is not
    read. Planted by hand: the roots compared by their first 8 characters."""
    cache_dir = tmp_path / "cache"
    first, second = str(tmp_path / "workspace-one"), str(tmp_path / "workspace-two")
    digest_cache.save(cache_dir, first, [], {}, "generation")
    assert digest_cache.load(cache_dir, first) is not None
    os.replace(digest_cache.cache_file(cache_dir, first),
               digest_cache.cache_file(cache_dir, second))
    assert digest_cache.load(cache_dir, second) is None


def test_the_json_cache_of_an_older_mcpctl_is_removed_when_a_cache_is_written(
        tmp_path: Path) -> None:
    """Before SQLite the cache was JSON beside it (14 MB at 100,000 files): the first
    cache written in its place removes it. Planted by hand: the removal left out."""
    root = tmp_path / "plain"
    root.mkdir()
    (root / "server.js").write_text("good\n")
    cache = tmp_path / "cache"
    older = digest_cache.cache_file(cache, str(root)).with_suffix(".json")
    older.parent.mkdir(parents=True)
    older.write_text('{"rows": {}}')
    assert digests_of(root, cache) == {"server.js": sha("good\n")}
    assert digest_cache.cache_file(cache, str(root)).exists()
    assert not older.exists()
