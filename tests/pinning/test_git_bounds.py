"""Git runs within its bounds: a git that hangs, floods or fails ends the listing with
GitUnavailable (the caller then walks the folder), and leaves no process behind."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcpctl.pinning.git import (
    IGNORED,
    MAX_OUTPUT,
    TIMEOUT,
    TRACKED,
    UNTRACKED,
    Changes,
    GitRound,
    GitUnavailable,
    _git_outputs,
    ignores,
    work_tree_files,
    work_tree_listing,
)
from tests.conftest import REPO
from tests.pinning.repos import git_repo
from tests.processes import open_descriptor_targets

# `-C FOLDER` and the neutral options come first: the command's own words follow them.
ARGS = "shift 14"


def fake_git(tmp_path: Path, body: str) -> dict[str, str]:
    """An environment whose PATH finds, first, a `git` that runs `body` (sh)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "git"
    script.write_text(f"#!/bin/sh\necho $$ >> {tmp_path / 'pids'}\n{body}\n")
    script.chmod(0o755)
    return {"PATH": f"{folder}{os.pathsep}{os.environ.get('PATH', os.defpath)}"}


def gone(pid: int) -> bool:
    """True once the process is reaped (a zombie would still answer signal 0)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def open_descriptors() -> set[str]:
    """The pipes this process holds open (a git's are what these tests could leak)."""
    return {name for name in open_descriptor_targets() if name.startswith("pipe:")}


def pids(tmp_path: Path) -> list[int]:
    return [int(line) for line in (tmp_path / "pids").read_text().split()]


# A git left running would hold the test (600 s) past this bound, 30x its idle time.
@pytest.mark.timeout(15)
def test_a_git_that_hangs_is_stopped_at_the_timeout(tmp_path: Path) -> None:
    env = fake_git(tmp_path, "exec sleep 600")
    before = open_descriptors()
    with pytest.raises(GitUnavailable, match=r"did not finish within 0\.5 s"):
        _git_outputs(tmp_path, [["a"], ["b"]], env, timeout=0.5)
    assert len(pids(tmp_path)) == 2
    assert all(gone(pid) for pid in pids(tmp_path))
    # Planted by hand: the pipes of a git stopped at the timeout left open.
    assert open_descriptors() == before
    assert TIMEOUT == 30.0  # the bound this test shortens, as docs/design.md states it


@pytest.mark.parametrize("body", ["exec yes", "yes >&2 &\nexec yes"],
                         ids=["stdout", "stdout and stderr"])
def test_a_git_that_floods_is_stopped_at_the_output_bound(tmp_path: Path, body: str) -> None:
    env = fake_git(tmp_path, body)
    with pytest.raises(GitUnavailable) as raised:
        _git_outputs(tmp_path, [["a"]], env, timeout=60, max_output=100_000)
    assert "did not finish" not in str(raised.value)  # the bound stopped it, not the clock
    assert all(gone(pid) for pid in pids(tmp_path))
    assert MAX_OUTPUT == 256 * 1024 * 1024  # the bound this test lowers, as documented


@pytest.mark.timeout(15)
def test_a_git_that_floods_then_hangs_is_stopped_at_the_bound_not_waited_for(
        tmp_path: Path) -> None:
    """Past the output bound git is killed there and then: one that wrote too much and
    then stopped writing would otherwise be waited for until it ended. Planted by
    hand: the kill at the bound left out (the test ran into its timeout)."""
    env = fake_git(tmp_path, "head -c 200000 /dev/zero\nexec sleep 600")
    with pytest.raises(GitUnavailable):
        _git_outputs(tmp_path, [["a"]], env, timeout=60, max_output=100_000)
    assert all(gone(pid) for pid in pids(tmp_path))


def test_a_git_that_fails_beside_one_that_hangs_still_ends_at_the_timeout(
        tmp_path: Path) -> None:
    env = fake_git(tmp_path, f'{ARGS}\nif [ "$1" = fail ]; then exit 3; fi\nexec sleep 60')
    with pytest.raises(GitUnavailable, match="did not finish"):
        _git_outputs(tmp_path, [["fail"], ["hang"]], env, timeout=1)
    assert len(pids(tmp_path)) == 2
    assert all(gone(pid) for pid in pids(tmp_path))


def test_each_command_gets_its_own_output_and_an_error_is_quoted(tmp_path: Path) -> None:
    env = fake_git(tmp_path, f'{ARGS}\nif [ "$1" = fail ]; then echo "no such repo" >&2; '
                             'exit 3; fi\nprintf "%s" "$1"')
    assert _git_outputs(tmp_path, [["one"], ["two"]], env) == [b"one", b"two"]
    with pytest.raises(GitUnavailable, match="no such repo"):
        _git_outputs(tmp_path, [["one"], ["fail"]], env)
    assert all(gone(pid) for pid in pids(tmp_path))



def test_a_git_that_cannot_be_started_is_unavailable_and_leaks_nothing(
        tmp_path: Path) -> None:
    """An executable `git` the kernel will not run (no interpreter line): the spawn fails,
    and the caller walks the folder. Planted by hand: the spawn's error swallowed (the
    listing ended in an internal error), and the pipes of a failed spawn left open."""
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "git").write_bytes(b"\x00not a program\n")
    (folder / "git").chmod(0o755)
    env = {"PATH": str(folder)}
    before = open_descriptors()
    for _ in range(3):
        with pytest.raises(GitUnavailable, match="Exec format error"):
            _git_outputs(tmp_path, [["a"], ["b"]], env)
    assert open_descriptors() == before


