"""Workspace config formats as data: one row per client file (DESIGN §2, STYLE 9).

Adding a client's format is one row here plus a fixture under tests/.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath

# Field names other clients use for what mcpctl calls `url`.
_URL_ALIASES = {"serverUrl": "url", "httpUrl": "url"}


@dataclass(frozen=True)
class ConfigFormat:
    id: str
    relative_path: str
    top_key: str
    jsonc: bool
    aliases: Mapping[str, str] = field(default_factory=lambda: dict(_URL_ALIASES))
    # Top-level keys that may stand beside `top_key` without being an error.
    companion_keys: frozenset[str] = frozenset({"$schema"})


WORKSPACE_FORMATS: tuple[ConfigFormat, ...] = (
    ConfigFormat("claude", ".mcp.json", "mcpServers", jsonc=False),
    ConfigFormat("mcp.json", "mcp.json", "mcpServers", jsonc=False),
    ConfigFormat("vscode", ".vscode/mcp.json", "servers", jsonc=True,
                 companion_keys=frozenset({"$schema", "inputs"})),
    ConfigFormat("cursor", ".cursor/mcp.json", "mcpServers", jsonc=False),
)

# The `type` values clients write, mapped to mcpctl's transports.
TRANSPORT_ALIASES: Mapping[str, str] = {
    "stdio": "stdio",
    "local": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamableHttp": "http",
    "remote": "http",
    "sse": "sse",
}

ALL_TOP_KEYS = frozenset(f.top_key for f in WORKSPACE_FORMATS)


def format_by_id(format_id: str) -> ConfigFormat | None:
    return next((f for f in WORKSPACE_FORMATS if f.id == format_id), None)


def format_for_path(path: str) -> ConfigFormat | None:
    """Recognise a file's format by the tail of its path (`x/.vscode/mcp.json` → vscode)."""
    parts = PurePosixPath(path.replace("\\", "/")).parts
    best: ConfigFormat | None = None
    for candidate in WORKSPACE_FORMATS:
        tail = PurePosixPath(candidate.relative_path).parts
        if tuple(parts[-len(tail):]) == tail and (
            best is None or len(tail) > len(PurePosixPath(best.relative_path).parts)
        ):
            best = candidate
    return best
