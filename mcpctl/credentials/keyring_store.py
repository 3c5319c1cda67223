"""Secrets in the OS keyring (DESIGN §5). The only module that imports `keyring`, and
only when a secret is actually read or written, so importing this module is cheap.

Values live under service "mcpctl", one entry per secret name. The keyring cannot
list its entries, so the names (never the values) are kept in an index file in the
data dir (0600, atomic, locked). No usable backend is an error that names what was
tried and the fix, with exit 5; there is never a fallback to a plaintext file.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mcpctl.credentials import secret_service
from mcpctl.errors import ConfigError, KeyringUnavailable, UsageError
from mcpctl.files.atomic import atomic_write_text, file_lock
from mcpctl.variables import SECRET_NAME

SERVICE = "mcpctl"
INDEX_SCHEMA_VERSION = 1
# Backends that are not a real OS keyring.
_NO_KEYRING = ("keyring.backends.fail", "keyring.backends.null")
# Backends that keep secrets in a file (plaintext, or encrypted with a password kept
# next to it): refused, so a secret never lands on disk (DESIGN §5, issue 14).
_FILE_BACKENDS = ("keyrings.alt", "keyrings.cryptfile")
# The one recipe for a machine with no desktop session (a server, a container, CI): a
# D-Bus session bus with gnome-keyring's Secret Service in it, unlocked by a password
# read from the environment. mcpctl then runs inside that shell.
HEADLESS_RECIPE = ("dbus-run-session -- sh -c 'printf %s \"$KEYRING_PASSWORD\" | "
                   "gnome-keyring-daemon --unlock --components=secrets >/dev/null && "
                   "exec \"$SHELL\"'")
# The same for a script, with no shell to enter (issue 26): a session bus and an unlocked
# gnome-keyring for the rest of the script, and for what it starts.
SCRIPT_RECIPE = ('export DBUS_SESSION_BUS_ADDRESS="$(dbus-daemon --session --fork '
                 '--print-address=1)"; printf %s "$KEYRING_PASSWORD" | gnome-keyring-daemon '
                 '--unlock --components=secrets >/dev/null')
_FIX = ("on Linux run a Secret Service (gnome-keyring, or KeePassXC with its Secret Service "
        f"integration) in your D-Bus session; with no desktop session run: {HEADLESS_RECIPE} "
        f"and use mcpctl in that shell (in a script: {SCRIPT_RECIPE}); on macOS and Windows "
        "the system keyring is used")
_FILE_FIX = ("unset PYTHON_KEYRING_BACKEND, or remove that backend (its package, or its line "
             "in keyringrc.cfg)")


def check_secret_name(name: str) -> None:
    if not re.match(SECRET_NAME, name):
        raise UsageError(f"invalid secret name {name!r}: use 1-128 of A-Z a-z 0-9 _ . -")


def backend_name() -> str:
    """The keyring backend mcpctl would use; KeyringUnavailable when it refuses it."""
    return _name(_backend())


class KeyringCheck:
    """What `secret check` says: the backend keyring picks and whether mcpctl can use it.
    A plain class: this module postpones its annotations (see tests/test_value_modules)."""

    __slots__ = ("backend", "message", "state")

    def __init__(self, backend: str | None, state: str, message: str) -> None:
        self.backend = backend  # None: keyring found none mcpctl accepts
        self.state = state  # ok, missing, locked, refused
        self.message = message


def check_keyring() -> KeyringCheck:
    """Judge the keyring without storing anything: refused (keeps secrets in a file),
    missing (no backend, or a Secret Service with no default collection), locked (a
    Secret Service whose default collection is locked: a read would need a prompt), ok."""
    import keyring  # noqa: PLC0415

    try:
        name = backend_name()
    except KeyringUnavailable as error:
        chosen = _chosen(keyring)
        refused = chosen is not None and _file_backend(chosen) is not None
        return KeyringCheck(None, "refused" if refused else "missing", str(error))
    if name.startswith("keyring.backends.SecretService"):
        state = secret_service.collection_state()
        if state == "locked":
            return KeyringCheck(name, "locked", (
                "the Secret Service's default collection is locked (reading a secret would "
                "wait for an unlock prompt); unlock it in the desktop session, or start an "
                f"unlocked one: {_FIX}"))
        if state == "absent":
            return KeyringCheck(name, "missing", (
                "the Secret Service has no default collection (gnome-keyring was started "
                f"without --unlock); {_FIX}"))
        if state == "unreachable":
            return KeyringCheck(name, "missing", f"the Secret Service does not answer; {_FIX}")
    return KeyringCheck(name, "ok", f"secrets are kept by {name}")


def _backend() -> Any:
    import keyring  # noqa: PLC0415 - ~130 ms; only commands that touch secrets pay it

    _register_connections()
    backend = _chosen(keyring)
    if backend is None:
        raise KeyringUnavailable(f"keyring could not load the backend it chose (a Secret "
                                 f"Service needs a D-Bus session bus); {_FIX}")
    stored_in_file = _file_backend(backend)
    if stored_in_file is not None:
        raise KeyringUnavailable(
            f"refusing the keyring backend {stored_in_file}: it keeps secrets in a file, and "
            f"mcpctl never stores secrets in a file; {_FILE_FIX}; {_FIX}")
    if type(backend).__module__.startswith(_NO_KEYRING) or _is_empty_chainer(backend):
        raise KeyringUnavailable(
            f"no OS keyring available (keyring chose {_name(backend)}); {_FIX}; mcpctl never "
            "stores secrets in a file")
    return backend


def _chosen(keyring: Any) -> Any:
    """keyring's backend, or None when loading it failed: keyring judges a backend named
    by PYTHON_KEYRING_BACKEND by asking it, and the Secret Service's asking opens the
    session bus, which raises where there is none."""
    try:
        return keyring.get_keyring()
    except Exception:  # noqa: BLE001 - any backend's own failure to load
        return None


def _register_connections() -> None:
    """Each D-Bus connection keyring's Secret Service backend opens (`dbus_init`, once
    per operation and in its viability check) pings the service first, awaited, before
    keyring's first property read (`secret_service.register` says why). Set once per
    process, before keyring looks for its backend; a ping that fails is left to
    keyring's own calls to report."""
    try:
        import secretstorage  # noqa: PLC0415 - keyring's Secret Service backend imports it too
    except ImportError:
        return
    opened = secretstorage.dbus_init
    if getattr(opened, "registers", False):
        return

    def dbus_init() -> Any:
        connection = opened()
        with contextlib.suppress(Exception):  # keyring reports a service that fails
            secret_service.register(connection)
        return connection

    dbus_init.registers = True  # type: ignore[attr-defined]
    secretstorage.dbus_init = dbus_init


