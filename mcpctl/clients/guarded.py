"""What the guard covers: Claude Code's reading of a repo's `.mcp.json`, and the names in it.

Apart from `write/guard.py` (which plans and writes the guard entries) so that `list`,
which only warns about servers the guard does not cover yet, reads the names without
importing the export machinery.
"""

from __future__ import annotations

from pathlib import Path

GUARDED_CLIENT = "claude-code"
GUARDED_FILE = ".mcp.json"  # the repo file Claude Code reads (the others are not its)


def repo_server_names(path: Path) -> tuple[str, ...]:
    """Every name under `mcpServers` in a repo's `.mcp.json`, including entries mcpctl
    itself cannot read: Claude Code may start them, and the gate refuses them all the
    same. A file that is missing or not JSON defines none (Claude Code starts none)."""
    from mcpctl.config.tier_load import read_config_text  # noqa: PLC0415
    from mcpctl.model import Problem  # noqa: PLC0415
    from mcpctl.syntax import jsonc  # noqa: PLC0415

    if not path.exists():
        return ()
    text = read_config_text(path)
    if isinstance(text, Problem):
        return ()
    try:
        document = jsonc.parse(text, jsonc=False)
    except jsonc.JsonSyntaxError:
        return ()
    servers = document.value.get("mcpServers") if isinstance(document.value, dict) else None
    return tuple(sorted(servers)) if isinstance(servers, dict) else ()
