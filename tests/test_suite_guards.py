"""The suite's own guards, each shown failing a run that breaks it (issue 16).

A test that leaves a process running, hangs, or eats memory must fail its run clearly
and soon; a missing component must fail on CI. Each case runs a small test file in a
pytest of its own with this suite's conftest as a plugin, and reads the outcome: once in
one process (`-n 0`) and once over two workers (`-n 2`), as the suite itself runs.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.components import missing
from tests.parallel import workers
from tests.processes import lingering

REPO = Path(__file__).resolve().parent.parent
LEAK, LATE = f"mcpctl-leak-{uuid.uuid4().hex}", f"mcpctl-late-{uuid.uuid4().hex}"
# One test file that breaks every guard, run once in a pytest of its own (on CI rules,
# with a low memory bound): each test below reads its part of the outcome.
BREAKING = f"""
import subprocess, sys, time, pytest
from tests.components import require_program
KEPT = []

def sleeper(marker):
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", marker])

def test_leaks():
    KEPT.append(sleeper("{LEAK}"))

@pytest.mark.timeout(1)
def test_hangs():
    time.sleep(60)

def test_grows():
    kept = []
    while True:
        kept.append(b"x" * (8 * 2**20))

def test_needs():
    require_program("mcpctl-no-such-program")

@pytest.fixture(scope="session")
def late():
    yield
    KEPT.append(sleeper("{LATE}"))  # after every test's own check: only the last look sees it

def test_uses_late(late):
    pass
"""


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str

    def line(self, prefix: str) -> str:
        lines = [line for line in self.out.splitlines() if line.startswith(prefix)]
        assert len(lines) == 1, self.out
        return lines[0]


@pytest.fixture(scope="module", params=["0", "2"], ids=["one process", "two workers"])
def outcome(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
            ) -> Outcome:
    """The breaking run's outcome. It ends in bounded time, or the run's own timeout
    fails this: each break is bounded (a 1 s timeout, a 400 MiB bound), so the run takes
    seconds idle."""
    folder = tmp_path_factory.mktemp("guarded")
    (folder / "test_guarded.py").write_text(BREAKING, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "-p",
         "tests.conftest", "--rootdir", str(folder), "-c", str(REPO / "pyproject.toml"),
         "-n", request.param, str(folder / "test_guarded.py")],
        cwd=folder, capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "PYTHONPATH": str(REPO), "CI": "true",
             "MCPCTL_TEST_MEMORY_MIB": "400"})
    return Outcome(done.returncode, done.stdout, done.stderr)


def test_the_breaking_run_fails_and_counts_each_break(outcome: Outcome) -> None:
    assert outcome.code == 1
    assert re.fullmatch(r"3 failed, 2 passed, 1 error in [0-9.]+s( \([0-9:]+\))?",
                        outcome.line("3 failed")), outcome.out


def test_a_test_that_leaves_a_process_running_fails_and_the_process_is_killed(
    outcome: Outcome,
) -> None:
    error = outcome.line("ERROR test_guarded.py::test_leaks - ")
    assert error.startswith("ERROR test_guarded.py::test_leaks - Failed: the test left 1 "
                            "process(es) running, now killed: pid ")
    assert error.endswith(f"time.sleep(60) {LEAK}")
    assert not [command for command in lingering(os.environ["MCPCTL_TEST_SESSION"]).values()
                if LEAK in command]


def test_a_process_left_at_the_end_of_the_session_fails_the_run(outcome: Outcome) -> None:
    assert "PASSED test_guarded.py::test_uses_late" in outcome.out
    assert "the test session left processes running, now killed: pid " in outcome.err
    assert f"time.sleep(60) {LATE}" in outcome.err
    assert not [command for command in lingering(os.environ["MCPCTL_TEST_SESSION"]).values()
                if LATE in command]


def test_a_hanging_test_fails_at_its_timeout(outcome: Outcome) -> None:
    assert outcome.line("FAILED test_guarded.py::test_hangs") == (
        "FAILED test_guarded.py::test_hangs - Failed: Timeout (>1.0s) from pytest-timeout.")


def test_a_test_that_eats_memory_fails_at_the_bound(outcome: Outcome) -> None:
    failed = outcome.line("FAILED test_guarded.py::test_grows")
    assert failed.startswith("FAILED test_guarded.py::test_grows - tests.memory."
                             "MemoryBoundExceeded: the test process grew to ")
    assert failed.endswith(" MiB, past the bound of 400 MiB")


def test_a_missing_component_fails_on_ci(outcome: Outcome) -> None:
    assert outcome.line("FAILED test_guarded.py::test_needs") == (
        "FAILED test_guarded.py::test_needs - Failed: mcpctl-no-such-program (not on PATH) is "
        "missing "
        "(.ci/run installs it)")


def test_the_summary_names_the_peak_memory_of_each_test_process(
    outcome: Outcome, request: pytest.FixtureRequest
) -> None:
    """Two workers: each one's peak, as its controller heard it when the worker ended."""
    line = outcome.line("peak resident size of the test process")
    if "two workers" in request.node.name:
        assert re.fullmatch(r"peak resident size of the test processes: gw0 \d+, gw1 \d+ "
                            r"MiB \(bound 400 each\)", line), line
    else:
        assert re.fullmatch(r"peak resident size of the test process: \d+ MiB \(bound 400\)",
                            line), line


