"""The policy applied to the tools a server lists while `mcpctl run` relays it (pure).

A budget needs token counts, and counting is too slow for every `tools/list` a relay
passes on, so the budget is spent once, on the server's last cached probe, when the
relay starts (`budget_kept`); every other rule is applied to each tool as listed, with
the annotations the server sends now. A tool the cached probe did not have is outside
the budget: under a budget a new tool is off until the user says otherwise.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

from mcpctl.filtering.decide import Judge, Tool, decide
from mcpctl.filtering.policy import ToolPolicy

# What the annotation rules read of a definition; all a call is judged by besides its name.
HINTS = ("readOnlyHint", "destructiveHint", "openWorldHint")


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
        self.unread: list[bytes] = []  # definitions kept encoded until a call needs them
        self._unread_lock = threading.Lock()  # a call (client side) and a list (server side)
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
        self._read_unread()
        return self.verdict(self.definitions.get(name, {"name": name}))

    def learn(self, tools: Sequence[Tool]) -> None:
        if not self.remembers:
            return
        self._read_unread()
        for tool in tools:
            name = tool.get("name")
            if isinstance(name, str):
                self.definitions[name] = tool

    def learn_encoded(self, encoded: bytes) -> None:
        """`learn` of `encoded_definitions(...)`, decoded only when a call is judged (an
        answer replayed from the disk store costs no parse on its way)."""
        if self.remembers and encoded:
            with self._unread_lock:
                self.unread.append(encoded)

    def _read_unread(self) -> None:
        if not self.unread:
            return
        with self._unread_lock:
            for encoded in self.unread:
                for tool in json.loads(encoded):
                    self.definitions[tool["name"]] = tool
            self.unread.clear()


def encoded_definitions(tools: Sequence[Any]) -> bytes:
    """The part of each definition the rules read (its name and hints), as JSON: the
    verdict on a call is the same as on the whole definition."""
    kept = []
    for tool in tools:
        name = tool.get("name") if isinstance(tool, dict) else None
        if not isinstance(name, str):
            continue
        hints = tool.get("annotations")
        kept.append({"name": name, "annotations": {key: hints[key] for key in HINTS
                                                   if key in hints}}
                    if isinstance(hints, dict) else {"name": name})
    return json.dumps(kept, ensure_ascii=False, separators=(",", ":")).encode()


def switched_off_message(server: str, name: str, reason: str) -> str:
    return (f"mcpctl: tool {name!r} of server {server!r} is switched off ({reason}); "
            f"switch it on with: mcpctl tools {server} --enable {name}")

