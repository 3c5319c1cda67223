"""`envFile` contents: KEY=VALUE lines, as the launch and the pinning both read them.

Only a regular file of at most MAX_BYTES is read (issue 23): a link to `/dev/zero` or a
FIFO would otherwise be read until memory runs out, or block the launch forever.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from mcpctl.errors import ConfigError

MAX_BYTES = 1024 * 1024
_ENV_LINE = r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$"  # compiled on first use


def read_env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines (`export` allowed, `#` comments, optional matching quotes)."""
    try:
        text = _bounded_text(path)
    except (OSError, ValueError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise ConfigError(f"envFile {path} cannot be read: {reason}") from None
    if "\0" in text:
        raise ConfigError(f"envFile {path} cannot be read: it holds a NUL byte")
    values: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = re.match(_ENV_LINE, line)
        if match is None:
            continue
        raw = match[2]
        if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
            raw = raw[1:-1]
        values[match[1]] = raw
    return values


def _bounded_text(path: Path) -> str:
    """Opened without blocking (a FIFO must not hang), then checked on the descriptor."""
    handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        status = os.fstat(handle)
        if not stat.S_ISREG(status.st_mode):
            raise ValueError("not a regular file")
        data = bytearray()
        while len(data) <= MAX_BYTES and (chunk := os.read(handle, 64 * 1024)):
            data += chunk
        if len(data) > MAX_BYTES:
            raise ValueError(f"larger than {MAX_BYTES // 1024} KiB")
    finally:
        os.close(handle)
    return bytes(data).decode("utf-8")

