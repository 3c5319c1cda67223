"""The policy applied to the tools a server lists while `mcpctl run` relays it (pure).

A budget needs token counts, and counting is too slow for every `tools/list` a relay
passes on, so the budget is spent once, on the server's last cached probe, when the
relay starts (`budget_kept`); every other rule is applied to each tool as listed, with
the annotations the server sends now. A tool the cached probe did not have is outside
the budget: under a budget a new tool is off until the user says otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcpctl.filtering.decide import Judge, Tool, decide
from mcpctl.filtering.policy import ToolPolicy


class LiveFilter:
    """One server's policy, ready to judge tools by definition or, for a call, by name."""

    def __init__(self, server: str, policy: ToolPolicy,
                 cached: Sequence[Tool] = (), cached_tokens: Sequence[int] | None = None):
        self.server = server
        self.policy = policy
        self.judge = Judge(policy)
        # Definitions matter only to the annotation rules; without them a name decides.
        self.remembers = policy.deny_destructive or policy.deny_open_world
        self.definitions: dict[str, Tool] = {}  # the last definition seen of each tool
        for tool in cached:
            name = tool.get("name")
            if isinstance(name, str):
                self.definitions[name] = tool
        self.budget_kept: frozenset[str] | None = None
        if policy.budget is not None:
            tokens = cached_tokens if cached_tokens is not None and \
                len(cached_tokens) == len(cached) else None
            self.budget_kept = frozenset(d.name for d in decide(cached, tokens, policy) if d.on)

    def verdict(self, tool: Tool) -> str:
        """Why this tool is off ("" when on)."""
        reason = self.judge.verdict(tool)
        if reason or self.budget_kept is None:
            return reason
        name = tool.get("name")
        if name in self.policy.enabled or name in self.budget_kept:
            return ""
        return f"over the budget of {self.policy.budget:,} tokens"

    def verdict_for_call(self, name: str) -> str:
        """A call names its tool only: judged by the definition last listed (or cached).
        A tool never listed has no annotations, which the spec's defaults make
        destructive and open-world: the call is judged as such (fail closed)."""
        return self.verdict(self.definitions.get(name, {"name": name}))

    def learn(self, tools: Sequence[Tool]) -> None:
        if not self.remembers:
            return
        for tool in tools:
            name = tool.get("name")
            if isinstance(name, str):
                self.definitions[name] = tool


def switched_off_message(server: str, name: str, reason: str) -> str:
    return (f"mcpctl: tool {name!r} of server {server!r} is switched off ({reason}); "
            f"switch it on with: mcpctl tools {server} --enable {name}")

