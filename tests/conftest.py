"""Shared fixtures: every test runs with mcpctl's dirs and HOME inside tmp_path, leaves
no process behind, and stays within a memory bound (see tests/processes.py, memory.py).

The suite runs in parallel (`-n auto` in pyproject.toml, pytest-xdist): each worker is a
pytest process of its own, with its own session id, memory watchdog, keyring daemon and
tmp_path tree, so what one worker's test starts or writes no other worker sees. A
process left at the end of a worker's session fails the whole run (reported to the
controller), and the summary names every worker's peak memory (docs/design.md, issue 25).
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from mcpctl.cli.main import run
from tests.memory import DEFAULT_BOUND_MIB, Watchdog
from tests.parallel import workers
from tests.processes import SESSION_VARIABLE, kill_all, lingering_after_settling
from tests.secret_service import SecretService, connect, running_secret_service

REPO = Path(__file__).resolve().parent.parent
REAL_HOME = Path.home()
# A process whose locale says ASCII: `LC_ALL=C` with Python's locale coercion and UTF-8
# mode off, so `open()` without an encoding reads ASCII (a script run on a bare system).
# Set only while bench/coverage_map.py makes its map: a process a test starts with an
# environment of its own making passes them on, or its lines look reached by no test.
MEASURED_ENV = ("COVERAGE_PROCESS_START", "STRUCTURAL_MUTATION_TEST")
ASCII_LOCALE = {"LC_ALL": "C", "LANG": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}

# Hypothesis times each example (a 200 ms deadline) and the generation of the data (the
# too_slow health check): clock budgets that fail for the machine's load, not for a
# defect (issue 25). Every property test runs without them; a test's own @settings
# changes only what it names.
settings.register_profile("mcpctl", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("mcpctl")


Cli = Callable[..., "Result"]


@dataclass
class Result:
    code: int
    out: str
    err: str


WATCHDOG = pytest.StashKey[Watchdog]()
# What the workers reported when they ended (controller only): peaks, processes left.
WORKER_PEAKS = pytest.StashKey[dict[str, float]]()
WORKERS_LEFT = pytest.StashKey[list[str]]()


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def is_controller(config: pytest.Config) -> bool:
    """The process that hands tests to workers (`-n N`, N > 0) and runs none itself."""
    return not is_worker(config) and config.getoption("dist", "no") != "no"


def pytest_configure(config: pytest.Config) -> None:
    # Inherited by every process the session starts, so `lingering` can find them.
    os.environ[SESSION_VARIABLE] = uuid.uuid4().hex
    # A run under nohup, or as a shell's background job, ignores SIGHUP or SIGINT, and
    # its children inherit that; mcpctl keeps a signal the user ignores ignored, so the
    # signal tests would see a lost signal. The children get what a terminal gives.
    for signum, handler in ((signal.SIGHUP, signal.SIG_DFL),
                            (signal.SIGINT, signal.default_int_handler)):
        if signal.getsignal(signum) == signal.SIG_IGN:
            signal.signal(signum, handler)
    bound = float(os.environ.get("MCPCTL_TEST_MEMORY_MIB", DEFAULT_BOUND_MIB))
    config.stash[WATCHDOG] = watchdog = Watchdog(bound)
    config.stash[WORKER_PEAKS] = {}
    config.stash[WORKERS_LEFT] = []
    watchdog.start()


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: two workers per core, except for a run of named test files or tests
    (`pytest tests/x.py::test_y`), which one process finishes before workers would have
    started and collected. A folder, or no argument, runs on every core; an explicit `-n
    N` is obeyed as given (`tests/parallel.py`: two per core, so that one's waits
    leave no core idle)."""
    named = [arg.split("::")[0] for arg in config.args]
    here = config.invocation_params.dir
    if named and all((here / arg).is_file() for arg in named):
        return 0
    return workers()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Long files first: a file holding a test whose own bound is above the default (it
    says it runs long: docs/design.md, issue 25), then the files measured long
    (tests/long_tests.txt), longest first. Started first they end before the short ones
    do, instead of holding one worker busy while the other has finished. A file's tests
    stay together, so a module-scoped fixture is built once per worker rather than again
    after each interleaved test of another file. Every worker sorts the same collection
    the same way (xdist requires it); the sort is stable."""
    default = float(config.getini("timeout") or 0)
    measured = long_files()

    def runs_long(item: pytest.Item) -> bool:
        mark = item.get_closest_marker("timeout")
        return bool(mark and mark.args and float(mark.args[0]) > default)

    marked = {item.nodeid.split("::")[0] for item in items if runs_long(item)}

    def order(item: pytest.Item) -> tuple[bool, int]:
        file = item.nodeid.split("::")[0]
        return file not in marked, measured.get(file, len(measured))

    items.sort(key=order)


def long_files() -> dict[str, int]:
    """The test files measured to run long (tests/long_tests.txt): path → rank, longest 0."""
    lines = (Path(__file__).parent / "long_tests.txt").read_text().splitlines()
    names = [line for line in lines if line and not line.startswith("#")]
    return {name: rank for rank, name in enumerate(names)}


def describe(processes: dict[int, str]) -> str:
    return "; ".join(f"pid {pid}: {command[:200]}" for pid, command in sorted(processes.items()))


@pytest.fixture(autouse=True)
def leaves_no_process() -> Iterator[None]:
    """Fail a test that leaves a process running (killed first, so it harms no later test).

    Autouse and requested by nothing, so it is torn down after every fixture the test
    uses: a fixture's own cleanup has run by the time this looks."""
    yield
    left = lingering_after_settling(os.environ[SESSION_VARIABLE])
    if left:
        kill_all(list(left))
        pytest.fail(f"the test left {len(left)} process(es) running, now killed: "
                    f"{describe(left)}", pytrace=False)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The last look: anything still running once every fixture is torn down fails the run.

    A worker hands what it found to the controller (`workeroutput`), whose exit status is
    the run's; the controller then looks for what its own session id tags."""
    config = session.config
    config.stash[WATCHDOG].stop()
    left = lingering_after_settling(os.environ[SESSION_VARIABLE],
                                    workers=is_controller(config))
    message = ""
    if left:
        kill_all(list(left))
        message = f"the test session left processes running, now killed: {describe(left)}"
    if is_worker(config):
        output = config.workeroutput  # type: ignore[attr-defined]
        output["mcpctl_peak_mib"] = config.stash[WATCHDOG].peak_mib
        output["mcpctl_left"] = message
        return
    messages = [*config.stash[WORKERS_LEFT], *([message] if message else [])]
    if messages:
        sys.stderr.write("".join(f"\n{text}\n" for text in messages))
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


