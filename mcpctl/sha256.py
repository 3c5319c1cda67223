"""SHA-256 of bytes, as hex, without loading OpenSSL for a short input.

Importing `hashlib` loads OpenSSL's libcrypto, which costs about a third of a bare
interpreter's start (11 M instructions here, issue 15), and every `run` needs a
fingerprint. The interpreter's builtin SHA-256 module loads nothing and gives the same
digest; it is only slower on long input (4.1 ms a megabyte here, OpenSSL 0.65 ms), so
input of LONG bytes or more, and every file's content, goes through `hashlib`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

LONG = 64 * 1024
# The builtin module's name: `_sha2` from Python 3.12, `_sha256` before.
_BUILTIN_MODULES = ("_sha2", "_sha256")


def sha256_hex(data: bytes) -> str:
    if len(data) < LONG:
        builtin = _builtin_sha256()
        if builtin is not None:
            return str(builtin(data).hexdigest())
    import hashlib  # noqa: PLC0415 - long input only

    return hashlib.sha256(data).hexdigest()


@functools.cache
def _builtin_sha256() -> Callable[[bytes], Any] | None:
    """The builtin constructor, or None where this Python was built without it."""
    for name in _BUILTIN_MODULES:
        try:
            constructor: Callable[[bytes], Any] = __import__(name).sha256
        except (ImportError, AttributeError):
            continue
        return constructor
    return None
