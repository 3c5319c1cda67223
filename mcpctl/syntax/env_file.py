"""`envFile` contents: KEY=VALUE lines, as the launch and the pinning both read them."""

from __future__ import annotations

import re
from pathlib import Path

from mcpctl.errors import ConfigError

_ENV_LINE = r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$"  # compiled on first use


def read_env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines (`export` allowed, `#` comments, optional matching quotes)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"envFile {path} cannot be read: {error}") from None
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
