"""The shape of every connection mcpctl opens to the Secret Service, its own and those of
keyring inside it, as the bus carries them (`dbus-monitor` on the test's private bus):
the first message is an awaited `Peer.Ping`, never a property read, which gnome-keyring
can abort on when it comes before the daemon's record of the caller
(`secret_service.register`)."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.components import require_program
from tests.conftest import run_mcpctl
from tests.secret_service import SecretService

CALL = re.compile(r"^method call .* sender=(\S+) -> destination=org\.freedesktop\.secrets "
                  r".*interface=([\w.]+); member=(\w+)$")


@contextmanager
def watched(address: str) -> Iterator[dict[str, list[str]]]:
    """The method calls to the Secret Service while the block runs, by sender, in order."""
    process = subprocess.Popen(
        [require_program("dbus-monitor"), "--address", address, "type='method_call'"],
        stdout=subprocess.PIPE, text=True)
    calls: dict[str, list[str]] = {}
    try:
        assert process.stdout is not None
        for line in process.stdout:  # bounded: it says so once it is a monitor
            if "member=NameLost" in line:
                break
        yield calls
    finally:
        process.terminate()
        out, _ = process.communicate(timeout=30)
    for line in out.splitlines():
        found = CALL.match(line)
        if found:
            sender, interface, member = found.groups()
            calls.setdefault(sender, []).append(f"{interface}.{member}")


def test_every_connection_pings_the_service_before_anything_else(
        secret_service: SecretService, user_config: Path, tmp_path: Path) -> None:
    """`secret set` and `secret check` (keyring's connections and the collection's
    state) and `run` with a secret (the direct read). Planted by hand: without the
    ping in `secret_service.read` the run's connection began with `Properties.Get`,
    and without `keyring_store._register_connections` every keyring connection did."""
    marker = tmp_path / "started"
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(f'[servers.gh]\ncommand = "{sys.executable}"\n'
                           f'args = ["-c", "open({str(marker)!r}, \\"w\\")"]\n'
                           'env = { T = "${secret:shape-token}" }\n')
    with watched(secret_service.bus_address) as calls:
        assert run_mcpctl(["secret", "set", "shape-token", "--stdin"],
                          stdin="sk-live-0123456789abcdef0123\n").code == 0
        assert run_mcpctl(["secret", "check"]).code == 0
        assert run_mcpctl(["run", "gh"]).code == 0
    assert marker.exists()
    firsts = {sender: made[0] for sender, made in calls.items()}
    assert set(firsts.values()) == {"org.freedesktop.DBus.Peer.Ping"}, calls
    # Not vacuous: keyring's connections and the direct read's each read a property.
    reading = [made for made in calls.values() if "org.freedesktop.DBus.Properties.Get" in made]
    assert len(reading) >= 3, calls
    assert any("org.freedesktop.Secret.Item.GetSecret" in made for made in calls.values())
