"""How a layered format's files merge into one entry (Codex's project layers, issue 22
item 2); `config/workspace.py` reads them and calls `merged`.

Measured with Codex 0.171.0 (its app-server's MCP status for a thread started in a
subfolder, DESIGN "What each client reads, from a working directory"): the
`.codex/config.toml` of each folder from the current one up to the project root merge
as TOML tables, key by key at every depth, the nearer file winning per key; an array
or any other value is replaced whole. A nearer entry that sets only `env.FOO` keeps the
farther `command`, `args` and every other `env` key. One file that cannot be read, or
one merged entry that is no server, and Codex starts none of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def merged(entries: Sequence[Any]) -> Any:
    """Pure: the entries of one name, farthest first, merged as Codex merges its layers."""
    result = entries[0]
    for entry in entries[1:]:
        result = _merge(result, entry)
    return result


def _merge(far: Any, near: Any) -> Any:
    if isinstance(far, Mapping) and isinstance(near, Mapping):
        return {**far, **{key: _merge(far[key], value) if key in far else value
                          for key, value in near.items()}}
    return near
