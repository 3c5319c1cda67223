"""The fast path (issue 24): git says what differs from mcpctl's private index, only that
is hashed again, and nothing a repo can forge turns `changed` into `trusted`.

Each case is caught by a real `mcpctl run` whose git commands are recorded (an audit
hook in the mcpctl process): `ls-files -m -d -o` against the private index (or
`diff-files`, when no folder changed) ran and the exact pass (`ls-files -s` of every
tracked file) did not. The repos are made once for the module and left to settle past
`git_index.SETTLED_NS`, so their files are in the private index (a file written less
than that before it was hashed is re-hashed on every start instead, which is the racy
case `test_a_racy_rewrite_within_the_tick_is_caught` covers).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from mcpctl.pinning import digest_cache
from mcpctl.pinning.git_index import SETTLED_NS, write_index
from mcpctl.pinning.workspace import FOLDER, _watched_digest, workspace_files
from tests.conftest import Result
from tests.pinning.repos import git, git_repo

REPO = Path(__file__).resolve().parents[2]
SERVER = {"mcpServers": {"srv": {"command": "bash", "args": ["server.sh"]}}}
FILES = {"server.sh": "exit 0\n", "lib/a.js": "a\n", "lib/b.js": "b\n",
         ".gitignore": "*.log\n", "tool": "#!/bin/sh\n"}
CASES = ["reverted", "tracked", "untracked", "ignored", "submodule", "symlink", "link-target",
         "mode", "deleted", "forged-index", "corrupt-index", "corrupt-cache", "git-fails",
         "git-missing", "unchanged", "racy-settled", "gitignore", "untrack", "manifest",
         "settled-new", "chmod-ignored", "empty-folder", "user-excludes", "corrupt-snapshot",
         "corrupt-index-kept", "newer-cache", "index-replaced", "unignored", "env-nogit",
         "silent-rev-parse", "index-copied-back", "folder"]

# Written as each git starts: a `run` that starts its server replaces this process. With
# OPENED_TO, also each path `os.open` opens (what is hashed).
RECORDING = textwrap.dedent("""\
    import json, os, sys
    def hook(event, args):
        if event == "os.posix_spawn" and str(args[0]).endswith("git"):
            with open(os.environ["RECORD_TO"], "a") as out:
                out.write(json.dumps([str(a) for a in args[1]]) + "\\n")
        elif event == "open" and args[1] is None and "OPENED_TO" in os.environ:
            with open(os.environ["OPENED_TO"], "a") as out:
                out.write(str(args[0]) + "\\n")
    sys.addaudithook(hook)
    from mcpctl.cli.main import run
    sys.exit(run(sys.argv[1:]))
    """)


def recorded_run(root: Path, record: Path, env: dict[str, str] | None = None
                 ) -> tuple[Result, list[list[str]]]:
    """`mcpctl run srv` in `root`, and the argv of every git it started."""
    done = subprocess.run(
        [sys.executable, "-c", RECORDING, "run", "srv", "--workspace", str(root)],
        capture_output=True, text=True, cwd=REPO, timeout=120, check=False,
        env={**os.environ, "RECORD_TO": str(record), **(env or {})})
    lines = record.read_text().splitlines() if record.exists() else []
    record.unlink(missing_ok=True)
    calls: list[list[str]] = [json.loads(line) for line in lines]
    return Result(done.returncode, done.stdout, done.stderr), calls


def against_private_index(argv: list[str]) -> bool:
    return ("ls-files" in argv and "-m" in argv and "-d" in argv) or "diff-files" in argv


def fast(calls: list[list[str]]) -> bool:
    return any(map(against_private_index, calls)) and not any(
        "-s" in argv and "ls-files" in argv for argv in calls)


def quiet(calls: list[list[str]]) -> bool:
    """The fast path without a walk (`folder_snapshot`): no folder changed, so git is
    asked only what differs from the private index, not what is new or ignored."""
    return fast(calls) and not any("-o" in argv or "--others" in argv for argv in calls)


def set_kept(cache: Path, key: str, value: str) -> None:
    """One value the cache keeps beside its rows, written over by hand."""
    with contextlib.closing(sqlite3.connect(cache)) as connection:
        assert connection.execute("UPDATE meta SET value = ? WHERE key = ?",
                                  (value, key)).rowcount == 1
        connection.commit()


def cli(root: Path, *args: str) -> Result:
    done = subprocess.run([sys.executable, "-m", "mcpctl", *args, "--workspace", str(root)],
                          capture_output=True, text=True, cwd=REPO, timeout=120, check=False)
    return Result(done.returncode, done.stdout, done.stderr)


@pytest.fixture(scope="module")
def settled_repos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A repo per case, committed, with a submodule and a symlink, left to settle."""
    base = tmp_path_factory.mktemp("fast")
    inner = git_repo(base / "inner", {"dep.js": "dep\n"})
    repos: dict[str, Path] = {}
    for case in CASES:
        root = git_repo(base / case, FILES)
        (root / "tool").chmod(0o644)
        (root / "link.js").symlink_to("lib/a.js")
        git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner),
            "vendor")
        (root / ".mcp.json").write_text(json.dumps(SERVER))
        git(root, "add", "-A")
        git(root, "commit", "-qm", "all")
        (root / "notes.log").write_text("ignored, not code\n")  # `ignored.loadable`: no
        (root / "scratch.txt").write_text("untracked\n")
        (root / "empty").mkdir()
        repos[case] = root
    time.sleep(SETTLED_NS / 1e9 + 0.2)
    return repos