# A worker's environment has COLUMNS=80 and LINES=24 whatever the controller's was (a
# tmux test then saw 80 columns where its window had 200): each test gets the
# controller's terminal variables back (`isolated_home`).
TERMINAL_VARIABLES = ("COLUMNS", "LINES")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    node.workerinput["mcpctl_terminal"] = {name: os.environ.get(name)
                                           for name in TERMINAL_VARIABLES}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """A worker ended (controller side): keep its peak and what it left running."""
    output = getattr(node, "workeroutput", {})
    config = node.config
    name = node.gateway.id
    if "mcpctl_peak_mib" in output:
        config.stash[WORKER_PEAKS][name] = output["mcpctl_peak_mib"]
    if output.get("mcpctl_left"):
        config.stash[WORKERS_LEFT].append(f"{name}: {output['mcpctl_left']}")


# gnome-keyring aborts (SIGABRT, its own assertion) when a property read is handled
# before its record of the caller exists; mcpctl's connections ping first, which narrows
# that race but did not end it (`secret_service.register`). A keyring test during which
# the daemon aborted runs once more, with a new daemon; a second abort fails it.
KEYRING_ABORTED = "the keyring's daemon ended during this test"
RERUN = "keyring-daemon-rerun"


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    if "secret_service" not in getattr(item, "fixturenames", ()):
        return None  # pytest's own protocol
    from _pytest.runner import runtestprotocol  # noqa: PLC0415 - as rerun plugins do

    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    reports = runtestprotocol(item, nextitem=nextitem, log=False)
    aborted = [report for report in reports if report.failed
               and KEYRING_ABORTED in str(report.longrepr)
               and "killed by signal 6" in str(report.longrepr)]
    if aborted:
        why = str(aborted[0].longrepr).split("\n", 1)[0][-600:]
        item._initrequest()  # type: ignore[attr-defined]  # fresh fixtures for the rerun
        reports = runtestprotocol(item, nextitem=nextitem, log=False)
        for report in reports:
            report.user_properties.append((RERUN, why))
    for report in reports:
        item.ihook.pytest_runtest_logreport(report=report)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    reran = sorted({report.nodeid for reports in terminalreporter.stats.values()
                    for report in reports
                    if any(name == RERUN for name, _ in getattr(report, "user_properties", ()))})
    for nodeid in reran:
        terminalreporter.write_line(f"run again after the keyring daemon aborted: {nodeid}")
    watchdog = config.stash[WATCHDOG]
    peaks = config.stash[WORKER_PEAKS]
    if peaks:
        each = ", ".join(f"{name} {peak:.0f}" for name, peak in sorted(peaks.items()))
        terminalreporter.write_line(f"peak resident size of the test processes: {each} MiB "
                                    f"(bound {watchdog.bound_mib:.0f} each)")
        return
    terminalreporter.write_line(f"peak resident size of the test process: "
                                f"{watchdog.peak_mib:.0f} MiB (bound {watchdog.bound_mib:.0f})")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                  request: pytest.FixtureRequest) -> Iterator[Path]:
    """Point MCPCTL_HOME, HOME and the XDG dirs into tmp_path; fail if the real home changes.

    The environment is restored as it was after the test: code run in-process may set a
    variable for its own children (`top_help.module_text` sets COLUMNS), which must not
    reach a later test's processes, whichever worker and order it runs in."""
    workerinput = getattr(request.config, "workerinput", {})
    for name, value in workerinput.get("mcpctl_terminal", {}).items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    environment = dict(os.environ)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("MCPCTL_HOME", str(tmp_path / "mcpctl-home"))
    for var, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share"),
                     ("XDG_CACHE_HOME", ".cache")):
        monkeypatch.setenv(var, str(home / sub))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    real = [REAL_HOME / ".config" / "mcpctl", REAL_HOME / ".local" / "share" / "mcpctl"]
    before = [p.exists() for p in real]
    yield home
    os.environ.clear()
    os.environ.update(environment)
    assert [p.exists() for p in real] == before, "a test touched the real home directory"