def test_git_reads_the_default_excludes_of_the_environment_it_is_given(
        tmp_path: Path) -> None:
    """git's own default excludes file (`$XDG_CONFIG_HOME/git/ignore`) comes from the
    environment mcpctl was given, as the rules' digest does (`git.rules_of`). Planted by
    hand: git given the process's environment instead (the file was untracked)."""
    root = git_repo(tmp_path / "repo", {"a.js": "a\n"})
    (root / "notes.log").write_text("x\n")
    config = tmp_path / "xdg"
    (config / "git").mkdir(parents=True)
    (config / "git" / "ignore").write_text("*.log\n")
    without = {key: value for key, value in os.environ.items() if key != "XDG_CONFIG_HOME"}
    # The whole listing, nothing more: each of git's lists ends in a NUL, which names
    # no path (planted by hand: an empty path read from that end).
    assert work_tree_files(root, without) == {"a.js": TRACKED, "notes.log": UNTRACKED}
    assert work_tree_files(root, {**without, "XDG_CONFIG_HOME": str(config)}) == {
        "a.js": TRACKED, "notes.log": IGNORED}
    # The rules' digest, which the fast path compares, reads the same environment.
    # Planted by hand: `rules_of` given the process's environment.
    assert work_tree_listing(root, without).rules != work_tree_listing(
        root, {**without, "XDG_CONFIG_HOME": str(config)}).rules


# In a process of its own: descriptors for one git's pipes and no more, so the second
# git of a round cannot start. Prints the children still there after the failure.
SECOND_FAILS = r'''
import os, resource, sys
from pathlib import Path
from mcpctl.pinning.git import GitRound, GitUnavailable
env = {"PATH": sys.argv[2]}
highest = max(int(fd) for fd in os.listdir("/proc/self/fd"))
resource.setrlimit(resource.RLIMIT_NOFILE, (highest + 1 + 4, highest + 1 + 4))
try:
    GitRound(Path(sys.argv[1]), [["one"], ["two"]], env)
except GitUnavailable as error:
    print("unavailable:", error)
me = os.getpid()
print("children:", Path(f"/proc/{me}/task/{me}/children").read_text().split())
'''


@pytest.mark.timeout(30)
def test_a_git_that_cannot_start_stops_those_started_before_it(tmp_path: Path) -> None:
    """A round that fails to start its second git (here: no descriptor left for its
    pipes) stops the first one, which would otherwise run on unwatched. Planted by hand:
    without that `stop()` (`git.py:95`) the first git was still a child afterwards."""
    env = fake_git(tmp_path, "exec sleep 600")
    done = subprocess.run([sys.executable, "-c", SECOND_FAILS, str(tmp_path), env["PATH"]],
                          capture_output=True, text=True, timeout=20, cwd=REPO, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["unavailable: [Errno 24] Too many open files",
                                        "children: []"]


def test_a_flood_read_with_the_other_pipe_ready_still_ends_as_git_unavailable(
        tmp_path: Path) -> None:
    """Both pipes hold output when the first read comes: stdout past the bound, so that
    git is stopped and both its pipes closed, and stderr then reported ready in the same
    poll. The closed pipe is passed over. Planted by hand: without the check that a pipe
    is still watched (`git.py:181`) it was read again, a KeyError instead of
    GitUnavailable."""
    written = tmp_path / "written"
    env = fake_git(tmp_path, f"head -c 2000 /dev/zero\necho oops >&2\ntouch {written}\n"
                             "exec sleep 600")
    with GitRound(tmp_path, [["a"]], env, max_output=1000) as round_:
        deadline = time.monotonic() + 20
        while not written.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert written.exists()
        with pytest.raises(GitUnavailable):
            round_.outputs()
    assert all(gone(pid) for pid in pids(tmp_path))


def wait_for_pids(tmp_path: Path, count: int) -> list[int]:
    """The pids of the first `count` fake gits, once each has written its own."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if (tmp_path / "pids").exists() and len(pids(tmp_path)) >= count:
            return pids(tmp_path)
        time.sleep(0.01)
    raise AssertionError(f"{count} gits did not start")


@pytest.mark.timeout(30)
def test_a_round_of_changes_left_unread_stops_its_gits(tmp_path: Path) -> None:
    """The fast path leaves a round without reading it when a folder changed since its
    snapshot (it asks git again, walking). Leaving the `with` stops the gits of the
    round left unread. Planted by hand: without that stop (`git.py:391`, `:392`) all
    four gits still ran afterwards."""
    env = fake_git(tmp_path, "exec sleep 600")
    try:
        with Changes(tmp_path, tmp_path / "index", env):
            started = wait_for_pids(tmp_path, 4)  # rev-parse, ls-files, ignored, tracked
        assert [pid for pid in started if not gone(pid)] == []
    finally:
        for pid in pids(tmp_path):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.timeout(15)
def test_asking_whether_git_ignores_a_file_has_its_own_bounds(tmp_path: Path) -> None:
    """`ignores` (the exported command's choice, issue 26) asks the git of the
    environment it is given, within its own timeout and a 64 KiB bound on one path's
    listing. Planted by hand, each failed: the timeout not passed on (git was waited for
    until the test's own timeout), the bound not passed on (the flood was read until the
    clock ran out) and the process's environment given to git instead (the real git said
    this is no repository)."""
    hangs = fake_git(tmp_path, "exec sleep 600")
    with pytest.raises(GitUnavailable, match=r"did not finish within 0\.5 s"):
        ignores(tmp_path, "a.py", hangs, timeout=0.5)
    (tmp_path / "bin" / "git").write_text("#!/bin/sh\nhead -c 100000 /dev/zero\n"
                                          "exec sleep 600\n")
    with pytest.raises(GitUnavailable) as raised:
        ignores(tmp_path, "a.py", hangs, timeout=5)
    assert "did not finish" not in str(raised.value)  # the bound stopped it, not the clock