@pytest.fixture
def approved(settled_repos: dict[str, Path]) -> Callable[[str], Path]:
    """The case's repo, approved (in this test's own mcpctl home), then run once."""

    def make(case: str) -> Path:
        root = settled_repos[case]
        assert cli(root, "trust", "srv", "--yes").code == 0
        assert cli(root, "run", "srv").code == 0
        return root

    return make


def refused(result: Result, *named: str) -> bool:
    return (result.code == 4 and result.err.startswith(
        "mcpctl: error: server 'srv' changed since it was approved (")
        and all(name in result.err for name in named))


def test_an_unchanged_workspace_starts_on_the_fast_path(approved: Callable[[str], Path],
                                                        tmp_path: Path) -> None:
    root = approved("unchanged")
    result, calls = recorded_run(root, tmp_path / "calls")
    assert (result.code, result.err) == (0, "")
    assert quiet(calls)
    # One private index, the workspace's: the submodule is walked as a folder (issue 23).
    assert [argv[2] for argv in calls if against_private_index(argv)] == [str(root)]
    # The repo's own index is as it was (its ctime says so): its path list is not read.
    assert [argv for argv in calls if argv[-2:] == ["ls-files", "-z"]] == []


def test_every_file_kept_for_the_fast_path_is_the_users_alone(
        approved: Callable[[str], Path], mcpctl_home: Path) -> None:
    """The cache, the memo beside it, the private index and the folder snapshot name the
    workspace's files: readable by the user alone, as the approvals are, in a folder
    only the user can list. Planted by hand: the private index written with mode 0644;
    the cache's folder made without its mode (0755 here) where the command writes the
    cache, private index and snapshot."""
    approved("unchanged")
    kept = [path for path in mcpctl_home.rglob("*") if path.is_file() and "pins" in path.parts]
    assert {path.suffix for path in kept} >= {".db", ".memo", ".index"}, kept
    assert [path.name for path in kept if path.stat().st_mode & 0o077] == []
    assert (mcpctl_home / "cache" / "pins").stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize(("case", "change", "named"), [
    ("tracked", lambda r: (r / "lib" / "a.js").write_text("A\n"), "lib/a.js modified"),
    ("untracked", lambda r: (r / "lib" / "new.js").write_text("new\n"), "lib/new.js added"),
    ("submodule", lambda r: (r / "vendor" / "dep.js").write_text("evil\n"),
     "vendor/dep.js modified"),
    ("symlink", lambda r: ((r / "link.js").unlink(), (r / "link.js").symlink_to("lib/b.js")),
     "link.js modified"),
    ("link-target", lambda r: (r / "lib" / "a.js").write_text("B\n"), "link.js modified"),
    ("mode", lambda r: (r / "tool").chmod(0o755), "tool modified"),
    ("deleted", lambda r: (r / "lib" / "b.js").unlink(), "lib/b.js removed"),
    # A folder where a tracked file was is no entry of its own, only its files are.
    # Planted: a folder of any name taken for an unreadable one (`workspace.py:827`),
    # and the path git named was "modified" to `unreadable:folder`.
    ("folder", lambda r: ((r / "lib" / "b.js").unlink(), (r / "lib" / "b.js").mkdir(),
                          (r / "lib" / "b.js" / "c.js").write_text("c\n")),
     "file lib/b.js removed; file lib/b.js/c.js added"),
], ids=["tracked", "untracked", "submodule", "symlink", "link-target", "mode", "deleted",
        "folder"])
def test_each_change_is_caught_by_run_on_the_fast_path(
    approved: Callable[[str], Path], tmp_path: Path, case: str,
    change: Callable[[Path], object], named: str
) -> None:
    root = approved(case)
    change(root)
    result, calls = recorded_run(root, tmp_path / "calls")
    assert refused(result, named), result.err
    assert fast(calls)
    again, calls = recorded_run(root, tmp_path / "calls")  # from what the first kept
    assert (again.code, again.err) == (result.code, result.err)
    assert fast(calls)


def test_an_ignored_new_file_is_not_a_change(approved: Callable[[str], Path],
                                             tmp_path: Path) -> None:
    root = approved("ignored")
    (root / "debug.log").write_text("noise\n")
    result, calls = recorded_run(root, tmp_path / "calls")
    assert (result.code, result.err) == (0, "")
    assert fast(calls)