@pytest.fixture
def mcpctl_home(tmp_path: Path) -> Path:
    return tmp_path / "mcpctl-home"


@pytest.fixture
def user_config(mcpctl_home: Path) -> Path:
    return mcpctl_home / "config" / "config.toml"


@pytest.fixture
def cli(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., Result]:
    """Run mcpctl in-process: `cli("list", "--json")` → Result(code, out, err)."""

    def invoke(*args: str, stdin: str | None = None) -> Result:
        capsys.readouterr()
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        code = run(list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return invoke


def run_mcpctl(
    args: Sequence[str], *, cwd: Path | None = None, stdin: str | None = None,
    env: dict[str, str] | None = None, timeout: float = 60,
) -> Result:
    """Run mcpctl as a real process (`python -m mcpctl`) with the test's environment."""
    proc = subprocess.run(
        [sys.executable, "-m", "mcpctl", *args],
        cwd=cwd, input=stdin, capture_output=True, text=True, timeout=timeout,
        env={**os.environ, **(env or {})}, check=False,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)


def imported_by_mcpctl(args: Sequence[str], env: dict[str, str] | None = None) -> set[str]:
    """Every module `mcpctl ARGS` imported (`-X importtime`), as a real process; it must
    exit 0 (a `run` ends as the server, which exits 0 in these tests)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "mcpctl", *args],
                          capture_output=True, text=True, timeout=60, check=False,
                          env=env or {**os.environ})
    assert done.returncode == 0, done.stderr[-500:]
    return {line.rsplit("|", 1)[1].strip()
            for line in done.stderr.splitlines() if line.startswith("import time:")}


class _Keyring:
    """The worker's keyring daemon, started when a test first needs it, and again if it
    has ended since: a daemon that ends fails the test it ended in (saying how), never
    every keyring test after it on the worker."""

    def __init__(self) -> None:
        self.running = contextlib.ExitStack()
        self.service: SecretService | None = None

    def current(self) -> SecretService:
        if self.service is None or self.service.ended() is not None:
            self.running.close()
            self.service = self.running.enter_context(running_secret_service())
        return self.service


@pytest.fixture(scope="session")
def _secret_service_session() -> Iterator[_Keyring]:
    keyring = _Keyring()
    try:
        yield keyring
    finally:
        keyring.running.close()  # the stack of the daemon running now


@pytest.fixture
def secret_service(
    _secret_service_session: _Keyring, monkeypatch: pytest.MonkeyPatch
) -> Iterator[SecretService]:
    """The real keyring (gnome-keyring over a private D-Bus) for this test, holding no
    secret of mcpctl's: one test's secrets never decide another's outcome."""
    service = _secret_service_session.current()
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", service.bus_address)
    import secretstorage  # noqa: PLC0415 - only keyring tests need it

    connection = connect()
    try:
        collection = secretstorage.get_default_collection(connection)
        for item in collection.search_items({"service": "mcpctl"}):
            item.delete()
    finally:
        connection.close()
    yield service
    ended = service.ended()
    if ended is not None:
        pytest.fail(f"the keyring's daemon ended during this test: {ended}", pytrace=False)


@pytest.fixture
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    """No D-Bus session at all: keyring has no backend (run mcpctl as a process)."""
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
