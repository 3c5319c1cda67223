"""Which keyring backend mcpctl accepts: a real OS keyring, never a file (issue 16).

Each refused backend is chosen the way a user's machine would choose it (keyring's own
PYTHON_KEYRING_BACKEND setting) in a real mcpctl process. The plaintext case is an
attack: a backend living under `keyrings.alt` that writes values to a file, as the
keyrings.alt package does; without the refusal the secret would land in that file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Result, run_mcpctl
from tests.tier_files import write

PLAINTEXT_BACKEND = '''\
"""A keyring backend that keeps passwords in a plain file (a test fixture)."""
import json, os
from keyring.backend import KeyringBackend

class PlaintextKeyring(KeyringBackend):
    priority = 1
    path = os.environ["PLAINTEXT_KEYRING_FILE"]

    def _load(self):
        try:
            with open(self.path) as handle:
                return json.load(handle)
        except FileNotFoundError:
            return {}

    def get_password(self, service, username):
        return self._load().get(f"{service}/{username}")

    def set_password(self, service, username, password):
        stored = self._load()
        stored[f"{service}/{username}"] = password
        with open(self.path, "w") as handle:
            json.dump(stored, handle)

    def delete_password(self, service, username):
        stored = self._load()
        stored.pop(f"{service}/{username}", None)
        with open(self.path, "w") as handle:
            json.dump(stored, handle)
'''
FIX = "on Linux run a Secret Service (gnome-keyring, or KeePassXC"
NEVER = "mcpctl never stores secrets in a file"


def set_secret(env: dict[str, str]) -> Result:
    return run_mcpctl(["secret", "set", "api", "--stdin"], stdin="v4lue-Secret-123\n", env=env)


@pytest.mark.parametrize("backend", ["keyring.backends.null.Keyring",
                                     "keyring.backends.fail.Keyring"])
def test_a_backend_that_is_not_a_keyring_is_refused(
    no_keyring: None, mcpctl_home: Path, backend: str
) -> None:
    result = set_secret({"PYTHON_KEYRING_BACKEND": backend})
    assert (result.code, result.out) == (5, "")
    assert result.err.startswith(f"mcpctl: error: no OS keyring available (keyring chose "
                                 f"{backend}); {FIX}")
    assert result.err.endswith(f"; {NEVER}\n")
    assert not (mcpctl_home / "data" / "secrets.json").exists()


def test_a_plaintext_file_backend_is_refused_and_nothing_reaches_its_file(
    no_keyring: None, tmp_path: Path, mcpctl_home: Path
) -> None:
    write(tmp_path / "plugins" / "keyrings" / "alt" / "file.py", PLAINTEXT_BACKEND)
    stolen = tmp_path / "plaintext.json"
    env = {"PYTHONPATH": str(tmp_path / "plugins"), "PLAINTEXT_KEYRING_FILE": str(stolen),
           "PYTHON_KEYRING_BACKEND": "keyrings.alt.file.PlaintextKeyring"}
    result = set_secret(env)
    assert (result.code, result.out) == (5, "")
    assert result.err.startswith("mcpctl: error: refusing the keyring backend "
                                 "keyrings.alt.file.PlaintextKeyring: it keeps secrets in a "
                                 f"file, and {NEVER}; ")
    assert not stolen.exists()
    assert not (mcpctl_home / "data" / "secrets.json").exists()


def test_a_chainer_with_no_backend_is_refused(no_keyring: None, mcpctl_home: Path) -> None:
    # No D-Bus session: the chainer keyring picks would hold nothing usable.
    result = set_secret({"PYTHON_KEYRING_BACKEND": "keyring.backends.chainer.ChainerBackend"})
    assert (result.code, result.out) == (5, "")
    assert result.err.startswith("mcpctl: error: no OS keyring available (keyring chose ")
    assert result.err.endswith(f"; {NEVER}\n")
    assert not (mcpctl_home / "data" / "secrets.json").exists()


@pytest.mark.usefixtures("secret_service")
def test_the_secret_service_is_accepted(mcpctl_home: Path) -> None:
    env = {"PYTHON_KEYRING_BACKEND": "keyring.backends.SecretService.Keyring"}
    assert set_secret(env).code == 0
    listed = run_mcpctl(["secret", "list", "--json"], env=env)
    assert listed.code == 0
    assert json.loads(listed.out)["secrets"] == [
        {"name": "api", "stored": True, "referenced_by": [], "unreferenced": True}]
    assert run_mcpctl(["secret", "rm", "api"], env=env).code == 0


MEMORY_BACKEND = '''\
"""An OS keyring other than the Secret Service, as the macOS Keychain or KWallet would
be to mcpctl: in memory, so nothing reaches a file (a test fixture)."""
from keyring.backend import KeyringBackend

class Keyring(KeyringBackend):
    priority = 1
    stored = {}

    def get_password(self, service, username):
        return self.stored.get((service, username))

    def set_password(self, service, username, password):
        self.stored[(service, username)] = password

    def delete_password(self, service, username):
        self.stored.pop((service, username), None)
'''


def test_an_os_keyring_other_than_the_secret_service_is_checked_as_itself(
    no_keyring: None, tmp_path: Path
) -> None:
    """`secret check` asks the Secret Service about its collection only when it is the
    backend. Planted by hand, that test made true: another OS keyring was said to be
    missing (no D-Bus session answers here), and this failed."""
    write(tmp_path / "plugins" / "os_keyring.py", MEMORY_BACKEND)
    env = {"PYTHONPATH": str(tmp_path / "plugins"),
           "PYTHON_KEYRING_BACKEND": "os_keyring.Keyring"}
    checked = run_mcpctl(["secret", "check", "--json"], env=env)
    assert checked.code == 0, checked.err
    assert json.loads(checked.out)["state"] == "ok"
    assert json.loads(checked.out)["backend"] == "os_keyring.Keyring"


@pytest.mark.parametrize("args", [["secret", "check", "--json"],
                                  ["secret", "set", "api", "--stdin"]])
def test_a_secret_service_named_where_no_bus_answers_is_a_missing_keyring(
    no_keyring: None, mcpctl_home: Path, args: list[str]
) -> None:
    """PYTHON_KEYRING_BACKEND naming the Secret Service with no session bus: keyring
    fails while loading it (the bus's socket is not there). Before, that failure ended
    every secret command as an internal error (exit 70); now the keyring is missing,
    exit 5, with the fix."""
    env = {"PYTHON_KEYRING_BACKEND": "keyring.backends.SecretService.Keyring",
           "DBUS_SESSION_BUS_ADDRESS": f"unix:path={mcpctl_home / 'no-bus'}"}
    result = run_mcpctl(args, stdin="v4lue-Secret-123\n", env=env)
    assert result.code == 5, result.err
    said = json.loads(result.out)["message"] if result.out else result.err
    assert "keyring could not load the backend it chose (a Secret Service needs a D-Bus " \
        f"session bus); {FIX}" in said
    assert not (mcpctl_home / "data" / "secrets.json").exists()