def test_a_racy_rewrite_within_the_tick_is_caught(mcpctl_home: Path, tmp_path: Path) -> None:
    """Rewritten right after it was hashed, same size, its mtime put back: the stat key
    is what it was on a filesystem with a coarse clock. mcpctl hashed it within the
    settling margin, so it is not in the private index and is hashed on every start."""
    root = git_repo(tmp_path / "repo", {"server.sh": "exit 0\n", "x.js": "good\n"})
    (root / ".mcp.json").write_text(json.dumps(SERVER))
    assert cli(root, "trust", "srv", "--yes").code == 0
    before = os.stat(root / "x.js")
    (root / "x.js").write_text("evil\n")
    os.utime(root / "x.js", ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(root / "x.js").st_size == before.st_size
    result, calls = recorded_run(root, tmp_path / "calls")
    assert refused(result, "x.js modified"), result.err
    assert fast(calls)


def test_a_settled_file_rewritten_with_its_mtime_put_back_is_caught(
    approved: Callable[[str], Path], tmp_path: Path
) -> None:
    root = approved("racy-settled")
    before = os.stat(root / "lib" / "a.js")
    (root / "lib" / "a.js").write_text("Z\n")
    os.utime(root / "lib" / "a.js", ns=(before.st_atime_ns, before.st_mtime_ns))
    result, calls = recorded_run(root, tmp_path / "calls")
    assert refused(result, "lib/a.js modified"), result.err
    assert fast(calls)


def test_a_forged_repo_index_that_fools_git_status_does_not_fool_run(
    approved: Callable[[str], Path], tmp_path: Path
) -> None:
    """The repo's `.git/index` is rewritten (as a tarball could bring it) with the
    approved object ids and the stat data of the swapped file: `git status` then says
    nothing changed. mcpctl never reads that index's stat data."""
    root = approved("forged-index")
    before = os.stat(root / "lib" / "a.js")
    (root / "lib" / "a.js").write_text("Z\n")
    os.utime(root / "lib" / "a.js", ns=(before.st_atime_ns, before.st_mtime_ns))
    staged = [line.split("\t") for line in git(root, "ls-files", "-s").splitlines()]
    entries = []
    for meta, name in sorted(staged, key=lambda pair: pair[1].encode()):
        mode, oid, _ = meta.split()
        if mode == "160000":  # the submodule's commit, as git keeps it
            entries.append((name.encode(), (0, 0, 0, 0, 0o160000, 0, 0, 0), bytes.fromhex(oid)))
            continue
        status = os.lstat(root / name)
        entries.append((name.encode(), (status.st_size, status.st_mtime_ns,
                                        status.st_ctime_ns, status.st_ino, status.st_mode, 0,
                                        status.st_uid, status.st_gid), bytes.fromhex(oid)))
    trailer = write_index(tmp_path, entries)
    shutil.copy(tmp_path / f"{trailer}.index", root / ".git" / "index")
    # The control: git's own status trusts the forged stat data and sees no change.
    said = git(root, "status", "--porcelain", "--untracked-files=no")
    assert "lib/a.js" not in said
    result, calls = recorded_run(root, tmp_path / "calls")
    assert refused(result, "lib/a.js modified"), result.err
    assert fast(calls)


def flip_assume_unchanged(mcpctl_home: Path, name: bytes) -> None:
    """Set the assume-unchanged bit of `name`'s entry in the private index, in place."""
    flipped = 0
    for index in mcpctl_home.rglob("*.index"):
        data = bytearray(index.read_bytes())
        offset = 12
        while offset < len(data) - 20:
            length = int.from_bytes(data[offset + 60:offset + 62], "big") & 0xFFF
            if data[offset + 62:offset + 62 + length] == name:
                data[offset + 60] |= 0x80  # the assume-unchanged bit
                flipped += 1
            offset += 62 + length + (8 - (62 + length) % 8)
        index.write_bytes(bytes(data))
    assert flipped == 1


def test_a_corrupted_private_index_falls_back_to_the_exact_pass(
    approved: Callable[[str], Path], mcpctl_home: Path, tmp_path: Path
) -> None:
    """One flipped bit: lib/b.js's assume-unchanged flag. git does not check an index's
    checksum when it reads it, so without mcpctl's own check (`git_index.intact`) git
    would never look at that file again (remove the check and this test fails)."""
    root = approved("corrupt-index")
    flip_assume_unchanged(mcpctl_home, b"lib/b.js")
    (root / "lib" / "b.js").write_text("Q\n")
    result, calls = recorded_run(root, tmp_path / "calls")
    assert refused(result, "lib/b.js modified"), result.err
    assert any("-s" in argv and "ls-files" in argv for argv in calls)  # the exact pass ran
    (root / "lib" / "b.js").write_text("b\n")
    again, _ = recorded_run(root, tmp_path / "calls")
    assert (again.code, again.err) == (0, "")


def test_a_corrupted_cache_falls_back_to_the_exact_pass(
    approved: Callable[[str], Path], mcpctl_home: Path, tmp_path: Path
) -> None:
    root = approved("corrupt-cache")
    caches = list(mcpctl_home.rglob("pins/*.db"))
    assert caches
    for cache in caches:
        cache.write_bytes(b"SQLite format 3\0" + os.urandom(4096))
    (root / "lib" / "b.js").write_text("B\n")
    result, calls = recorded_run(root, tmp_path / "calls")
    assert refused(result, "lib/b.js modified"), result.err
    assert any("-s" in argv and "ls-files" in argv for argv in calls)


def test_a_cache_of_another_schema_is_rebuilt_never_read(
    approved: Callable[[str], Path], mcpctl_home: Path, tmp_path: Path
) -> None:
    """A newer mcpctl's cache (another schema, a column more), as a downgrade leaves
    it: set aside, and the exact pass rebuilds it. With the schema check forced true
    its rows are read as this version's, and the start fails (exit 70)."""
    root = approved("newer-cache")
    [cache] = mcpctl_home.rglob("pins/*.db")
    with contextlib.closing(sqlite3.connect(cache)) as database:
        database.execute("ALTER TABLE rows ADD COLUMN since INT DEFAULT 0")
        database.execute("UPDATE meta SET value = ? WHERE key = 'schema'",
                         (str(digest_cache.SCHEMA_VERSION + 1),))
        database.commit()
    (root / "lib" / "b.js").write_text("B\n")
    result, calls = recorded_run(root, tmp_path / "calls")
    assert refused(result, "lib/b.js modified"), result.err
    assert any("-s" in argv and "ls-files" in argv for argv in calls)
    loaded = digest_cache.load(mcpctl_home / "cache", os.path.realpath(root))
    assert loaded is not None  # rebuilt in this version's schema
    loaded.close()


def fake_git(folder: Path, body: str) -> dict[str, str]:
    folder.mkdir()
    real = shutil.which("git")
    assert real is not None
    script = folder / "git"
    script.write_text(f"#!/bin/sh\nREAL='{real}'\n{body}\n")
    script.chmod(0o755)
    return {"PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}


def test_a_failing_git_falls_back_to_the_exact_pass(approved: Callable[[str], Path],
                                                    tmp_path: Path) -> None:
    """A git that fails the fast path's `ls-files -m` and `diff-files` (and answers
    the rest)."""
    root = approved("git-fails")
    env = fake_git(tmp_path / "bin", 'for a in "$@"; do case "$a" in -m|diff-files) '
                   'exit 128;; esac; done\nexec "$REAL" "$@"')
    unchanged, calls = recorded_run(root, tmp_path / "calls", env)
    assert (unchanged.code, unchanged.err) == (0, "")
    assert any("-s" in argv and "ls-files" in argv for argv in calls)
    (root / "lib" / "a.js").write_text("changed\n")
    result, _ = recorded_run(root, tmp_path / "calls", env)
    assert refused(result, "lib/a.js modified"), result.err


def test_without_git_nothing_changed_is_never_trusted(approved: Callable[[str], Path],
                                                       tmp_path: Path) -> None:
    """No git on PATH: the folder is walked (every file, ignored ones too): a set other
    than the approved one, so `changed`, never `trusted` from a stale cache."""
    root = approved("git-missing")
    (root / "lib" / "a.js").write_text("changed\n")
    empty = tmp_path / "nogit"
    empty.mkdir()
    for program in ("bash", "sh"):
        found = shutil.which(program)
        assert found is not None
        (empty / program).symlink_to(found)
    result, calls = recorded_run(root, tmp_path / "calls", {"PATH": str(empty)})
    assert calls == []
    assert refused(result, "lib/a.js modified"), result.err


def test_the_cache_is_compact_and_the_index_is_named_by_its_checksum(
    approved: Callable[[str], Path], mcpctl_home: Path
) -> None:
    root = approved("unchanged")
    cache = digest_cache.load(mcpctl_home / "cache", os.path.realpath(root))
    assert cache is not None
    row = cache.row("lib/a.js")
    assert row is not None
    assert (row.flag, row.lines) == (digest_cache.SETTLED, 1)
    link = cache.row("link.js")
    assert link is not None
    assert link.flag == digest_cache.WATCHED  # a symlink is looked at on every start
    repos = json.loads(cache.meta("repos") or "{}")
    assert sorted(repos) == [""]
    assert repos[""]["nested"] == ["vendor"]  # walked on every start
    for info in repos.values():
        assert digest_cache.index_file(mcpctl_home / "cache", info["index"]).is_file()


def test_a_private_index_replaced_is_deleted(approved: Callable[[str], Path],
                                            mcpctl_home: Path) -> None:
    """Each change writes a private index under a new name; the one it replaces goes,
    so the cache holds one index per repo however many changes it has seen. Fails with
    the cache's list of its indexes read as empty (structural mutant)."""
    root = approved("index-replaced")
    pins = mcpctl_home / "cache" / "pins"
    before = {path.name for path in pins.glob("*.index")}
    (root / "lib" / "new.js").write_text("new\n")
    git(root, "add", "lib/new.js")  # the repo's index changed: the exact pass runs
    time.sleep(SETTLED_NS / 1e9 + 0.2)  # and, the file settled, indexes it anew
    assert cli(root, "list").code == 0
    cache = digest_cache.load(mcpctl_home / "cache", os.path.realpath(root))
    assert cache is not None
    repos = json.loads(cache.meta("repos") or "{}")
    cache.close()
    named = {f"{info['index']}.index" for info in repos.values()}
    assert named
    assert named != before  # the change wrote a new one
    assert {path.name for path in pins.glob("*.index")} == named


def test_a_change_report_made_from_the_cache_keeps_its_line_counts(mcpctl_home: Path,
                                                                  tmp_path: Path) -> None:
    """The second start after a change finds nothing new since the cache was written and
    reads the set lazily from it; the report still has the file's lines after the change.
    Fails with the cache's lookup by path made to find nothing (structural mutant)."""
    server = {"mcpServers": {"srv": {"command": "true"}}}  # no workspace file named
    root = git_repo(tmp_path / "repo", {"lib/a.js": "a\n", ".mcp.json": json.dumps(server)})
    assert cli(root, "trust", "srv", "--yes").code == 0
    (root / "lib" / "a.js").write_text("a\nb\nc\n")
    assert cli(root, "list").code == 0  # the cache now holds the changed file
    again = cli(root, "trust", "srv", "--yes", "--accept-changed")
    assert again.code == 0, again.err
    assert again.out.startswith("1 file changed in the workspace since the last approval:\n"
                                "  lib/a.js modified (1 → 3 lines)\n"), again.out


def test_a_cache_page_unreadable_in_a_change_report_is_removed_and_rebuilt(
        mcpctl_home: Path, tmp_path: Path) -> None:
    """A start answered from the cache, then one of its pages found unreadable while the
    change report reads the set from it: a one-line error, the cache removed, and the
    next command rebuilds it and reports the change. Fails with the removal left out
    (structural mutant: every later command stopped at the same page), and with the
    unsettled rows read without their index: the start then read every row, found
    the page, and ran the exact pass (at 100,000 files, 14 MB read on every start)."""
    server = {"mcpServers": {"srv": {"command": "true"}}}
    files = {f"lib/m{number:03d}.js": f"{number}\n" for number in range(600)}
    root = git_repo(tmp_path / "repo", {**files, ".mcp.json": json.dumps(server)})
    time.sleep(SETTLED_NS / 1e9 + 0.2)  # else every row is watched, read at each start
    assert cli(root, "trust", "srv", "--yes").code == 0
    (root / "lib" / "m000.js").write_text("changed\nhere\n")
    assert cli(root, "list").code == 0  # the cache now holds the changed file
    (cache,) = mcpctl_home.rglob("pins/*.db")
    data = bytearray(cache.read_bytes())
    page = sqlite3.connect(cache).execute("PRAGMA page_size").fetchone()[0]
    # The leaf pages (b-tree page type 10 or 13) of settled rows only: not the first
    # page, an inner page of keys, or the page of the changed file's row.
    damaged = [number for number in range(1, len(data) // page)
               if data[number * page] in (10, 13)
               and b"lib/m3" in data[number * page:(number + 1) * page]
               and b"lib/m000" not in data[number * page:(number + 1) * page]]
    assert damaged
    for number in damaged:
        data[number * page:(number + 1) * page] = b"\xff" * page
    cache.write_bytes(bytes(data))
    broken = cli(root, "trust", "srv", "--yes", "--accept-changed")
    assert broken.code == 3, broken
    assert broken.err == (f"mcpctl: error: the digest cache {cache} was unreadable and is "
                          "removed; run the command again (it is rebuilt)\n"), broken.err
    assert not cache.exists()
    again = cli(root, "trust", "srv", "--yes", "--accept-changed")
    assert again.code == 0, again.err
    assert again.out.startswith("1 file changed in the workspace since the last approval:\n"
                                "  lib/m000.js modified (1 → 2 lines)\n"), again.out


def test_a_file_newly_ignored_is_reported_removed_exactly(approved: Callable[[str], Path],
                                                           tmp_path: Path) -> None:
    """A `.gitignore` change moves files out of the set without touching them: the
    exact pass lists them anew, so the report names both."""
    root = approved("gitignore")
    (root / "notes.md").write_text("untracked, not ignored\n")
    assert cli(root, "trust", "srv", "--yes", "--accept-changed").code == 0
    (root / ".gitignore").write_text("*.log\nnotes.md\n")
    result, _ = recorded_run(root, tmp_path / "calls")
    assert refused(result, ".gitignore modified", "notes.md removed"), result.err


def test_a_tracked_file_untracked_and_ignored_is_reported_removed(
    approved: Callable[[str], Path], tmp_path: Path
) -> None:
    """`git rm --cached` of an ignored file changes the set and no file on disk: the
    tracked list's digest says so."""
    root = approved("untrack")
    (root / "debug.log").write_text("tracked although ignored\n")
    git(root, "add", "-f", "debug.log")
    assert cli(root, "trust", "srv", "--yes", "--accept-changed").code == 0
    git(root, "rm", "-q", "--cached", "debug.log")
    result, _ = recorded_run(root, tmp_path / "calls")
    assert refused(result, "debug.log removed"), result.err


def test_a_corrupted_manifest_only_loses_the_file_list(approved: Callable[[str], Path],
                                                       mcpctl_home: Path,
                                                       tmp_path: Path) -> None:
    root = approved("manifest")
    (root / "lib" / "a.js").write_text("changed\n")
    for manifest in (mcpctl_home / "data" / "approved-files").glob("*.bin"):
        data = bytearray(manifest.read_bytes())
        data[-3] ^= 0xFF
        manifest.write_bytes(bytes(data))
    result, _ = recorded_run(root, tmp_path / "calls")
    assert refused(result, "the list of files approved is missing"), result.err


def test_a_change_undone_is_trusted_again(approved: Callable[[str], Path],
                                          tmp_path: Path) -> None:
    root = approved("reverted")
    (root / "lib" / "a.js").write_text("evil\n")
    result, _ = recorded_run(root, tmp_path / "calls")
    assert refused(result, "lib/a.js modified"), result.err
    (root / "lib" / "a.js").write_text("a\n")
    undone, calls = recorded_run(root, tmp_path / "calls")
    assert (undone.code, undone.err) == (0, "")
    assert fast(calls)


def test_a_new_file_is_caught_after_its_folder_settled(approved: Callable[[str], Path],
                                                       tmp_path: Path) -> None:
    """The start that walks keeps what git listed as new: the next ones, which do not
    walk (the folder is as that start saw it), still hash it. Without `others` in the
    snapshot the second start would say `trusted`."""
    root = approved("settled-new")
    (root / "lib" / "new.js").write_text("new\n")
    time.sleep(SETTLED_NS / 1e9 + 0.2)
    walked, calls = recorded_run(root, tmp_path / "calls")
    assert refused(walked, "lib/new.js added"), walked.err
    assert fast(calls)
    assert not quiet(calls)
    again, calls = recorded_run(root, tmp_path / "calls")
    assert (again.code, again.err) == (walked.code, walked.err)
    assert quiet(calls)


def test_an_ignored_file_made_executable_is_caught_although_no_folder_changed(
    approved: Callable[[str], Path], tmp_path: Path
) -> None:
    """`chmod +x` leaves the folder as it was: the ignored files are stat-ed on every
    start, and one now executable is pinned (issue 23): the exact pass lists them anew.
    Without that stat the start would not walk, and say `trusted`."""
    root = approved("chmod-ignored")
    unchanged, calls = recorded_run(root, tmp_path / "calls")
    assert (unchanged.code, unchanged.err) == (0, "")
    assert quiet(calls)
    (root / "notes.log").chmod(0o755)
    result, calls = recorded_run(root, tmp_path / "calls")
    assert refused(result, "notes.log added"), result.err
    assert any("-s" in argv and "ls-files" in argv for argv in calls)  # the exact pass ran


def test_a_file_in_a_folder_that_was_empty_is_caught(approved: Callable[[str], Path],
                                                     tmp_path: Path) -> None:
    """An empty folder lists no path, but its mtime is kept: a file made in it is seen
    (git walks again)."""
    root = approved("empty-folder")
    unchanged, calls = recorded_run(root, tmp_path / "calls")
    assert (unchanged.code, unchanged.err) == (0, "")
    assert quiet(calls)
    (root / "empty" / "x.js").write_text("evil\n")
    result, calls = recorded_run(root, tmp_path / "calls")
    assert refused(result, "empty/x.js added"), result.err
    assert fast(calls)
    assert not quiet(calls)


def test_a_change_to_the_users_excludes_file_lists_the_files_anew(
    approved: Callable[[str], Path], tmp_path: Path
) -> None:
    """git reads `$XDG_CONFIG_HOME/git/ignore` even with the global config off; a rule
    added there takes an untracked file out of the set without touching a folder."""
    root = approved("user-excludes")
    config = tmp_path / "xdg"
    (config / "git").mkdir(parents=True)
    (config / "git" / "ignore").write_text("scratch.txt\n")  # not code: no longer pinned
    result, calls = recorded_run(root, tmp_path / "calls", {"XDG_CONFIG_HOME": str(config)})
    assert refused(result, "scratch.txt removed"), result.err
    assert any("-s" in argv and "ls-files" in argv for argv in calls)  # the exact pass ran


def test_a_corrupted_folder_snapshot_is_not_used(approved: Callable[[str], Path],
                                                 mcpctl_home: Path, tmp_path: Path) -> None:
    """The snapshot a walking start kept names the new file its next starts hash again;
    one character changed there (the JSON still parses) would drop it from the set. Its
    digest does not match, so the next start walks. Without the digest it says
    `trusted`."""
    root = approved("corrupt-snapshot")
    (root / "lib" / "new.js").write_text("new\n")
    time.sleep(SETTLED_NS / 1e9 + 0.2)
    walked, _ = recorded_run(root, tmp_path / "calls")
    assert refused(walked, "lib/new.js added"), walked.err
    [memo] = list(mcpctl_home.rglob("pins/*.memo"))
    kept = json.loads(memo.read_text())
    digest, body = json.loads(kept["values"]["snapshot:"])
    assert '"lib/new.js"' in body
    kept["values"]["snapshot:"] = json.dumps([digest, body.replace("lib/new.js", "lib/nex.js")])
    memo.write_text(json.dumps(kept))
    result, calls = recorded_run(root, tmp_path / "calls")
    assert refused(result, "lib/new.js added"), result.err
    assert fast(calls)
    assert not quiet(calls)


def test_a_corrupted_private_index_is_written_anew_when_its_name_comes_back(
    approved: Callable[[str], Path], mcpctl_home: Path, tmp_path: Path
) -> None:
    """Corrupted with no file changed: the exact pass makes the same rows, so the same
    index name. Kept because its name is right, its stat would then count as checked
    (`workspace._intact`) and git would never look at lib/b.js again."""
    root = approved("corrupt-index-kept")
    flip_assume_unchanged(mcpctl_home, b"lib/b.js")
    first, calls = recorded_run(root, tmp_path / "calls")
    assert (first.code, first.err) == (0, "")
    assert any("-s" in argv and "ls-files" in argv for argv in calls)  # the exact pass ran
    second, _ = recorded_run(root, tmp_path / "calls")
    assert (second.code, second.err) == (0, "")
    (root / "lib" / "b.js").write_text("R\n")
    result, _ = recorded_run(root, tmp_path / "calls")
    assert refused(result, "lib/b.js modified"), result.err


def test_a_private_index_copied_and_put_back_is_checked_and_still_used(
    approved: Callable[[str], Path], mcpctl_home: Path, tmp_path: Path
) -> None:
    """A copy put back (a backup restored) has a new inode and ctime, so its stat no
    longer says it is the file mcpctl wrote; its content is checked instead, and an
    index that hashes to its name is used as it is. Planted by hand: the content left
    out of the checksum (`git_index.py:58`: every such index was called corrupt, and
    the exact pass ran)."""
    root = approved("index-copied-back")
    (index,) = mcpctl_home.rglob("*.index")
    copy = tmp_path / "backup"
    shutil.copy2(index, copy)
    index.unlink()
    shutil.copy2(copy, index)
    result, calls = recorded_run(root, tmp_path / "calls")
    assert (result.code, result.err) == (0, "")
    assert fast(calls)


def test_a_workspace_below_the_repos_top_hashes_only_what_changed(tmp_path: Path) -> None:
    """The workspace is `sub/` of a repo (a `.mcp.json` in a monorepo's package). Git
    reads an index's paths from the repo's top: when the private index held them from
    the workspace (`lib/a.js`, not `sub/lib/a.js`), git found none of the workspace's
    files in it, listed each as new, and every start hashed every file again (correct,
    and O(files)). Named from the top, a start hashes only the file that changed; a
    change outside the workspace is not the workspace's."""
    repo = git_repo(tmp_path / "repo", {**{f"sub/{name}": text for name, text in FILES.items()},
                                        "other/x.js": "x\n"})
    root = repo / "sub"
    (root / ".mcp.json").write_text(json.dumps(SERVER))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "server")
    time.sleep(SETTLED_NS / 1e9 + 0.2)
    assert cli(root, "trust", "srv", "--yes").code == 0
    assert cli(root, "run", "srv").code == 0  # walks once, and keeps the folders' stat
    opened = tmp_path / "opened"

    def hashed() -> set[str]:
        lines = opened.read_text().splitlines() if opened.exists() else []
        opened.unlink(missing_ok=True)
        return {os.path.relpath(line, root) for line in lines
                if line.startswith(f"{root}{os.sep}")}

    unchanged, calls = recorded_run(root, tmp_path / "calls", {"OPENED_TO": str(opened)})
    assert (unchanged.code, unchanged.err) == (0, "")
    assert quiet(calls)
    launch = hashed()  # what the launch reads itself: the server's file and its script
    assert launch == {".mcp.json", "server.sh"}
    (repo / "other" / "x.js").write_text("outside the workspace\n")
    outside, calls = recorded_run(root, tmp_path / "calls", {"OPENED_TO": str(opened)})
    assert (outside.code, outside.err) == (0, "")
    assert quiet(calls)
    assert hashed() == launch
    (root / "lib" / "a.js").write_text("changed\n")
    inside, calls = recorded_run(root, tmp_path / "calls", {"OPENED_TO": str(opened)})
    assert refused(inside, "lib/a.js modified"), inside.err
    assert quiet(calls)
    assert hashed() - launch == {"lib/a.js"}  # refused: its script is not read


def test_a_rule_taken_out_of_an_excludes_file_the_repo_config_names_is_seen(
    tmp_path: Path
) -> None:
    """A repo config that names an excludes file outside the tree: what it ignores can
    change with no folder, index or config changing, so the fast path is off for that
    repository. Here `notes.txt` (nothing a launch loads) is ignored by it when
    approved, so not pinned; the rule is then taken out, so git lists the file as
    untracked and it is part of the workspace. With that check dropped by hand
    (structural mutation, `git.py`), the next start did not walk (no folder had
    changed) and said `trusted`."""
    excludes = tmp_path / "excludes"
    excludes.write_text("notes.txt\n")
    root = git_repo(tmp_path / "repo", FILES)
    (root / ".mcp.json").write_text(json.dumps(SERVER))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "server")
    git(root, "config", "core.excludesFile", str(excludes))
    (root / "notes.txt").write_text("not code\n")
    time.sleep(SETTLED_NS / 1e9 + 0.2)
    assert cli(root, "trust", "srv", "--yes").code == 0
    for _ in range(2):  # the second start is a quiet one, were the fast path on
        assert cli(root, "run", "srv").code == 0
    excludes.write_text("")
    result = cli(root, "run", "srv")
    assert refused(result, "notes.txt added"), result.err


def test_a_file_no_longer_ignored_is_pinned_from_the_approval_on(
        approved: Callable[[str], Path], tmp_path: Path) -> None:
    """`.gitignore` edited in place (no folder changes) so that `notes.log` is no longer
    ignored: approving that state pins the file, and a later change to it is refused.
    Planted by hand: with the fast path kept past a changed `.gitignore`, git was not
    asked what is new (no folder had changed), the approval left the file out, and the
    run after its change started."""
    root = approved("unignored")
    (root / ".gitignore").write_text("# nothing ignored now\n")
    assert cli(root, "trust", "srv", "--yes", "--accept-changed").code == 0
    (root / "notes.log").write_text("part of the workspace now, and changed\n")
    result, _ = recorded_run(root, tmp_path / "calls")
    assert refused(result, "notes.log modified"), result.err


def test_the_fast_path_asks_the_git_of_the_environment_it_is_given(
        approved: Callable[[str], Path], mcpctl_home: Path, tmp_path: Path) -> None:
    """A start given an environment in which no git is found lists the folder itself,
    on the fast path too. Planted by hand: the fast path, or its call of git, given the
    process's own environment instead (git was found there, and the start answered
    from the cache by git's word)."""
    root = approved("env-nogit")
    empty = tmp_path / "nogit"
    empty.mkdir()
    files = workspace_files(root, {"PATH": str(empty)}, mcpctl_home / "cache")
    assert files.source == FOLDER
    assert "notes.log" in files.entries  # the walk: ignored files too


def test_a_git_whose_rev_parse_says_nothing_falls_back_to_the_walk(
        approved: Callable[[str], Path], tmp_path: Path) -> None:
    """A git that exits 0 from `rev-parse` with no output: not a work tree mcpctl can
    place, so the folder is walked (and the change still named). Planted by hand: the
    check of rev-parse's line count left out (started from the workspace, where an
    empty top level reads as the current folder, the command ended with an internal
    error)."""
    root = approved("silent-rev-parse")
    env = fake_git(tmp_path / "bin", 'for a in "$@"; do [ "$a" = rev-parse ] && exit 0; done\n'
                   'exec "$REAL" "$@"')
    (root / "lib" / "a.js").write_text("changed\n")
    # From the workspace itself, as a client starts it: the empty top level git gave
    # is then this very folder.
    done = subprocess.run([sys.executable, "-m", "mcpctl", "run", "srv", "--workspace", "."],
                          capture_output=True, text=True, cwd=root, timeout=120, check=False,
                          env={**os.environ, **env})
    assert refused(Result(done.returncode, done.stdout, done.stderr), "lib/a.js modified"), \
        done.stderr


@pytest.mark.parametrize("digest_damaged", [False, True], ids=["flag", "and-digest-tail"])
def test_a_corrupted_flag_in_the_cache_never_stops_a_link_being_watched(
        mcpctl_home: Path, tmp_path: Path, digest_damaged: bool) -> None:
    """A symlink is watched (digested again on every start): its digest covers the file
    it leads to, which git never looks at, here a file outside the workspace. The link
    is ignored (`*.log`) and pinned as loadable, so neither git's answer nor a folder's
    stat names it: only its flag has it digested again. (In a repository inside, the
    walk treats every link as changed anyway.) A flag in the cache turned to `settled`
    would stop that; the watched rows' digest no longer matches, so the exact pass
    runs. Planted by hand: without that check, the run after the outside file changed
    started. With `digest_damaged` the kept digest is damaged too, so that only its
    first 8 hex digits match the damaged rows': compared by 8 characters (the
    structural `workspace.py:332`), the run started."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "code.js").write_text("v1\n")
    root = git_repo(tmp_path / "repo", FILES)
    (root / "ext.log").symlink_to(outside / "code.js")
    (root / ".mcp.json").write_text(json.dumps(SERVER))
    git(root, "add", ".mcp.json")
    git(root, "commit", "-qm", "the server")
    time.sleep(SETTLED_NS / 1e9 + 0.2)
    assert cli(root, "trust", "srv", "--yes").code == 0
    assert cli(root, "run", "srv").code == 0
    path = digest_cache.cache_file(mcpctl_home / "cache", os.path.realpath(root))
    with contextlib.closing(sqlite3.connect(path)) as connection:
        assert connection.execute("UPDATE rows SET flag = 0 WHERE path = ?",
                                  (b"ext.log",)).rowcount == 1
        connection.commit()
    if digest_damaged:
        cache = digest_cache.load(mcpctl_home / "cache", os.path.realpath(root))
        assert cache is not None
        now = _watched_digest(cache.unsettled())
        cache.close()
        tail = "0" if now[8] != "0" else "1"
        set_kept(path, "watched", now[:8] + tail + now[9:])
    (outside / "code.js").write_text("v2, outside the workspace\n")
    result, _ = recorded_run(root, tmp_path / "calls")
    assert refused(result, "ext.log modified"), result.err