def test_the_default_timeout_is_set() -> None:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert "\ntimeout = 120\n" in text
    assert '\ntimeout_method = "signal"\n' in text


def test_the_suite_runs_over_every_core_by_default() -> None:
    """The README's test line (`uv run pytest`) is the parallel run .ci/run makes."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert '\naddopts = "-ra --strict-markers -n auto --dist worksteal"\n' in text


def test_missing_raises_the_outcome_of_the_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"^node is missing \(x\)$"):
        missing("node", "x")
    monkeypatch.setenv("CI", "false")
    with pytest.raises(pytest.skip.Exception, match=r"^node is missing \(x\)$"):
        missing("node", "x")


def skips_in(path: Path) -> list[str]:
    """Calls of pytest.skip/importorskip and skipif marks, by line."""
    return [f"{path.relative_to(REPO)}:{node.lineno} {node.attr}"
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Attribute)
            and node.attr in ("skip", "skipif", "importorskip")]


def test_every_skip_goes_through_components() -> None:
    """A bare skip would vanish on CI unnoticed, as the node attack cases once did."""
    files = sorted((REPO / "tests").rglob("*.py"))
    allowed = {REPO / "tests" / "components.py", Path(__file__),
               # Its `needs` skips only when not on CI, as `missing` does.
               REPO / "tests" / "pinning" / "test_workspace_attacks.py",
               # A platform, not a missing component: Linux-only kernel features.
               REPO / "tests" / "protocol" / "test_subreaper.py"}
    # Hidden folders (`.npm`, `.clients`) hold what .ci/run installs, not the suite.
    ours = [path for path in files
            if not any(part.startswith(".") for part in path.relative_to(REPO).parts)]
    found = [skip for path in ours if path not in allowed for skip in skips_in(path)]
    assert found == []


def test_tests_that_run_long_are_started_first() -> None:
    """A test with its own bound above the default (the fresh clone's 900 s) is handed
    out before the short ones, though it is collected after them."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         "-n", "0", "tests/cli/test_app.py", "tests/test_first_session.py"],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False)
    ids = [line for line in done.stdout.splitlines() if "::" in line]
    assert ids[:2] == [
        "tests/test_first_session.py::test_a_fresh_clone_passes_the_readme_test_line",
        "tests/test_first_session.py::test_a_first_session_follows_the_readme"]
    assert len(ids) > 2
    assert all(test.startswith("tests/cli/test_app.py::") for test in ids[2:])


@pytest.mark.parametrize(("selection", "summary"), [
    (["tests/files/test_atomic.py"], "peak resident size of the test process: "),
    (["tests/files"], "peak resident size of the test processes: gw0 "),
], ids=["a file", "a folder"])
def test_named_files_run_in_one_process_and_folders_on_every_core(
    selection: list[str], summary: str
) -> None:
    """`-n auto` (the default) spares a run of named files the workers' start."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *selection],
        cwd=REPO, capture_output=True, text=True, timeout=100, check=False,
        env={**os.environ, "CI": "true"})
    assert done.returncode == 0, done.stdout[-2000:]
    [line] = [line for line in done.stdout.splitlines() if line.startswith(summary)]
    if "processes" in summary:  # two workers per core: their waits fill the cores
        assert len(re.findall(r"\bgw\d+ ", line)) == workers(), line


# A keyring daemon that ends during a test: that test fails saying how, and the next
# keyring test on the worker gets a daemon of its own (not the dead one's bus, where
# D-Bus would start a locked one and every later keyring test would fail).
KEYRING_ENDS = """
import os, signal

def test_ends(secret_service):
    os.kill(secret_service.daemon.pid, signal.SIGKILL)
    secret_service.daemon.wait()

def test_after(secret_service):
    import keyring
    keyring.set_password("mcpctl", "after", "v")
    assert keyring.get_password("mcpctl", "after") == "v"
    assert secret_service.ended() is None
"""


# The daemon aborting (SIGABRT, as gnome-keyring's own assertion does) once, and twice.
KEYRING_ABORTS = """
import os, signal
from pathlib import Path

def test_aborts_once(secret_service):
    mark = Path(os.environ["ABORT_MARK"])
    if not mark.exists():
        mark.write_text("aborted once")
        os.kill(secret_service.daemon.pid, signal.SIGABRT)
        secret_service.daemon.wait()
        return
    import keyring
    keyring.set_password("mcpctl", "again", "v")
    assert keyring.get_password("mcpctl", "again") == "v"

def test_aborts_twice(secret_service):
    os.kill(secret_service.daemon.pid, signal.SIGABRT)
    secret_service.daemon.wait()
"""


def pytest_of_its_own(folder: Path, name: str, text: str,
                      env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`text` as the test file `name` in `folder`, run by a pytest with this suite's
    fixtures and configuration, in one process."""
    (folder / name).write_text(text, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "-p",
         "tests.conftest", "--rootdir", str(folder), "-c", str(REPO / "pyproject.toml"),
         "-n", "0", str(folder / name)],
        cwd=folder, capture_output=True, text=True, timeout=90, check=False,
        env={**os.environ, "PYTHONPATH": str(REPO), "CI": "true", **(env or {})})


