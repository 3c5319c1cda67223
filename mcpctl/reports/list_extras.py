"""What `list` adds beside each server without starting anything: the last probe's
cost (from the cache), the name-only approvals other clients keep (read from disk),
and which client starts a repo's definition that mcpctl shadows with the user's.
"""

from __future__ import annotations

import time
from typing import Any

from mcpctl.clients.precedence import RepoStarter, repo_starters
from mcpctl.clients.weak_approvals import WeakApprovals, load_weak_approvals
from mcpctl.config.merge import MergedServer
from mcpctl.filtering.policy import ToolPolicy
from mcpctl.machine import Machine
from mcpctl.model import Definition, Problem
from mcpctl.paths import Paths
from mcpctl.probing import cache as probe_cache
from mcpctl.trust.view import TrustStates


def last_probe(paths: Paths, states: TrustStates, server: MergedServer,
               policy: ToolPolicy | None = None) -> dict[str, Any] | None:
    """The most recent cached probe of the server's winning definition, if any; with the
    user's tool policy, how many of its tools (and tokens) are on."""
    fingerprint = states.status(server.winner).fingerprint
    cached = probe_cache.load(paths, fingerprint)
    if cached is None:
        return None
    found = {"tools": len(cached.tools), "tokens": cached.total_tokens,
             "probed_at": cached.probed_at, "age_seconds": round(time.time() - cached.probed_at),
             "capabilities": list(cached.capabilities), "tokenizer": cached.tokenizer}
    if policy is not None:
        from mcpctl.filtering.decide import decide  # noqa: PLC0415 - only with a policy

        decisions = decide(cached.tools, cached.tokens, policy)
        found["tools_on"] = sum(d.on for d in decisions)
        found["tokens_on"] = sum(d.tokens or 0 for d in decisions if d.on)
    return found


def tool_policies(machine: Machine) -> tuple[dict[str, ToolPolicy], list[Problem]]:
    """The user's `[tools.NAME]` policies; a table that is not one is a problem of the
    listing (and `run` refuses to start that server), not a failed `list`."""
    from mcpctl.config.tool_policy import read_policies  # noqa: PLC0415
    from mcpctl.errors import ConfigError  # noqa: PLC0415

    try:
        return read_policies(machine.config_file), []
    except ConfigError as error:
        return {}, [Problem(machine.config_file, 1, 1, str(error))]


def weak_approvals_here(machine: Machine, servers: list[MergedServer]) -> WeakApprovals:
    """Claude Code's name-only approvals of this workspace's `.mcp.json` servers."""
    project = [d.name for s in servers for d in s.definitions if d.source.format_id == "claude"]
    return load_weak_approvals(machine.root, project, machine.environ, machine.home)


class Starters(dict[tuple[str, int, str], list[RepoStarter]]):
    """Per shadowed repo definition (by where it is written), the clients that would
    start it instead of the user tier's winner."""

    def of(self, definition: Definition) -> list[RepoStarter]:
        return self.get(_where(definition), [])

    def items_by_definition(self, servers: list[MergedServer]
                            ) -> list[tuple[Definition, list[RepoStarter]]]:
        return [(d, self.of(d)) for s in servers for d in s.shadowed if self.of(d)]


def _where(definition: Definition) -> tuple[str, int, str]:
    return str(definition.source.path), definition.source.line, definition.name


def starters_of(servers: list[MergedServer], claude: WeakApprovals | None) -> Starters:
    found = Starters()
    for server in servers:
        for loser in server.shadowed:
            starters = repo_starters(loser, server.winner, claude)
            if starters:
                found[_where(loser)] = starters
    return found


def starters_document(starters: list[RepoStarter]) -> dict[str, Any]:
    """The `started_instead_by` field of a row (absent when no client would)."""
    if not starters:
        return {}
    return {"started_instead_by": [{"client": s.client, "starts": s.starts, "why": s.why}
                                   for s in starters]}


def unguarded_here(machine: Machine, claude: WeakApprovals) -> list[str]:
    """`.mcp.json` servers Claude Code would start without mcpctl's gate although the
    guard is on for this workspace: added since the wiring was last kept current.
    Nothing is read unless the folder has a `.mcp.json`."""
    from mcpctl.clients.guarded import GUARDED_CLIENT, GUARDED_FILE, repo_server_names  # noqa: PLC0415
    from mcpctl.clients.settings import read_client_settings  # noqa: PLC0415
    from mcpctl.errors import McpctlError  # noqa: PLC0415
    from mcpctl.trust.store import read_store, workspace_key  # noqa: PLC0415

    root = machine.root
    if not (root / GUARDED_FILE).exists():
        return []
    try:
        if GUARDED_CLIENT not in read_client_settings(machine.config_file).sync or \
                workspace_key(root) not in read_store(machine.paths.trust_file)["workspaces"]:
            return []
    except McpctlError:  # reported by the user tier's or the store's own reading
        return []
    return [name for name in repo_server_names(root / GUARDED_FILE)
            if name not in claude.local_servers]
