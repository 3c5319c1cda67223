"""The layer table: which package may import which (issue: one way down).

A module may import from its own package and from packages of lower layers only,
at module level or inside a function. `tests/test_layers.py` enforces it.
"""

from __future__ import annotations

# Lowest first. Packages on one row do not import each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors",),  # the error types and exit codes, which any module may raise
    ("__init__", "layers", "model", "paths", "sha256"),
    ("machine",),  # the invocation: mcpctl's Paths plus what the process was started with
    ("files", "syntax", "variables", "tokens"),
    # filtering: its store of judged answers writes through files/ (issue 29)
    ("credentials", "filtering"),
    ("config",),
    ("pinning", "registry"),  # registry: the MCP Registry (issue 28)
    ("trust",),
    ("launch",),
    ("protocol",),
    ("lint",),
    ("probing",),
    ("clients",),
    ("reports",),
    ("cli",),
    ("__main__",),
)


def layer_of(package: str) -> int:
    """The row of a top-level module or package of mcpctl (KeyError when unlisted)."""
    for index, row in enumerate(LAYERS):
        if package in row:
            return index
    raise KeyError(package)
