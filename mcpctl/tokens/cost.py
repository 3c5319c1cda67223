"""The cost report: what each server's tools take from a model's context, and what to fix.

Pure: it takes tool lists (as received from servers) and returns data. The limits
below are the ones issue 5 names: past 40 tools in all, or 25 in one server, models
pick tools less accurately; a server above 10,000 tokens or a tool above 1,500 is a
large share of a context; clients namespace a tool as `server__tool` and model APIs
require that name to match `^[a-zA-Z0-9_-]{1,64}$`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcpctl.tokens.count import TOKENIZER, tool_text, tool_tokens

MAX_TOOLS_TOTAL = 40
MAX_TOOLS_PER_SERVER = 25
MAX_SERVER_TOKENS = 10_000
MAX_TOOL_TOKENS = 1_500
MAX_DESCRIPTION_CHARS = 1_024
NAMESPACE_SEPARATOR = "__"
TOOL_NAME_RULE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
LARGEST_SHOWN = 3

Tool = Mapping[str, Any]
Counter = Callable[[Tool], int]


@dataclass(frozen=True)
class ToolCost:
    name: str
    tokens: int
    chars: int  # length of the counted text
    description_chars: int


@dataclass(frozen=True)
class CostWarning:
    code: str
    message: str
    server: str | None = None
    tool: str | None = None


@dataclass(frozen=True)
class ToolDiff:
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)


@dataclass(frozen=True)
class ServerCost:
    name: str
    tools: tuple[ToolCost, ...]
    total_tokens: int
    largest: tuple[ToolCost, ...]
    share: float  # of all servers' tokens, 0..1
    warnings: tuple[CostWarning, ...]
    changes: ToolDiff | None = None  # None: nothing earlier to compare with


@dataclass(frozen=True)
class CostReport:
    tokenizer: str
    servers: tuple[ServerCost, ...]
    total_tokens: int
    total_tools: int
    warnings: tuple[CostWarning, ...]  # those about the servers together


def tool_name(tool: Tool) -> str:
    name = tool.get("name")
    return name if isinstance(name, str) else ""


def tool_cost(tool: Tool, count: Counter = tool_tokens) -> ToolCost:
    description = tool.get("description")
    return ToolCost(
        tool_name(tool), count(tool), len(tool_text(tool)),
        len(description) if isinstance(description, str) else 0,
    )


def build_report(
    tools_by_server: Mapping[str, Sequence[Tool]],
    *, previous: Mapping[str, Sequence[Tool]] | None = None, count: Counter = tool_tokens,
) -> CostReport:
    """Cost per server; `previous` (last probe's tools by server) adds the changes."""
    costs = {name: [tool_cost(t, count) for t in tools] for name, tools in tools_by_server.items()}
    total = sum(c.tokens for tools in costs.values() for c in tools)
    servers = tuple(
        _server_cost(name, costs[name], total, _changes(name, tools, previous))
        for name, tools in tools_by_server.items()
    )
    return CostReport(
        TOKENIZER, servers, total, sum(len(t) for t in costs.values()),
        _total_warnings(tools_by_server),
    )


def _changes(
    server: str, tools: Sequence[Tool], previous: Mapping[str, Sequence[Tool]] | None
) -> ToolDiff | None:
    if previous is None or server not in previous:
        return None
    return diff_tools(previous[server], tools)


def _server_cost(
    name: str, tools: list[ToolCost], grand_total: int, changes: ToolDiff | None
) -> ServerCost:
    total = sum(t.tokens for t in tools)
    largest = sorted(tools, key=lambda t: (-t.tokens, t.name))[:LARGEST_SHOWN]
    return ServerCost(
        name, tuple(tools), total, tuple(largest), total / grand_total if grand_total else 0.0,
        tuple(_server_warnings(name, tools, total, changes)), changes,
    )


def _server_warnings(
    server: str, tools: list[ToolCost], total: int, changes: ToolDiff | None
) -> list[CostWarning]:
    found: list[CostWarning] = []
    if len(tools) > MAX_TOOLS_PER_SERVER:
        found.append(CostWarning(
            "server-many-tools", f"{len(tools)} tools (over {MAX_TOOLS_PER_SERVER})", server
        ))
    if total > MAX_SERVER_TOKENS:
        found.append(CostWarning(
            "server-large", f"{total:,} tokens of tool definitions (over {MAX_SERVER_TOKENS:,})",
            server,
        ))
    for tool in tools:
        found.extend(_tool_warnings(server, tool))
    if changes:
        found.append(CostWarning("tools-changed", _describe_changes(changes), server))
    return found


def _tool_warnings(server: str, tool: ToolCost) -> list[CostWarning]:
    found: list[CostWarning] = []
    if tool.tokens > MAX_TOOL_TOKENS:
        found.append(CostWarning(
            "tool-large", f"tool {tool.name}: {tool.tokens:,} tokens (over {MAX_TOOL_TOKENS:,})",
            server, tool.name,
        ))
    if tool.description_chars > MAX_DESCRIPTION_CHARS:
        found.append(CostWarning(
            "long-description",
            f"tool {tool.name}: description of {tool.description_chars:,} characters "
            f"(over {MAX_DESCRIPTION_CHARS:,})", server, tool.name,
        ))
    namespaced = namespaced_name(server, tool.name)
    if not TOOL_NAME_RULE.match(namespaced):
        found.append(CostWarning(
            "bad-tool-name",
            f"tool {tool.name!r}: namespaced name {namespaced!r} breaks {TOOL_NAME_RULE.pattern}",
            server, tool.name,
        ))
    return found


def namespaced_name(server: str, tool: str) -> str:
    return f"{server}{NAMESPACE_SEPARATOR}{tool}"


def _total_warnings(tools_by_server: Mapping[str, Sequence[Tool]]) -> tuple[CostWarning, ...]:
    found: list[CostWarning] = []
    total = sum(len(tools) for tools in tools_by_server.values())
    if total > MAX_TOOLS_TOTAL:
        found.append(CostWarning(
            "many-tools",
            f"{total} tools in total (over {MAX_TOOLS_TOTAL}): models choose less accurately",
        ))
    owners: dict[str, list[tuple[str, str]]] = {}
    for server, tools in tools_by_server.items():
        for tool in tools:
            name = tool_name(tool)
            owners.setdefault(namespaced_name(server, name), []).append((server, name))
    for namespaced, claims in owners.items():
        if len(claims) > 1:
            who = " and ".join(f"{tool!r} of {server!r}" for server, tool in claims)
            found.append(CostWarning("name-collision", f"{namespaced} names both {who}"))
    return tuple(found)


def _describe_changes(changes: ToolDiff) -> str:
    parts = [
        f"{label} {', '.join(names)}"
        for label, names in (
            ("added", changes.added), ("removed", changes.removed), ("changed", changes.changed)
        )
        if names
    ]
    return "tool definitions changed since the last probe: " + "; ".join(parts)


def canonical(tool: Tool) -> str:
    """A tool's definition with key order normalised: reordering alone is no change."""
    return json.dumps(tool, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def diff_tools(old: Sequence[Tool], new: Sequence[Tool]) -> ToolDiff:
    """Tools added, removed or redefined (any field: a rewritten description is the
    rug-pull this exists to catch), by name, each list sorted."""
    before = {tool_name(t): canonical(t) for t in old}
    after = {tool_name(t): canonical(t) for t in new}
    return ToolDiff(
        tuple(sorted(after.keys() - before.keys())),
        tuple(sorted(before.keys() - after.keys())),
        tuple(sorted(n for n in after.keys() & before.keys() if after[n] != before[n])),
    )


def tools_digest(tools: Sequence[Tool]) -> str:
    """`sha256:` of the definitions in name order, for a quick "changed?" check."""
    ordered = sorted((tool_name(t), canonical(t)) for t in tools)
    data = "[" + ",".join(text for _, text in ordered) + "]"
    return "sha256:" + hashlib.sha256(data.encode()).hexdigest()