def _name(backend: Any) -> str:
    return f"{type(backend).__module__}.{type(backend).__name__}"


def _file_backend(backend: Any) -> str | None:
    """The name of a file-keeping backend that `backend` is or chains to, if any. Judged
    by origin and by shape: keyrings.alt's and similar backends expose `file_path`."""
    chained = getattr(backend, "backends", None) if type(backend).__name__ == "ChainerBackend" \
        else None
    for candidate in [backend, *(chained or [])]:
        kind = type(candidate)
        if kind.__module__.startswith(_FILE_BACKENDS) or hasattr(kind, "file_path") \
                or "plaintext" in kind.__name__.lower():
            return _name(candidate)
    return None


def _is_empty_chainer(backend: Any) -> bool:
    return type(backend).__name__ == "ChainerBackend" and not getattr(backend, "backends", [1])


def _call(action: str, function: Any, *args: str) -> Any:
    from keyring.errors import KeyringError, PasswordDeleteError  # noqa: PLC0415

    backend = _backend()
    try:
        return getattr(backend, function)(*args)
    except PasswordDeleteError:
        return None
    except (KeyringError, RuntimeError, OSError) as error:
        raise KeyringUnavailable(f"keyring {_name(backend)} failed to {action}: {error}; "
                                 f"{_FIX}") from None


def get_secret(name: str) -> str | None:
    # Straight from the Secret Service when that is what keyring would pick: skipping
    # keyring's backend discovery is most of `mcpctl run`'s cost with a secret.
    if secret_service.applies(os.environ):
        found = secret_service.read(SERVICE, name)
        if found is not None:
            return found
    value = _call("read a secret", "get_password", SERVICE, name)
    return value if isinstance(value, str) else None


def set_secret(index: Path, name: str, value: str) -> None:
    check_secret_name(name)
    if not value:
        raise UsageError(f"secret {name!r}: the value is empty; nothing stored")
    _call("store a secret", "set_password", SERVICE, name, value)
    _update_index(index, lambda names: names.setdefault(
        name, {"created": datetime.now(UTC).isoformat(timespec="seconds")}))


def delete_secret(index: Path, name: str) -> bool:
    """Forget the secret; True when the keyring or the index had it."""
    check_secret_name(name)
    existed = get_secret(name) is not None
    _call("delete a secret", "delete_password", SERVICE, name)
    indexed = _update_index(index, lambda names: names.pop(name, None) is not None)
    return existed or indexed


def indexed_names(index: Path) -> list[str]:
    return sorted(_read_index(index)["names"])


def _read_index(index: Path) -> dict[str, Any]:
    try:
        data = json.loads(index.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"schema_version": INDEX_SCHEMA_VERSION, "names": {}}
    except (OSError, ValueError) as error:
        raise ConfigError(f"secret index {index} is unreadable ({error}); "
                          "it was left in place") from None
    if not isinstance(data, dict) or not isinstance(data.get("names"), dict):
        raise ConfigError(f"secret index {index} is not an mcpctl secret index")
    if data.get("schema_version", 0) > INDEX_SCHEMA_VERSION:
        raise ConfigError(f"secret index {index} is from a newer mcpctl; upgrade mcpctl")
    return data


def _update_index(index: Path, change: Any) -> Any:
    with file_lock(index):
        data = _read_index(index)
        result = change(data["names"])
        atomic_write_text(index, json.dumps(data, indent=1, sort_keys=True) + "\n", mode=0o600)
        return result
