"""Shared fixtures: every test runs with mcpctl's dirs and HOME inside tmp_path."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from mcpctl.cli.main import run
from tests.secret_service import SecretService, running_secret_service

REPO = Path(__file__).resolve().parent.parent
REAL_HOME = Path.home()


Cli = Callable[..., "Result"]


@dataclass
class Result:
    code: int
    out: str
    err: str


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
