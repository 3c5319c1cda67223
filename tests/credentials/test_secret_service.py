"""The direct Secret Service read `run` uses, against a real gnome-keyring."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcpctl.credentials import secret_service
from mcpctl.credentials.keyring_store import SERVICE
from tests.components import require_program
from tests.conftest import run_mcpctl
from tests.processes import started
from tests.secret_service import SecretService, connect

# Owns the Secret Service's bus name and then never answers a call: a hung daemon.
HUNG_SERVICE = """\
import sys, time
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection
connection = open_dbus_connection(bus="SESSION")
connection.send_and_get_reply(message_bus.RequestName("org.freedesktop.secrets"))
print("ready", flush=True)
time.sleep(600)
"""

# Answers the `Peer.Ping` every connection sends first (`register`), then nothing else.
PING_ONLY_SERVICE = """\
from jeepney import MessageType, new_method_return
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection
connection = open_dbus_connection(bus="SESSION")
connection.send_and_get_reply(message_bus.RequestName("org.freedesktop.secrets"))
print("ready", flush=True)
for _ in range(1000):
    message = connection.receive(timeout=600)
    if message.header.message_type is MessageType.method_call \\
            and message.header.fields.get(3) == "Ping":
        connection.send_message(new_method_return(message))
"""


def stored(value: str) -> str:
    """A fresh secret name holding `value`, stored through keyring (`secret set`)."""
    name = f"direct-{uuid.uuid4().hex[:12]}"
    assert run_mcpctl(["secret", "set", name, "--stdin"], stdin=value + "\n").code == 0
    return name


@pytest.mark.usefixtures("secret_service")
def test_reads_exactly_what_keyring_stored() -> None:
    value = "line one\nline two — ünïcode\tand a tab"
    name = stored(value)
    assert secret_service.applies(os.environ)
    assert secret_service.read(SERVICE, name) == value
    assert secret_service.read(SERVICE, f"{name}-absent") is None
    assert secret_service.read("another-service", name) is None


def test_applies_only_where_keyring_would_pick_the_secret_service(tmp_path: Path) -> None:
    base = {"DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent",
            "XDG_CONFIG_HOME": str(tmp_path)}
    assert secret_service.applies(base) is sys.platform.startswith("linux")
    assert not secret_service.applies({**base, "DBUS_SESSION_BUS_ADDRESS": ""})
    assert not secret_service.applies({**base, "PYTHON_KEYRING_BACKEND": "x.Keyring"})
    assert not secret_service.applies({**base, "XDG_CURRENT_DESKTOP": "ubuntu:KDE"})
    (tmp_path / "python_keyring").mkdir()
    (tmp_path / "python_keyring" / "keyringrc.cfg").write_text("[backend]\n")
    assert not secret_service.applies(base)


def test_no_bus_reads_nothing_and_never_raises() -> None:
    env = {"DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"}
    saved = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    os.environ.update(env)
    try:
        assert secret_service.read(SERVICE, "anything") is None
    finally:
        if saved is None:
            del os.environ["DBUS_SESSION_BUS_ADDRESS"]
        else:
            os.environ["DBUS_SESSION_BUS_ADDRESS"] = saved


def test_a_configured_backend_is_obeyed_even_when_the_secret_service_has_it(
        secret_service: SecretService, user_config: Path, tmp_path: Path) -> None:
    # The user chose the null backend: without the `applies` check the direct read
    # would hand the server the Secret Service's copy anyway.
    name = stored("sk-live-abcdefabcdefabcdefabcdef")
    marker = tmp_path / "started"
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(f'[servers.gh]\ncommand = "{sys.executable}"\n'
                           f'args = ["-c", "open({str(marker)!r}, \\"w\\")"]\n'
                           f'env = {{ T = "${{secret:{name}}}" }}\n')
    refused = run_mcpctl(["run", "gh"], env={
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"})
    assert refused.code == 5
    assert "no OS keyring available (keyring chose keyring.backends.null.Keyring)" in refused.err
    assert not marker.exists()
    # The control: left to keyring's own choice, the same server starts.
    assert run_mcpctl(["run", "gh"]).code == 0
    assert marker.exists()


@pytest.mark.usefixtures("secret_service")
def test_of_two_items_under_one_name_it_reads_the_one_keyring_reads() -> None:
    # keyring's own `set` replaces, but another program can add a second item with the
    # same attributes; keyring then answers with the first the search returns.
    import secretstorage  # noqa: PLC0415 - only keyring tests need it
    from keyring.backends.SecretService import Keyring  # noqa: PLC0415

    name = f"twice-{uuid.uuid4().hex[:12]}"
    connection = connect()
    try:
        collection = secretstorage.get_default_collection(connection)
        for value in ("first-value", "second-value"):
            collection.create_item(f"{SERVICE} {name}", {"service": SERVICE, "username": name},
                                   value.encode(), replace=False)
    finally:
        connection.close()
    expected = Keyring().get_password(SERVICE, name)  # type: ignore[no-untyped-call]
    assert expected in ("first-value", "second-value")
    assert secret_service.read(SERVICE, name) == expected


def test_without_xdg_config_home_the_keyring_config_is_looked_for_in_home() -> None:
    base = {"DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"}
    assert secret_service.applies(base) is sys.platform.startswith("linux")
    config = Path.home() / ".config" / "python_keyring"
    config.mkdir(parents=True)
    (config / "keyringrc.cfg").write_text("[backend]\n")
    assert not secret_service.applies(base)


@contextlib.contextmanager
def service_on_a_private_bus(script: str, folder: Path,
                             monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A session bus of this test's own, with `script` owning the Secret Service's name
    on it (until the block ends)."""
    bus_argv = [require_program("dbus-daemon"), "--session", "--nofork", "--print-address=1"]
    with started(bus_argv, stdout=subprocess.PIPE, text=True, cwd=folder) as bus:
        assert bus.stdout is not None
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", bus.stdout.readline().strip())
        with started([sys.executable, "-c", script], stdout=subprocess.PIPE,
                     text=True) as service:
            assert service.stdout is not None
            assert service.stdout.readline() == "ready\n"
            yield


# A read that never gave up would wait on the hung service (600 s) past this bound.
@pytest.mark.timeout(60)
def test_a_hung_secret_service_is_given_five_seconds_then_keyring_decides(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with service_on_a_private_bus(HUNG_SERVICE, tmp_path, monkeypatch):
        began = time.monotonic()
        assert secret_service.read(SERVICE, "anything") is None
        waited = time.monotonic() - began
    assert waited >= 5.0  # a lower bound: load only lengthens the wait


# A property read that never gave up would wait on the service (600 s) past this bound.
@pytest.mark.timeout(60)
def test_a_service_that_answers_only_the_ping_is_unreachable_after_five_seconds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`secret check` asks whether the default collection is locked, after the ping, and
    so does a direct read. A daemon that answers the ping and then hangs is
    "unreachable", and the read leaves it to keyring, each once its five seconds are up.
    With either property read's `timeout=` left out, it waited for good."""
    with service_on_a_private_bus(PING_ONLY_SERVICE, tmp_path, monkeypatch):
        assert secret_service.collection_state() == "unreachable"
        assert secret_service.read(SERVICE, "anything") is None


def test_without_jeepney_the_read_leaves_it_to_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    # jeepney comes with keyring on Linux only; a module set to None fails to import.
    monkeypatch.setitem(sys.modules, "jeepney.io.blocking", None)
    assert secret_service.read(SERVICE, "anything") is None
