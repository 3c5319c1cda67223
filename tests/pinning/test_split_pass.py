"""A first pass over many files (issue 24): hashed in two processes, its cache written by
a detached writer while the command answers, and the next start waits for that writer.

The workspaces have more files than `workspace.SPLIT_AT`, so a cold `trust` forks a
child that hashes the second half of git's list (the last folders) and a writer that
writes the cache. Every check goes through a real `mcpctl` process.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mcpctl.pinning import digest_cache
from mcpctl.pinning.git_index import SETTLED_NS
from mcpctl.pinning.workspace import SPLIT_AT
from mcpctl.trust.store import load_manifest
from tests.pinning.repos import git, git_repo
from tests.pinning.test_fast_path import SERVER, cli, fast, recorded_run, refused

REPO = Path(__file__).resolve().parents[2]
FOLDERS = SPLIT_AT // 250 + 4  # of 250 files each: past the split's threshold


def text_of(folder: int, number: int) -> str:
    return f"module.exports = {folder * 1000 + number};\n" + "\n" * (number % 3)


def make(root: Path, extra: dict[str, str] | None = None) -> Path:
    files = {f"d{folder:03d}/f{number:03d}.js": text_of(folder, number)
             for folder in range(FOLDERS) for number in range(250)}
    files["server.sh"] = "exit 0\n"
    files[".mcp.json"] = json.dumps(SERVER)
    return git_repo(root, {**files, **(extra or {})})


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("split")
    outside = base / "outside"
    outside.mkdir()
    (outside / "code.js").write_text("elsewhere\n")
    made = {"plain": make(base / "plain"), "changed": make(base / "changed"),
            "link": make(base / "link")}
    last = made["link"] / f"d{FOLDERS - 1:03d}"
    (last / "zz-out").symlink_to(outside)  # last in git's order: the child's half
    git(made["link"], "add", "-A")
    git(made["link"], "commit", "-qm", "link")
    time.sleep(SETTLED_NS / 1e9 + 0.2)  # settled: in the private index
    return made


def approved_manifest(home: Path) -> dict[str, tuple[str, int, int]]:
    [path] = (home / "data" / "approved-files").glob("*.bin")
    manifest = load_manifest(home / "data" / "trust.json", f"sha256:{path.stem}")
    assert manifest is not None
    return {name: (entry.digest, entry.size, entry.lines) for name, entry in manifest.items()}


def test_a_split_first_pass_pins_every_file_of_both_halves(repos: dict[str, Path],
                                                            mcpctl_home: Path) -> None:
    """Checked against digests computed here, file by file, and the command says
    nothing on stderr. Planted by hand: the child's entries left out of the merge (its
    half was missing from the approved set); the child's branch left out
    (`workspace.py:636`), or its `os._exit` (`:644`): the child went on through the
    parent's lines and failed there, and its error reached the command's stderr."""
    root = repos["plain"]
    trusted = cli(root, "trust", "srv", "--yes")
    assert (trusted.code, trusted.err) == (0, "")
    expected = {"server.sh": ("~" + hashlib.sha256(b"exit 0\n").hexdigest()[:16], 7, 1)}
    for folder in range(FOLDERS):
        for number in range(250):
            data = text_of(folder, number).encode()
            expected[f"d{folder:03d}/f{number:03d}.js"] = (
                "~" + hashlib.sha256(data).hexdigest()[:16], len(data), data.count(b"\n"))
    assert approved_manifest(mcpctl_home) == expected
    assert cli(root, "run", "srv").code == 0
    # The writer's lock made the cache's folder in this new home: the user's alone.
    # Planted by hand: that folder made without its mode (0755 here).
    assert (mcpctl_home / "cache" / "pins").stat().st_mode & 0o777 == 0o700


def test_a_start_that_splits_its_pass_runs_the_server_once(tmp_path: Path,
                                                           mcpctl_home: Path) -> None:
    """`run` with no cache splits its pass and forks the cache's writer: that fork must
    end as a writer, never go on as a second `run`. Planted by hand: the child's branch
    left out, or its `os._exit` (the structural `:214`, `:222`): the fork went on
    through the command and started the server a second time."""
    ran = tmp_path / "ran"
    root = make(tmp_path / "repo", {"server.sh": f"echo $$ >> '{ran}'\n"})
    assert cli(root, "trust", "srv", "--yes").code == 0
    shutil.rmtree(mcpctl_home / "cache")  # past SPLIT_AT files with no row: it splits
    assert cli(root, "run", "srv").code == 0
    assert len(ran.read_text().splitlines()) == 1


def test_right_after_trust_run_waits_for_the_writer_and_names_changes_in_both_halves(
        repos: dict[str, Path], tmp_path: Path) -> None:
    """The start right after `trust` finds the cache its writer was writing: git is
    asked what differs from the private index (the fast path), and no workspace file
    but the launch's own is read. Then a change in each half is named. Planted by hand:
    the child's rows left out of the cache (that start read all of its half again).
    The wait itself is checked below: at this size the writer is usually done before
    the next start has imported, so taking the wait out did not fail this test."""
    root = repos["changed"]
    assert cli(root, "trust", "srv", "--yes").code == 0
    opened = tmp_path / "opened"
    result, calls = recorded_run(root, tmp_path / "calls", {"OPENED_TO": str(opened)})
    assert (result.code, result.err) == (0, "")
    assert fast(calls), calls
    read = {line.removeprefix(f"{root}/") for line in opened.read_text().splitlines()
            if line.startswith(f"{root}/")}
    assert read == {".mcp.json", "server.sh"}
    first, last = root / "d000" / "f000.js", root / f"d{FOLDERS - 1:03d}" / "f249.js"
    first.write_text("changed in the parent's half\n")
    last.write_text("changed in the child's half\n")
    changed, calls = recorded_run(root, tmp_path / "calls")
    assert refused(changed, "d000/f000.js modified", f"d{FOLDERS - 1:03d}/f249.js modified"), \
        changed.err
    assert fast(calls)


def test_a_link_out_of_the_workspace_in_the_childs_half_is_unpinnable(
        repos: dict[str, Path]) -> None:
    """A symlink to a folder outside, hashed by the child: the set cannot be pinned.
    Planted by hand: the child's `unpinned` dropped in the merge (trust approved it)."""
    result = cli(repos["link"], "trust", "srv", "--yes")
    assert result.code != 0
    assert f"d{FOLDERS - 1:03d}/zz-out: a symlink to a folder outside the workspace" \
        in result.err
    # The refused pass still left its cache to be written: a command waits for the
    # writer (as a script would), so none is left running after the test.
    cli(repos["link"], "list")


