"""Secrets in the OS keyring (DESIGN §5). The only module that imports `keyring`, and
only when a secret is actually read or written, so importing this module is cheap.

Values live under service "mcpctl", one entry per secret name. The keyring cannot
list its entries, so the names (never the values) are kept in an index file in the
data dir (0600, atomic, locked). No usable backend is an error that names what was
tried and the fix, with exit 5; there is never a fallback to a plaintext file.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mcpctl.credentials import secret_service
from mcpctl.errors import ConfigError, KeyringUnavailable, UsageError
from mcpctl.files.atomic import atomic_write_text, file_lock
from mcpctl.variables import SECRET_NAME

SERVICE = "mcpctl"
INDEX_SCHEMA_VERSION = 1
# Backends that are not a real OS keyring: refusing them keeps secrets off disk.
_REFUSED_BACKENDS = ("keyring.backends.fail", "keyring.backends.null", "keyrings.alt")
_FIX = ("on Linux run a Secret Service (e.g. gnome-keyring or KeePassXC) in your D-Bus "
        "session; on macOS and Windows the system keyring is used")


def check_secret_name(name: str) -> None:
    if not SECRET_NAME.match(name):
        raise UsageError(f"invalid secret name {name!r}: use 1-128 of A-Z a-z 0-9 _ . -")


def _backend() -> Any:
    import keyring  # noqa: PLC0415 - ~130 ms; only commands that touch secrets pay it

    backend = keyring.get_keyring()
    module = type(backend).__module__
    if module.startswith(_REFUSED_BACKENDS) or _is_empty_chainer(backend):
        raise KeyringUnavailable(
            f"no OS keyring available (keyring chose {type(backend).__module__}."
            f"{type(backend).__name__}); {_FIX}; mcpctl never stores secrets in a file")
    return backend


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
        name = f"{type(backend).__module__}.{type(backend).__name__}"
        raise KeyringUnavailable(f"keyring {name} failed to {action}: {error}; {_FIX}") from None


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
