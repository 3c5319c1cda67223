"""On a terminal, a declared secret is asked for without echo and goes to the keyring.

mcpctl runs on a real pseudo-terminal as its controlling terminal (getpass reads
/dev/tty); what the terminal shows is read back and must not hold the secret."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from tests.conftest import run_mcpctl
from tests.registry.registry_server import Registry

SECRET = "BSA" + "k3y" * 9


def read_until(fd: int, wanted: bytes, seen: bytearray, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while wanted not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"no {wanted!r} on the terminal: {bytes(seen)!r}"
        ready, _, _ = select.select([fd], [], [], min(left, 1.0))
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the other side closed
                return
            if not chunk:
                return
            seen.extend(chunk)


def on_a_terminal(argv: list[str], replies: list[tuple[bytes, bytes]], done: bytes) -> str:
    """Run `mcpctl ARGV` with a pseudo-terminal as its controlling terminal, answer each
    prompt, and return what the terminal showed."""
    main, child = pty.openpty()

    def controlling() -> None:  # runs in the child, before exec
        os.setsid()
        fcntl.ioctl(child, termios.TIOCSCTTY, 0)

    process = subprocess.Popen(
        [sys.executable, "-m", "mcpctl", *argv], stdin=child, stdout=child, stderr=child,
        preexec_fn=controlling, env={**os.environ, "TERM": "dumb"})  # noqa: PLW1509
    os.close(child)
    seen = bytearray()
    try:
        for prompt, reply in replies:
            read_until(main, prompt, seen)
            os.write(main, reply + b"\r")
        read_until(main, done, seen)
        assert process.wait(timeout=60) == 0, bytes(seen)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
        os.close(main)
    return bytes(seen).decode(errors="replace")


@pytest.mark.usefixtures("secret_service")
def test_a_declared_secret_is_asked_without_echo(registry: Registry, user_config: Path) -> None:
    shown = on_a_terminal(
        ["add", "brave", "--from-registry", "io.github.brave/brave-search-mcp-server",
         "--registry", registry.url],
        [(b"BRAVE_API_KEY (Your API key for the service): ", SECRET.encode())],
        b"references it as")
    assert SECRET not in shown
    assert "added brave in " in shown
    assert SECRET not in user_config.read_text(encoding="utf-8")
    assert run_mcpctl(["secret", "get", "brave-BRAVE_API_KEY", "--reveal"]).out == SECRET + "\n"


def test_a_required_value_is_asked_on_a_terminal(registry: Registry, user_config: Path) -> None:
    shown = on_a_terminal(
        ["add", "dt", "--from-registry", "io.github.dynatrace-oss/Dynatrace-mcp",
         "--registry", registry.url],
        [(b"env DT_ENVIRONMENT (", b"https://abc12345.apps.dynatrace.com")],
        b"runs:")
    assert "https://abc12345.apps.dynatrace.com" in shown  # not a secret: echoed
    assert 'DT_ENVIRONMENT = "https://abc12345.apps.dynatrace.com"' in \
        user_config.read_text(encoding="utf-8")
