"""`mcpctl secret check`: which keyring, and ok, missing, locked or refused (issue 26).

Each state is met for real: the shared gnome-keyring (ok), no D-Bus session (missing),
a private gnome-keyring started without a login keyring (missing: no default
collection), a private one whose collection the test locks over D-Bus (locked), and a
backend that keeps secrets in a file (refused). Nothing is stored to find out.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from mcpctl.credentials.keyring_store import SCRIPT_RECIPE
from tests.conftest import REPO, run_mcpctl
from tests.credentials.test_keyring_backends import install_backend
from tests.secret_service import SecretService, connect, running_secret_service


def check(env: dict[str, str] | None = None) -> tuple[int, dict[str, object], str]:
    result = run_mcpctl(["secret", "check", "--json"], env=env)
    return result.code, json.loads(result.out), result.err


@pytest.mark.usefixtures("secret_service")
def test_an_unlocked_secret_service_is_ok_and_nothing_is_stored(mcpctl_home: Path) -> None:
    code, document, err = check()
    assert (code, document["state"], err) == (0, "ok", "")
    assert document["backend"] == "keyring.backends.SecretService.Keyring"
    text = run_mcpctl(["secret", "check"])
    assert text.out == "keyring: ok (keyring.backends.SecretService.Keyring)\n"
    assert not (mcpctl_home / "data" / "secrets.json").exists()


@pytest.mark.usefixtures("no_keyring")
def test_no_session_bus_is_missing_with_the_script_fix() -> None:
    code, document, err = check()
    assert (code, document["state"], document["backend"]) == (5, "missing", None)
    assert SCRIPT_RECIPE in str(document["message"])
    assert err.startswith("mcpctl: error: keyring missing: no OS keyring available")


def test_a_secret_service_with_no_login_keyring_is_missing() -> None:
    with running_secret_service(unlock=False) as service:
        code, document, _ = check({"DBUS_SESSION_BUS_ADDRESS": service.bus_address})
        assert (code, document["state"]) == (5, "missing")
        assert "no default collection" in str(document["message"])


def test_a_locked_collection_is_locked() -> None:
    with running_secret_service() as service:
        bus = {"DBUS_SESSION_BUS_ADDRESS": service.bus_address}
        assert check(bus)[1]["state"] == "ok"
        lock(service)
        code, document, err = check(bus)
        assert (code, document["state"]) == (5, "locked")
        assert "default collection is locked" in err


def test_a_secret_service_that_does_not_answer_is_missing() -> None:
    """A daemon that holds its name on the bus but answers nothing (stopped here): keyring
    still picks it, and reading a secret would hang. Planted: the `unreachable` state
    not handled (`keyring_store.py:96`), and the check said ok."""
    with running_secret_service() as service:
        os.kill(service.daemon.pid, signal.SIGSTOP)
        try:
            code, document, err = check({"DBUS_SESSION_BUS_ADDRESS": service.bus_address})
        finally:
            os.kill(service.daemon.pid, signal.SIGCONT)
    assert (code, document["state"]) == (5, "missing")
    assert "the Secret Service does not answer" in err


def lock(service: SecretService) -> None:
    import secretstorage  # noqa: PLC0415

    previous = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    os.environ["DBUS_SESSION_BUS_ADDRESS"] = service.bus_address
    try:
        connection = connect()
        try:
            collection = secretstorage.get_default_collection(connection)
            collection.lock()
            assert collection.is_locked()
        finally:
            connection.close()
    finally:
        if previous is None:
            del os.environ["DBUS_SESSION_BUS_ADDRESS"]
        else:
            os.environ["DBUS_SESSION_BUS_ADDRESS"] = previous


def test_a_file_backend_is_refused(tmp_path: Path) -> None:
    stub = tmp_path / "stub"
    env = {"PYTHON_KEYRING_BACKEND": install_backend(stub, "keyrings.alt.file",
                                                     "PlaintextKeyring"),
           "PYTHONPATH": os.pathsep.join([str(stub), str(REPO)])}
    code, document, _ = check(env)
    assert (code, document["state"], document["backend"]) == (5, "refused", None)
    assert "keeps secrets in a file" in str(document["message"])
