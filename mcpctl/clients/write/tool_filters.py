"""Each client's own tool filter for the servers mcpctl exports (issue 29).

`mcpctl run` enforces a server's `[tools.NAME]` policy for every client; a client with
a filter of its own is also told, so it does not offer the model a tool only to have
the call refused. The names come from the server's last cached probe (the policy's
patterns, annotations and budget need the tool list); a server never probed gets no
client filter (`run` still filters it). Which client enforces what:

| client | its own filter | written as |
| --- | --- | --- |
| Gemini CLI | per server, in the entry | `includeTools` (allow-list) or `excludeTools` |
| Codex | per server, in the entry | `enabled_tools` (allow-list) or `disabled_tools` |
| Claude Code | permission rules in its user settings | `permissions.deny`: `mcp__S__T` |
| VS Code, Cursor, Claude Desktop, Windsurf | none in the file mcpctl writes | (`run` only) |

An allow-list is written under `only` or a budget, so a tool the server adds later is
not offered by the client either; otherwise the tools that are off are listed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from mcpctl.filtering.decide import ToolDecision, decide, off_names, on_names
from mcpctl.filtering.policy import ToolPolicy

if TYPE_CHECKING:
    from mcpctl.machine import Machine
    from mcpctl.model import ServerSpec

# client id -> (allow-list key, deny-list key) in its server entry
ENTRY_FILTERS: dict[str, tuple[str, str]] = {
    "gemini": ("includeTools", "excludeTools"),
    "codex": ("enabled_tools", "disabled_tools"),
}
# Claude Code names an MCP tool in a permission rule as mcp__SERVER__TOOL.
CLAUDE_RULE = "mcp__{server}__{tool}"


class Decided:
    """For each exported server with a policy: its policy and the decisions on its last
    cached probe (None: never probed, so no client filter can be written)."""

    def __init__(self) -> None:
        self.policies: dict[str, ToolPolicy] = {}
        self.decisions: dict[str, tuple[ToolDecision, ...] | None] = {}

    def unprobed(self) -> list[str]:
        return [name for name, decided in self.decisions.items() if decided is None]


def decided_for(machine: Machine, specs: Sequence[ServerSpec]) -> Decided:
    from mcpctl.config.tool_policy import read_policies  # noqa: PLC0415
    from mcpctl.probing import cache as probe_cache  # noqa: PLC0415
    from mcpctl.trust.fingerprint import fingerprint_of  # noqa: PLC0415

    found = Decided()
    policies = read_policies(machine.config_file)
    for spec in specs:
        policy = policies.get(spec.name)
        if policy is None:
            continue
        found.policies[spec.name] = policy
        # A user-tier server's fingerprint is its definition's (no pinned files).
        cached = probe_cache.load(machine.paths, fingerprint_of(spec))
        found.decisions[spec.name] = None if cached is None else \
            decide(cached.tools, cached.tokens, policy)
    return found


def entry_filters(client_id: str, decided: Decided) -> dict[str, dict[str, Any]]:
    """Per server, the filter keys of the client's entry (None: remove the key). A
    server with a policy owns both keys, so a filter mcpctl wrote earlier goes when
    nothing is off any more."""
    keys = ENTRY_FILTERS.get(client_id)
    if keys is None:
        return {}
    allow, deny = keys
    filters: dict[str, dict[str, Any]] = {}
    for name, decisions in decided.decisions.items():
        if decisions is None:
            continue
        on, off = on_names(decisions), off_names(decisions)
        if decided.policies[name].closed:
            # An empty allow-list may read as "no filter": the deny-list says it too.
            filters[name] = {allow: on, deny: off if not on else None}
        else:
            filters[name] = {allow: None, deny: off or None}
    return filters


def claude_rules(decided: Decided) -> tuple[list[str], list[str]]:
    """(rules to have in `permissions.deny`, rules to take out of it): a tool that is
    off is denied; a listed tool that is on loses a rule naming it exactly, so an
    `--enable` reaches Claude Code too. Other rules are the user's and stay."""
    wanted: list[str] = []
    unwanted: list[str] = []
    for name, decisions in decided.decisions.items():
        for decision in decisions or ():
            rule = CLAUDE_RULE.format(server=name, tool=decision.name)
            (unwanted if decision.on else wanted).append(rule)
    return wanted, unwanted


def with_rules(data: Mapping[str, Any], wanted: Sequence[str], unwanted: Sequence[str]
               ) -> list[str] | None:
    """The new `permissions.deny` list, or None when it needs no change."""
    permissions = data.get("permissions")
    current = permissions.get("deny") if isinstance(permissions, Mapping) else None
    rules = [r for r in current if isinstance(r, str)] if isinstance(current, list) else []
    new = [r for r in rules if r not in unwanted]
    new += [r for r in wanted if r not in new]
    return None if new == rules else new
