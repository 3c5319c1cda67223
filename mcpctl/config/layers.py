"""A layered format's files read as one (Codex's project layers, issue 22 item 2).

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
from pathlib import Path
from typing import Any

from mcpctl.config.formats import ConfigFormat
from mcpctl.config.tier_load import TierLoad
from mcpctl.config.workspace import definition_from_entry, parsed_file, servers_in
from mcpctl.model import Problem
from mcpctl.syntax.jsonc import JsonDocument

Layer = tuple[int, Path, JsonDocument, str, Mapping[str, Any]]  # distance, file, its servers


def load_layers(found: Sequence[tuple[int, Path]], fmt: ConfigFormat, rank: int) -> TierLoad:
    """`found`: (distance from the current folder, file), nearest first. Each name is one
    definition: its nearest file is its source (and its folder the one it is gated
    for), the farther files it takes keys from are its `layers`."""
    load = TierLoad(files=[path for _, path in found])
    layers: list[Layer] = []
    for distance, path in found:
        document = parsed_file(path, fmt)
        servers = [document] if isinstance(document, Problem) else \
            servers_in(document, fmt, path)
        if isinstance(servers, list):
            load.problems.extend(servers)
        elif not isinstance(document, Problem):
            layers.append((distance, path, document, *servers))
    if load.problems:
        return load  # the merged entries cannot be known; Codex starts none of them
    for name in dict.fromkeys(name for *_, servers in layers for name in servers):
        having = [layer for layer in layers if name in layer[4]]
        distance, path, document, key, _ = having[0]
        entry = merged([servers[name] for *_, servers in reversed(having)])
        farther = tuple((p, d.position((k, name))[0]) for _, p, d, k, _ in having[1:])
        definition = definition_from_entry(name, entry, fmt, path, document, key,
                                           rank + distance, farther)
        if isinstance(definition, Problem):
            load.problems.append(definition)
        else:
            load.definitions.append(definition)
    return load


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
