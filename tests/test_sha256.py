"""`sha256_hex` is SHA-256 whichever module computes it, and short input loads no OpenSSL."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest

from mcpctl.sha256 import LONG, sha256_hex


@pytest.mark.parametrize("size", [0, 1, 55, 56, 64, 1000, LONG - 1, LONG, LONG + 1, 3 * LONG])
def test_the_digest_is_sha256_on_both_sides_of_the_bound(size: int) -> None:
    data = os.urandom(size)
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_a_known_digest() -> None:
    assert sha256_hex(b"abc") == ("ba7816bf8f01cfea414140de5dae2223"
                                  "b00361a396177a9cb410ff61f20015ad")


def test_short_input_loads_no_openssl_and_long_input_does() -> None:
    probe = ("import sys; from mcpctl.sha256 import sha256_hex; sha256_hex(b'x' * {n}); "
             "print('_hashlib' in sys.modules)")
    seen = [subprocess.run([sys.executable, "-c", probe.format(n=n)], capture_output=True,
                           text=True, check=True, timeout=60).stdout.strip()
            for n in (LONG - 1, LONG)]
    assert seen == ["False", "True"]


@pytest.mark.parametrize("size", [(1 << 20) - 1, 1 << 20, (1 << 20) + 1, 3 << 20])
def test_long_input_is_hashed_whole_past_a_mebibyte(size: int) -> None:
    """A manifest of 10,000 files is over 1 MiB: the digest covers every byte of it.

    Planted by hand, `hashlib.sha256(data[:1 << 20])` passed the sizes above (they stop
    at 192 KiB) and fails here: only the last bytes differ between the two inputs."""
    head = os.urandom(size - 1)
    one, other = head + b"a", head + b"b"
    assert sha256_hex(one) == hashlib.sha256(one).hexdigest()
    assert sha256_hex(one) != sha256_hex(other)