def test_a_keyring_daemon_that_aborts_once_costs_its_test_one_run_again(tmp_path: Path) -> None:
    """A test during which the daemon aborted runs again with a new daemon and is judged
    by that run, and the summary says so; one during which it aborts again fails. Fails
    without the rerun (test_aborts_once errors) or with reruns that go on (test_aborts_twice
    passes, or never ends)."""
    done = pytest_of_its_own(tmp_path, "test_keyring_aborts.py", KEYRING_ABORTS,
                             {"ABORT_MARK": str(tmp_path / "aborted")})
    assert done.returncode == 1, done.stdout[-3000:]
    assert "PASSED test_keyring_aborts.py::test_aborts_once" in done.stdout, done.stdout[-3000:]
    assert re.search(r"ERROR test_keyring_aborts.py::test_aborts_twice - Failed: the keyring's "
                     r"daemon ended during this test: .* killed by signal 6", done.stdout), \
        done.stdout[-3000:]
    reran = [line for line in done.stdout.splitlines() if line.startswith("run again after")]
    assert reran == [
        "run again after the keyring daemon aborted: test_keyring_aborts.py::test_aborts_once",
        "run again after the keyring daemon aborted: test_keyring_aborts.py::test_aborts_twice"]


def test_a_keyring_daemon_that_ends_fails_its_test_alone(tmp_path: Path) -> None:
    """Fails with the daemon kept after it ended (test_after fails too) or with the end
    not looked for after the test (test_ends passes)."""
    done = pytest_of_its_own(tmp_path, "test_keyring_ends.py", KEYRING_ENDS)
    assert done.returncode == 1, done.stdout[-3000:]
    assert "PASSED test_keyring_ends.py::test_after" in done.stdout, done.stdout[-3000:]
    assert re.search(r"ERROR test_keyring_ends.py::test_ends - Failed: the keyring's "
                     r"daemon ended during this test: gnome-keyring-daemon \(pid \d+\) "
                     r"ended, killed by signal 9", done.stdout), done.stdout[-3000:]
