"""What the guard covers: Claude Code's reading of a repo's `.mcp.json`, and the names in it.

Apart from `write/guard.py` (which plans and writes the guard entries) so that `list`,
which only warns about servers the guard does not cover yet, reads the names without
importing the export machinery.
"""

from __future__ import annotations

from pathlib import Path

GUARDED_CLIENT = "claude-code"
GUARDED_FILE = ".mcp.json"  # the repo file Claude Code reads (the others are not its)

# The guard's one launch shape: `mcpctl run --guard`, with what to start in the entry's
# env, so one allowlist entry covers every guarded entry (issue 22).
GUARD_ARGS = ("run", "--guard")
GUARD_SERVER = "MCPCTL_GUARD_SERVER"
GUARD_WORKSPACE = "MCPCTL_GUARD_WORKSPACE"


def repo_server_names(path: Path) -> tuple[str, ...] | None:
    """Every name under `mcpServers` in a repo's `.mcp.json`, including entries mcpctl
    itself cannot read: Claude Code may start them, and the gate refuses them all the
    same. A missing file defines none; one mcpctl cannot read (not JSON, too large,
    `mcpServers` not an object) is None: the guard keeps what it had (fail closed)."""
    from mcpctl.config.tier_load import read_config_text  # noqa: PLC0415
    from mcpctl.model import Problem  # noqa: PLC0415
    from mcpctl.syntax import jsonc  # noqa: PLC0415

    if not path.exists():
        return ()
    text = read_config_text(path)
    if isinstance(text, Problem):
        return None
    try:
        document = jsonc.parse(text, jsonc=False)
    except jsonc.JsonSyntaxError:
        return None
    if not isinstance(document.value, dict):
        return None
    servers = document.value.get("mcpServers", {})
    return tuple(sorted(servers)) if isinstance(servers, dict) else None
