"""The keyring store in-process against the real keyring: values there, names in the index."""

from __future__ import annotations

import json
import re
import stat
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.errors import KeyringError

from mcpctl.credentials import keyring_store
from mcpctl.errors import ConfigError, KeyringUnavailable, UsageError

pytestmark = pytest.mark.usefixtures("secret_service")


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def test_the_index_keeps_each_name_and_when_it_was_made_never_the_value(
        tmp_path: Path) -> None:
    index = tmp_path / "data" / "secrets.json"
    first, second = unique("b"), unique("a")
    keyring_store.set_secret(index, first, "value-one-Secret-1")
    keyring_store.set_secret(index, second, "value-two-Secret-2")
    data = json.loads(index.read_text())
    created = data["names"][first]["created"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", created)
    assert index.read_text() == json.dumps(data, indent=1, sort_keys=True) + "\n"
    assert data["schema_version"] == 1
    assert stat.S_IMODE(index.stat().st_mode) == 0o600
    assert keyring_store.indexed_names(index) == sorted([first, second])
    keyring_store.set_secret(index, first, "value-three-Secret-3")  # replaced, same date
    assert json.loads(index.read_text())["names"][first]["created"] == created
    assert keyring_store.get_secret(first) == "value-three-Secret-3"


def test_an_index_left_readable_by_all_is_made_private_by_the_next_write(
        tmp_path: Path) -> None:
    """A copied or restored index (0644, as `cp` or an archive leaves it) names the
    user's secrets to every account until it is written again: then it is 0600. With
    the write's `mode=` left out, the file kept its 0644."""
    index = tmp_path / "secrets.json"
    index.write_text(json.dumps({"schema_version": 1, "names": {}}))
    index.chmod(0o644)
    keyring_store.set_secret(index, unique("restored"), "value-Secret-789")
    assert stat.S_IMODE(index.stat().st_mode) == 0o600


def test_delete_says_whether_the_keyring_or_the_index_had_it(tmp_path: Path) -> None:
    index = tmp_path / "secrets.json"
    name = unique("gone")
    keyring_store.set_secret(index, name, "value-Secret-123")
    assert keyring_store.delete_secret(index, name) is True
    assert keyring_store.get_secret(name) is None
    assert keyring_store.indexed_names(index) == []
    assert keyring_store.delete_secret(index, name) is False
    index.write_text(json.dumps({"schema_version": 1, "names": {name: {}}}))
    assert keyring_store.delete_secret(index, name) is True  # only the index had it
    assert keyring_store.indexed_names(index) == []


def test_a_value_only_in_the_keyring_is_still_deleted(tmp_path: Path) -> None:
    name = unique("orphan")
    keyring_store.set_secret(tmp_path / "other.json", name, "value-Secret-456")
    index = tmp_path / "secrets.json"
    assert keyring_store.delete_secret(index, name) is True
    assert keyring_store.get_secret(name) is None


@pytest.mark.parametrize(("text", "why"), [
    ('{"schema_version": 2, "names": {}}', "is from a newer mcpctl; upgrade mcpctl"),
    ('{"schema_version": 1, "names": []}', "is not an mcpctl secret index"),
    ('["names"]', "is not an mcpctl secret index"),
])
def test_an_index_mcpctl_cannot_use_is_refused_and_left_in_place(
        tmp_path: Path, text: str, why: str) -> None:
    index = tmp_path / "secrets.json"
    index.write_text(text)
    with pytest.raises(ConfigError) as refused:
        keyring_store.indexed_names(index)
    assert str(refused.value) == f"secret index {index} {why}"
    with pytest.raises(ConfigError):
        keyring_store.set_secret(index, unique("x"), "value-Secret-789")
    assert index.read_text() == text


def test_an_index_without_a_version_or_at_this_one_is_read(tmp_path: Path) -> None:
    index = tmp_path / "secrets.json"
    index.write_text('{"names": {"old": {}}}')
    assert keyring_store.indexed_names(index) == ["old"]
    index.write_text('{"schema_version": 1, "names": {"new": {}}}')
    assert keyring_store.indexed_names(index) == ["new"]


def test_an_unparsable_index_is_refused_and_left_in_place(tmp_path: Path) -> None:
    index = tmp_path / "secrets.json"
    index.write_text("{ not json")
    with pytest.raises(ConfigError) as refused:
        keyring_store.indexed_names(index)
    assert str(refused.value).startswith(f"secret index {index} is unreadable (")
    assert str(refused.value).endswith("); it was left in place")
    assert index.read_text() == "{ not json"


def test_an_empty_value_or_a_bad_name_stores_nothing(tmp_path: Path) -> None:
    index = tmp_path / "secrets.json"
    name = unique("empty")
    with pytest.raises(UsageError, match=f"^secret '{name}': the value is empty; nothing "
                                         "stored$"):
        keyring_store.set_secret(index, name, "")
    with pytest.raises(UsageError, match=r"^invalid secret name 'a b': use 1-128 of"):
        keyring_store.set_secret(index, "a b", "value-Secret-1")
    with pytest.raises(UsageError, match=r"^invalid secret name"):
        keyring_store.delete_secret(index, "a/b")
    assert not index.exists()
    assert keyring_store.get_secret(name) is None


def test_through_keyring_the_same_value_is_read(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # A configured backend: the direct Secret Service read steps aside for keyring.
    name = unique("kr")
    keyring_store.set_secret(tmp_path / "secrets.json", name, "via-keyring-Secret-1")
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.SecretService.Keyring")
    assert keyring_store.get_secret(name) == "via-keyring-Secret-1"
    assert keyring_store.get_secret(unique("absent")) is None
    assert keyring_store.backend_name() == "keyring.backends.SecretService.Keyring"


class _Backend(KeyringBackend):
    viable = False  # never picked by keyring itself: only where a test chooses it

    def get_password(self, service: str, username: str) -> str | None:
        raise OSError("the keyring's socket went away")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise RuntimeError("the keyring is locked")

    def delete_password(self, service: str, username: str) -> None:
        raise KeyringError("denied")


class PlaintextKeyring(_Backend):
    """Named as a plaintext store, from no known package and without `file_path`."""


class DiskKeyring(_Backend):
    file_path = "keyring.cfg"  # the shape of keyrings.alt's file backends


@pytest.fixture
def chosen() -> Iterator[Callable[[KeyringBackend], None]]:
    """Choose keyring's backend for this test (as keyringrc.cfg would), then restore it."""
    before = keyring.get_keyring()
    yield keyring.set_keyring
    keyring.set_keyring(before)


@pytest.mark.parametrize("backend", [PlaintextKeyring, DiskKeyring])
def test_a_backend_that_keeps_a_file_is_refused_by_name_or_by_shape(
        tmp_path: Path, chosen: Callable[[KeyringBackend], None],
        backend: type[KeyringBackend]) -> None:
    chosen(backend())
    name = f"{backend.__module__}.{backend.__name__}"
    with pytest.raises(KeyringUnavailable, match=f"^refusing the keyring backend {name}: "
                                                 "it keeps secrets in a file"):
        keyring_store.set_secret(tmp_path / "secrets.json", unique("f"), "value-Secret-1")
    assert not (tmp_path / "secrets.json").exists()


def test_a_failing_keyring_is_unavailable_whatever_it_raises(
        tmp_path: Path, chosen: Callable[[KeyringBackend], None]) -> None:
    chosen(_Backend())  # type: ignore[no-untyped-call]
    name = f"{_Backend.__module__}._Backend"
    index = tmp_path / "secrets.json"
    cases: list[tuple[str, Callable[[], object], str]] = [
        ("read a secret", lambda: keyring_store.get_secret(unique("r")),
         "the keyring's socket went away"),
        ("store a secret", lambda: keyring_store.set_secret(index, unique("s"), "v-Secret-1"),
         "the keyring is locked"),
    ]
    for action, call, error in cases:
        with pytest.raises(KeyringUnavailable, match=f"^keyring {name} failed to {action}: "
                                                     f"{error}; on Linux run"):
            call()
    assert not index.exists()


class ChainerBackend(_Backend):
    """Shaped as keyring's own chainer: it hands each call to the backends it holds."""

    def __init__(self, backends: list[KeyringBackend]) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.backends = backends


def test_a_chainer_that_holds_a_file_backend_is_refused(
        tmp_path: Path, chosen: Callable[[KeyringBackend], None]) -> None:
    chosen(ChainerBackend([_Backend(), DiskKeyring()]))  # type: ignore[no-untyped-call]
    name = f"{DiskKeyring.__module__}.DiskKeyring"
    with pytest.raises(KeyringUnavailable, match=f"^refusing the keyring backend {name}: "):
        keyring_store.set_secret(tmp_path / "secrets.json", unique("c"), "value-Secret-1")


def test_a_chainer_that_holds_nothing_is_no_keyring_one_that_holds_a_keyring_is_used(
        tmp_path: Path, chosen: Callable[[KeyringBackend], None]) -> None:
    index = tmp_path / "secrets.json"
    chosen(ChainerBackend([]))
    with pytest.raises(KeyringUnavailable, match=r"^no OS keyring available"):
        keyring_store.set_secret(index, unique("e"), "value-Secret-1")
    chosen(ChainerBackend([_Backend()]))  # type: ignore[no-untyped-call]
    with pytest.raises(KeyringUnavailable, match=r"failed to store a secret: the keyring is "
                                                 "locked"):
        keyring_store.set_secret(index, unique("e"), "value-Secret-1")


class AnsweringKeyring(_Backend):
    def get_password(self, service: str, username: str) -> str | None:
        return f"{service}/{username} from keyring"


def test_when_the_direct_read_finds_nothing_keyring_is_asked(
        chosen: Callable[[KeyringBackend], None]) -> None:
    # The Secret Service has no such item; the backend keyring was given answers.
    chosen(AnsweringKeyring())  # type: ignore[no-untyped-call]
    name = unique("elsewhere")
    assert keyring_store.get_secret(name) == f"mcpctl/{name} from keyring"


def test_a_configured_backend_is_obeyed_even_when_the_secret_service_has_the_name(
        tmp_path: Path, chosen: Callable[[KeyringBackend], None],
        monkeypatch: pytest.MonkeyPatch) -> None:
    name = unique("both")
    keyring_store.set_secret(tmp_path / "secrets.json", name, "secret-service-Value-1")
    chosen(AnsweringKeyring())  # type: ignore[no-untyped-call]
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "tests.credentials.AnsweringKeyring")
    assert keyring_store.get_secret(name) == f"mcpctl/{name} from keyring"


class DenyingKeyring(_Backend):
    def get_password(self, service: str, username: str) -> str | None:
        return None


def test_a_keyring_that_refuses_to_delete_is_unavailable(
        tmp_path: Path, chosen: Callable[[KeyringBackend], None],
        monkeypatch: pytest.MonkeyPatch) -> None:
    chosen(DenyingKeyring())  # type: ignore[no-untyped-call]
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "tests.credentials.DenyingKeyring")
    name = f"{DenyingKeyring.__module__}.DenyingKeyring"
    with pytest.raises(KeyringUnavailable, match=f"^keyring {name} failed to delete a "
                                                 "secret: denied; on Linux run"):
        keyring_store.delete_secret(tmp_path / "secrets.json", unique("d"))


def test_the_connection_hook_is_installed_once_however_many_secrets_are_read(
        tmp_path: Path) -> None:
    """mcpctl wraps keyring's Secret Service connection once per process, so that each
    new connection is pinged first. Wrapped again at each secret (its "already wrapped"
    check dropped), every later connection was pinged once per secret read before it,
    and a process reading about a thousand secrets nested past the recursion limit."""
    import secretstorage  # noqa: PLC0415 - keyring's Secret Service backend, here for its hook

    index = tmp_path / "secrets.json"
    keyring_store.set_secret(index, unique("first"), "value-Secret-111")
    hooked = secretstorage.dbus_init
    assert getattr(hooked, "registers", False)
    for _ in range(3):
        keyring_store.set_secret(index, unique("again"), "value-Secret-222")
    assert secretstorage.dbus_init is hooked
