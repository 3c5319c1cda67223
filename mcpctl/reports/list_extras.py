"""What `list` adds beside each server without starting anything: the last probe's
cost (from the cache) and the name-only approvals other clients keep (read from disk).
"""

from __future__ import annotations

import time
from typing import Any

from mcpctl.clients.weak_approvals import WeakApprovals, load_weak_approvals
from mcpctl.config.merge import MergedServer
from mcpctl.machine import Machine
from mcpctl.paths import Paths
from mcpctl.probing import cache as probe_cache
from mcpctl.trust.view import TrustStates


def last_probe(paths: Paths, states: TrustStates, server: MergedServer) -> dict[str, Any] | None:
    """The most recent cached probe of the server's winning definition, if any."""
    fingerprint = states.status(server.winner).fingerprint
    cached = probe_cache.load(paths, fingerprint)
    if cached is None:
        return None
    return {"tools": len(cached.tools), "tokens": cached.total_tokens,
            "probed_at": cached.probed_at, "age_seconds": round(time.time() - cached.probed_at),
            "capabilities": list(cached.capabilities), "tokenizer": cached.tokenizer}


def weak_approvals_here(machine: Machine, servers: list[MergedServer]) -> WeakApprovals:
    """Claude Code's name-only approvals of this workspace's `.mcp.json` servers."""
    project = [d.name for s in servers for d in s.definitions if d.source.format_id == "claude"]
    return load_weak_approvals(machine.root, project, machine.environ, machine.home)