# Loads the cache while a test holds its writer's lock; says "flock" at each try.
LOADING = textwrap.dedent("""\
    import sys
    from pathlib import Path
    from mcpctl.pinning import digest_cache
    def hook(event, args):
        if event == "fcntl.flock":
            print("flock", flush=True)
    sys.addaudithook(hook)
    digest_cache.WAIT_SECONDS = float(sys.argv[3])  # the bound, shortened for the test
    cache = digest_cache.load(Path(sys.argv[1]), sys.argv[2])
    print(cache.meta("generation") if cache is not None else "none", flush=True)
    """)


def loading(cache_dir: Path, root: str, bound: float) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", LOADING, str(cache_dir), root, str(bound)],
                            stdout=subprocess.PIPE, text=True, cwd=REPO)


def answer(process: subprocess.Popen[str]) -> str:
    """The first line that is not a try (the loader ends after it). A loader whose wait
    has lost its bound tries forever: the test's timeout ends the reading, and the
    loader is killed here, not waited for without end as leaving `with` would."""
    with process:
        assert process.stdout is not None
        try:
            for line in process.stdout:
                if line.strip() != "flock":
                    process.wait(timeout=60)
                    return line.strip()
            process.wait(timeout=60)
        finally:
            process.kill()
    return ""


def test_a_start_waits_for_the_writer_and_reads_the_cache_it_wrote(tmp_path: Path) -> None:
    """While a writer holds the lock, a start does not read the cache there (an older
    one); once the writer has put its cache in place and let go, that one is read.
    Planted by hand: `load` without `_written` read the older cache at once; the wait
    given up at its first refusal read none (the test once passed on that now and
    then: it let go when the start had said it would try, not that it had been
    refused)."""
    cache_dir, root = tmp_path / "cache", str(tmp_path / "ws")
    digest_cache.save(cache_dir, root, [], {}, "older")
    lock = digest_cache.writing(cache_dir, root)
    assert lock is not None
    process = loading(cache_dir, root, 60.0)
    try:
        assert process.stdout is not None
        # A second try comes only after the first was refused: the start is waiting.
        assert [process.stdout.readline().strip() for _ in range(2)] == ["flock", "flock"]
        digest_cache.save(cache_dir, root, [], {}, "written")
    finally:
        os.close(lock)
    assert answer(process) == "written"


def test_a_writer_that_never_lets_go_costs_the_start_its_cache_only(tmp_path: Path) -> None:
    """Past the bound, no cache is read (the start runs the exact pass), never a hang.
    Planted by hand: a wait without its deadline never ended."""
    cache_dir, root = tmp_path / "cache", str(tmp_path / "ws")
    digest_cache.save(cache_dir, root, [], {}, "older")
    lock = digest_cache.writing(cache_dir, root)
    assert lock is not None
    assert digest_cache.writing(cache_dir, root) is None  # one writer at a time
    try:
        assert answer(loading(cache_dir, root, 0.3)) == "none"
    finally:
        os.close(lock)
    assert answer(loading(cache_dir, root, 0.3)) == "older"
    # The bound the test shortens is the one the README states for scripts.
    assert digest_cache.WAIT_SECONDS == 60
