"""Shared fixtures: every test runs with mcpctl's dirs and HOME inside tmp_path, leaves
no process behind, and stays within a memory bound (see tests/processes.py, memory.py)."""

from __future__ import annotations

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

from mcpctl.cli.main import run
from tests.memory import DEFAULT_BOUND_MIB, Watchdog
from tests.processes import SESSION_VARIABLE, kill_all, lingering_after_settling
from tests.secret_service import SecretService, running_secret_service

REPO = Path(__file__).resolve().parent.parent
REAL_HOME = Path.home()


Cli = Callable[..., "Result"]


@dataclass
class Result:
    code: int
    out: str
    err: str


WATCHDOG = pytest.StashKey[Watchdog]()


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
    watchdog.start()


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
    """The last look: anything still running once every fixture is torn down fails the run."""
    session.config.stash[WATCHDOG].stop()
    left = lingering_after_settling(os.environ[SESSION_VARIABLE])
    if left:
        kill_all(list(left))
        sys.stderr.write(f"\nthe test session left processes running, now killed: "
                         f"{describe(left)}\n")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    watchdog = config.stash[WATCHDOG]
    terminalreporter.write_line(f"peak resident size of the test process: "
                                f"{watchdog.peak_mib:.0f} MiB (bound {watchdog.bound_mib:.0f})")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point MCPCTL_HOME, HOME and the XDG dirs into tmp_path; fail if the real home changes."""
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


@pytest.fixture(scope="session")
def _secret_service_session() -> Iterator[SecretService]:
    with running_secret_service() as service:
        yield service


@pytest.fixture
def secret_service(
    _secret_service_session: SecretService, monkeypatch: pytest.MonkeyPatch
) -> SecretService:
    """The real keyring (gnome-keyring over a private D-Bus) for this test, holding no
    secret of mcpctl's: one test's secrets never decide another's outcome."""
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", _secret_service_session.bus_address)
    import secretstorage  # noqa: PLC0415 - only keyring tests need it

    connection = secretstorage.dbus_init()
    try:
        collection = secretstorage.get_default_collection(connection)
        for item in collection.search_items({"service": "mcpctl"}):
            item.delete()
    finally:
        connection.close()
    return _secret_service_session


@pytest.fixture
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    """No D-Bus session at all: keyring has no backend (run mcpctl as a process)."""
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
