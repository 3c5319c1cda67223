"""A real Secret Service for tests: gnome-keyring in a private D-Bus session.

Started once per test session by the `secret_service` fixture. Where gnome-keyring or
dbus-daemon is missing the tests that need it skip — except on CI (`CI=true`), where
a missing component fails them (`tests.components.missing`), so a green CI always means
the keyring was tested.
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.components import require_program
from tests.processes import SESSION_PIDS, stop


@dataclass(frozen=True)
class SecretService:
    bus_address: str
    home: Path
    daemon: subprocess.Popen[str]

    def ended(self) -> str | None:
        """None while the daemon runs; once it has ended, how, and the end of what it
        wrote (its stderr is kept in its home)."""
        code = self.daemon.poll()
        if code is None:
            return None
        how = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
        try:
            said = (self.home / "daemon.log").read_text(errors="replace")[-800:]
        except OSError:
            said = ""
        return f"gnome-keyring-daemon (pid {self.daemon.pid}) ended, {how}; it wrote: {said!r}"


def _read_line(stream: object, timeout: float) -> str:
    assert hasattr(stream, "readline")
    assert hasattr(stream, "fileno")
    ready, _, _ = select.select([stream], [], [], timeout)
    if not ready:
        raise TimeoutError("no answer in time")
    line: str = stream.readline()
    return line.strip()


def wait_for_the_name(address: str, pid: int, timeout: float) -> None:
    """Until `pid` owns the Secret Service's name on the bus: D-Bus's NameOwnerChanged
    signal, watched before NameHasOwner is asked (which starts nothing), so no claim is
    missed. gnome-keyring prints its control socket before it claims the name; a client
    asking in between makes D-Bus start a second daemon, locked, which then keeps the
    name (seen under load: every keyring test of a worker failed)."""
    import time  # noqa: PLC0415

    from jeepney import MatchRule, message_bus  # noqa: PLC0415
    from jeepney.io.blocking import Proxy, open_dbus_connection  # noqa: PLC0415

    name = "org.freedesktop.secrets"
    claimed = MatchRule(type="signal", sender="org.freedesktop.DBus",
                        interface="org.freedesktop.DBus", member="NameOwnerChanged",
                        path="/org/freedesktop/DBus")
    claimed.add_arg_condition(0, name)
    deadline = time.monotonic() + timeout
    with open_dbus_connection(bus=address) as connection:
        bus = Proxy(message_bus, connection, timeout=timeout)
        bus.AddMatch(claimed)
        with connection.filter(claimed) as changes:
            owned = bool(bus.NameHasOwner(name)[0])
            while not owned:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"gnome-keyring did not claim {name} within "
                                       f"{timeout:g} s")
                owned = bool(connection.recv_until_filtered(changes, timeout=left).body[2])
        assert bus.GetConnectionUnixProcessID(name)[0] == pid, \
            f"another process owns {name}"


@contextmanager
def running_secret_service(*, unlock: bool = True) -> Iterator[SecretService]:
    """A bus and a daemon of their own; without `unlock`, the daemon serves with no
    login keyring, so no collection stands behind the default alias."""
    for program in ("dbus-daemon", "gnome-keyring-daemon"):
        require_program(program)
    home = Path(tempfile.mkdtemp(prefix="mcpctl-keyring-"))
    runtime = home / "run"
    runtime.mkdir(mode=0o700)
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "share"),
           "XDG_RUNTIME_DIR": str(runtime)}
    bus = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address=1"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True,
    )
    SESSION_PIDS.add(bus.pid)
    daemon: subprocess.Popen[str] | None = None
    try:
        address = _read_line(bus.stdout, 10)
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        with (home / "daemon.log").open("w") as log:
            daemon = subprocess.Popen(
                ["gnome-keyring-daemon", "--foreground", *(["--unlock"] if unlock else []),
                 "--components=secrets"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, env=env, text=True,
            )
        SESSION_PIDS.add(daemon.pid)
        assert daemon.stdin is not None
        if unlock:
            daemon.stdin.write("test-keyring-password\n")
        daemon.stdin.close()
        _read_line(daemon.stdout, 10)  # its control socket: not yet its name on the bus
        wait_for_the_name(address, daemon.pid, 60)
        yield SecretService(address, home, daemon)
    finally:
        for process in (daemon, bus):
            if process is not None:
                stop(process)
                SESSION_PIDS.discard(process.pid)
        shutil.rmtree(home, ignore_errors=True)


def connect() -> Any:
    """A secretstorage connection to the session bus's Secret Service, registered with
    the daemon before any property read (as mcpctl's own are: `secret_service.register`),
    so the tests' own connections cannot make gnome-keyring abort."""
    import secretstorage  # noqa: PLC0415 - only keyring tests need it

    from mcpctl.credentials.secret_service import register  # noqa: PLC0415

    connection = secretstorage.dbus_init()
    register(connection)
    return connection
