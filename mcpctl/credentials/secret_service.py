"""Reading one secret straight from the Secret Service, without `keyring` (issue 15).

`mcpctl run` reads a secret on every client start of a server that references one.
`keyring` spends most of that time before the first D-Bus message: importing its
plugin machinery, discovering every backend through entry points, and asking each
whether it is viable. On Linux with no choice of backend configured, keyring picks the
Secret Service, so this module asks it directly (jeepney, the D-Bus library keyring's
own Secret Service backend uses underneath), for the item keyring's backend stores:
attributes `service` and `username` in the default collection.

It answers only when that is certainly what keyring would answer; anything else —
another platform, `PYTHON_KEYRING_BACKEND` or a `keyringrc.cfg`, a KDE session (KWallet
may rank first), a `keyrings.*` plugin installed, no session bus, a locked collection or
item, an item not found, any D-Bus error — returns `None` and `keyring_store` asks
keyring as before, with its refusal of plaintext backends. This never reads a file.

The value crosses the session bus with the "plain" algorithm: the bus is private to
the user, whose processes could read the keyring anyway.

Every connection's first message to the service is a `Peer.Ping`, awaited (`register`),
here and in the connections keyring opens (`keyring_store`): gnome-keyring makes its
record of a caller in an idle scheduled when the caller's first message arrives, and a
property read handled before that record exists aborts the daemon (its getter fails
without an error, which GLib asserts against), taking the user's unlocked keyring
with it. A read first was the shape of every connection mcpctl and keyring made; the
ping makes that race rarer, not impossible.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

_BUS_NAME = "org.freedesktop.secrets"
_ROOT = "/org/freedesktop/secrets"
_DEFAULT = "/org/freedesktop/secrets/aliases/default"
# Every D-Bus call is bounded: a hung daemon must not hang a client's server start.
_TIMEOUT = 5.0
# The session buses whose service let a ping go unanswered for _TIMEOUT: it is not
# pinged again in this process (keyring opens a connection for each of its steps, and
# each would wait as long).
_UNANSWERED: set[str] = set()


def applies(environ: Mapping[str, str]) -> bool:
    """True when keyring, left to itself, would choose the Secret Service backend."""
    if not sys.platform.startswith("linux") or not environ.get("DBUS_SESSION_BUS_ADDRESS"):
        return False
    if environ.get("PYTHON_KEYRING_BACKEND"):
        return False
    if "KDE" in environ.get("XDG_CURRENT_DESKTOP", "").split(":"):
        return False
    config_home = environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    if (Path(config_home) / "python_keyring" / "keyringrc.cfg").exists():
        return False
    # Third-party backends (keyrings.alt and others) live in the `keyrings` namespace.
    return importlib.util.find_spec("keyrings") is None


def read(service: str, username: str) -> str | None:
    """The value keyring's Secret Service backend would return, or None to ask keyring."""
    try:
        from jeepney.io.blocking import open_dbus_connection  # noqa: PLC0415
    except ImportError:
        return None
    try:
        with open_dbus_connection(bus="SESSION") as connection:
            register(connection)
            return _read(connection, service, username)
    except Exception:  # noqa: BLE001 - any trouble here means: let keyring decide
        return None


def register(connection: Any) -> None:
    """Have the daemon make its record of this connection before anything asks for it:
    a `Ping` the D-Bus library answers without the daemon's own code, awaited. The
    record's idle is scheduled ahead of the Ping and is of higher priority than the
    handling of a later message. This narrows the race; it did not end it (an abort was
    seen once more after it). Raises what the call raises; once one ping has timed out,
    TimeoutError at once: a hung daemon costs a command one bound, not one per connection."""
    from jeepney import DBusAddress  # noqa: PLC0415

    bus = os.environ.get("DBUS_SESSION_BUS_ADDRESS", "")  # the bus jeepney's SESSION is
    if bus in _UNANSWERED:
        raise TimeoutError("the Secret Service did not answer a ping")
    try:
        _call(connection, DBusAddress(_ROOT, _BUS_NAME, "org.freedesktop.DBus.Peer"), "Ping",
              None, ())
    except TimeoutError:
        _UNANSWERED.add(bus)
        raise


def collection_state() -> str:
    """The default collection as keyring's Secret Service backend would meet it: `ok`
    (unlocked), `locked`, `absent` (no default collection: keyring would have to create
    one, which needs a prompt), or `unreachable` (no bus, no service, a D-Bus error)."""
    try:
        from jeepney import DBusAddress, Properties  # noqa: PLC0415
        from jeepney.io.blocking import open_dbus_connection  # noqa: PLC0415
    except ImportError:
        return "unreachable"
    try:
        with open_dbus_connection(bus="SESSION") as connection:
            register(connection)
            message = Properties(DBusAddress(_DEFAULT, _BUS_NAME,
                                             "org.freedesktop.Secret.Collection")).get("Locked")
            reply = connection.send_and_get_reply(message, timeout=_TIMEOUT)
            if reply.header.message_type.name == "error":
                # gnome-keyring started without a login keyring: "Object does not exist at
                # path …/collection/login" (an alias with no collection behind it).
                return "absent" if "does not exist" in str(reply.body) else "unreachable"
            return "locked" if bool(_unwrap(reply)[0][1]) else "ok"
    except Exception:  # noqa: BLE001 - any trouble here means the service is not usable
        return "unreachable"


def _read(connection: Any, service: str, username: str) -> str | None:
    from jeepney import DBusAddress, Properties  # noqa: PLC0415

    def call(path: str, interface: str, method: str, signature: str | None = None,
             body: tuple[Any, ...] = ()) -> tuple[Any, ...]:
        return _call(connection, DBusAddress(path, _BUS_NAME, interface), method,
                     signature, body)

    def locked(path: str, interface: str) -> bool:
        message = Properties(DBusAddress(path, _BUS_NAME, interface)).get("Locked")
        return bool(_unwrap(connection.send_and_get_reply(message, timeout=_TIMEOUT))[0][1])

    collection_interface = "org.freedesktop.Secret.Collection"
    if locked(_DEFAULT, collection_interface):
        return None
    (items,) = call(_DEFAULT, collection_interface, "SearchItems", "a{ss}",
                    ({"service": service, "username": username},))
    if not items or locked(items[0], "org.freedesktop.Secret.Item"):
        return None
    _output, session = call(_ROOT, "org.freedesktop.Secret.Service", "OpenSession", "sv",
                            ("plain", ("s", "")))
    try:
        ((_session, _params, value, _type),) = call(items[0], "org.freedesktop.Secret.Item",
                                                   "GetSecret", "o", (session,))
    finally:
        call(session, "org.freedesktop.Secret.Session", "Close")
    return bytes(value).decode("utf-8")


def _call(connection: Any, address: Any, method: str, signature: str | None,
          body: tuple[Any, ...]) -> tuple[Any, ...]:
    from jeepney import new_method_call  # noqa: PLC0415

    message = new_method_call(address, method, signature, body)
    return _unwrap(connection.send_and_get_reply(message, timeout=_TIMEOUT))


def _unwrap(reply: Any) -> tuple[Any, ...]:
    from jeepney.wrappers import unwrap_msg  # noqa: PLC0415

    body: tuple[Any, ...] = unwrap_msg(reply)
    return body
