"""A budget for all servers together, split into one budget per server (pure; issue 29).

The tools of every server compete by the per-server rule (`decide.py`, rule 5): what
each server's own policy leaves on (rules 1 to 4) is a candidate; tools `enabled` names
exactly come first, then the cheapest of all servers, ties in the order the servers
are given and then the server's own order, each kept while it fits. Each server's
share is the tokens of its tools kept, written as its own `budget`: a server's kept
tools are then the cheapest of its candidates (a cheaper one that did not fit means no
dearer one fitted later), so its own budget keeps exactly them, and `run`, `cost` and
the clients' filters need nothing more. Splitting again rebalances.
"""

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from mcpctl.filtering.decide import Judge, Tool, tool_name
from mcpctl.filtering.policy import ToolPolicy


class Server(NamedTuple):
    tools: Sequence[Tool]
    tokens: Sequence[int]
    policy: ToolPolicy


class Share(NamedTuple):
    budget: int  # tokens of the tools kept
    kept: tuple[str, ...]
    left_out: tuple[str, ...]  # candidates that did not fit


def split_budget(servers: Mapping[str, Server], total: int) -> dict[str, Share]:
    candidates: list[tuple[int, int, int, str, str, bool]] = []
    for order, (server, (tools, tokens, policy)) in enumerate(servers.items()):
        judge = Judge(policy._replace(budget=None))
        for index, tool in enumerate(tools):
            if not judge.verdict(tool):
                name = tool_name(tool)
                candidates.append((tokens[index], order, index, server, name,
                                   name in policy.enabled))
    first = [c for c in candidates if c[5]]
    rest = sorted(c for c in candidates if not c[5])
    left = total - sum(c[0] for c in first)
    kept: dict[str, list[tuple[int, str]]] = {name: [] for name in servers}
    spent: dict[str, int] = dict.fromkeys(servers, 0)
    out: dict[str, list[str]] = {name: [] for name in servers}
    for cost, _, index, server, name, _ in first:
        kept[server].append((index, name))
        spent[server] += cost
    for cost, _, index, server, name, _ in rest:
        if cost <= left:
            kept[server].append((index, name))
            spent[server] += cost
            left -= cost
        else:
            out[server].append(name)
    return {server: Share(spent[server], tuple(n for _, n in sorted(kept[server])),
                          tuple(out[server])) for server in servers}
