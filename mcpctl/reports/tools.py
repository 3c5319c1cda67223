"""What `mcpctl tools NAME` reports: each tool, its cost and annotations, on or off.

The tools come from the server's last cached probe (probed now when there is none, or
with `--refresh`), so listing costs no start. A change (`--disable`, `--only`, a budget…)
is validated against that list before `[tools.NAME]` is written: a pattern that matches
no tool is a usage error, since it would silently filter nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcpctl.config.merge import named
from mcpctl.config.tool_policy import (
    policy_for,
    read_global_budget,
    read_policies,
    set_policy,
)
from mcpctl.config.view import view_here
from mcpctl.errors import ExitCode, ServerFailed, TrustRefused, UsageError
from mcpctl.filtering.change import PolicyChange, applied, unknown_patterns
from mcpctl.filtering.decide import NEW_REASON, ToolDecision, decide
from mcpctl.filtering.policy import ToolPolicy, table_of
from mcpctl.machine import Machine
from mcpctl.probing.cache import CachedProbe
from mcpctl.probing.servers import ProbeOptions, admit_all, probe_admitted
from mcpctl.reports.report import Report

TOOLS_SCHEMA_VERSION = 1
HINTS = ("readOnlyHint", "destructiveHint", "openWorldHint")


@dataclass(frozen=True)
class ToolsView:
    document: dict[str, Any]


def tools_report(machine: Machine, name: str, change: PolicyChange,
                 options: ProbeOptions) -> Report[ToolsView]:
    view = view_here(machine)
    server = named(view.servers, name, view.problems)
    outcome = probe_admitted(admit_all([server], machine), machine, options)[0]
    if outcome.refused is not None:
        raise TrustRefused(outcome.refused)
    if outcome.probe is None:
        raise ServerFailed(f"server {name!r}: {outcome.failed or 'no tool list'}")
    probe = outcome.probe
    names = [str(tool.get("name", "")) for tool in probe.tools]
    before = policy_for(machine.config_file, name)
    policy = before or ToolPolicy()
    written = False
    if (change.budget is not None or change.no_budget) and \
            read_global_budget(machine.config_file) is not None:
        raise UsageError("a global budget sets each server's budget; change it with "
                         "mcpctl tools --global-budget TOKENS, or drop it first with "
                         "mcpctl tools --no-global-budget")
    if not change.empty:
        unknown = unknown_patterns(change, names)
        if unknown:
            raise UsageError(f"server {name!r} lists no tool matching {unknown[0]!r} "
                             f"(its tools: {_some(names)})")
        policy = applied(policy, change, names)
        written = set_policy(machine.config_file, name, policy)
    notes = rebalance(machine)  # this server's list may be new to the global budget
    if notes:
        policy = policy_for(machine.config_file, name) or ToolPolicy()
        written = True
    decisions = decide(probe.tools, probe.tokens, policy)
    document = tools_document(name, probe.tools, decisions, policy,
                              written=written, cached=outcome.from_cache,
                              probed_at=probe.probed_at)
    warnings = [f"warning: {name}: {line}" for line in new_tool_lines(name, decisions)]
    warnings += [f"note: {line}" for line in notes]
    body = {k: v for k, v in document.items() if k != "schema_version"}
    return Report("tools", body, ToolsView(document), ExitCode.OK, warnings=warnings,
                  version=TOOLS_SCHEMA_VERSION)


def new_tool_lines(server: str, decisions: Sequence[ToolDecision]) -> list[str]:
    """The rug-pull report: tools listed since the policy was set, left off."""
    return [f"tool {d.name!r} appeared since the policy was set and is off; switch it on "
            f"with: mcpctl tools {server} --enable {d.name}"
            for d in decisions if d.reason == NEW_REASON]


def tools_document(server: str, tools: Sequence[dict[str, Any]],
                   decisions: Sequence[ToolDecision], policy: ToolPolicy, *, written: bool,
                   cached: bool, probed_at: float) -> dict[str, Any]:
    rows = []
    for tool, decision in zip(tools, decisions, strict=True):
        annotations = tool.get("annotations")
        hints = annotations if isinstance(annotations, dict) else {}
        rows.append({"name": decision.name, "tokens": decision.tokens, "on": decision.on,
                     "reason": decision.reason or None, "new": decision.new,
                     "annotations": {hint: hints.get(hint) if isinstance(hints.get(hint), bool)
                                     else None for hint in HINTS}})
    policy_table = table_of(policy)
    policy_table.pop("known", None)
    return {
        "schema_version": TOOLS_SCHEMA_VERSION, "server": server, "written": written,
        "from_cache": cached, "probed_at": probed_at, "policy": policy_table,
        "tool_count": len(rows), "tools_on": sum(d.on for d in decisions),
        "total_tokens": sum(d.tokens or 0 for d in decisions),
        "tokens_on": sum(d.tokens or 0 for d in decisions if d.on),
        "budget": policy.budget, "tools": rows,
    }


def _some(names: Sequence[str]) -> str:
    shown = ", ".join(names[:10])
    return shown + (f", … ({len(names)} in all)" if len(names) > 10 else "") if names else "none"


def global_budget_report(machine: Machine, total: int, options: ProbeOptions
                         ) -> Report[ToolsView]:
    """Keep `total` tokens as the budget of every server here (`[tools."*"]`), split now
    among every server with a tool list (probed now when not cached; `split.py`), each
    share written as that server's own `budget`. `tools`, `cost` and `sync` split it
    again (`rebalance`), so a server added later is inside it from then on."""
    from mcpctl.config.tool_policy import GlobalBudget, set_global_budget  # noqa: PLC0415

    view = view_here(machine)
    outcomes = probe_admitted(admit_all(view.servers, machine), machine, options)
    measured = {o.name: o.probe for o in outcomes if o.probe is not None}
    rows, spent = _split_and_write(machine, total, measured)
    set_global_budget(machine.config_file, GlobalBudget(total, tuple(r["name"] for r in rows)))
    skipped = [{"name": o.name, "reason": o.refused or o.failed or "no tool list"}
               for o in outcomes if o.probe is None]
    document = {"schema_version": TOOLS_SCHEMA_VERSION, "total": total, "spent": spent,
                "servers": rows, "not_measured": skipped}
    warnings = [f"warning: {s['name']}: not measured, so outside the budget: {s['reason']}"
                for s in skipped]
    body = {k: v for k, v in document.items() if k != "schema_version"}
    return Report("tools-budget", body, ToolsView(document), ExitCode.OK, warnings=warnings,
                  version=TOOLS_SCHEMA_VERSION)


def _split_and_write(machine: Machine, total: int, measured: Mapping[str, CachedProbe]
                     ) -> tuple[list[dict[str, Any]], int]:
    """Split `total` among the `measured` servers; write each share as its budget."""
    from mcpctl.config.tool_policy import read_policies  # noqa: PLC0415
    from mcpctl.filtering.split import Server, split_budget  # noqa: PLC0415

    policies = read_policies(machine.config_file)
    servers = {name: Server(probe.tools, probe.tokens, policies.get(name, ToolPolicy()))
               for name, probe in sorted(measured.items())}
    shares = split_budget(servers, total)
    rows: list[dict[str, Any]] = []
    for name, share in shares.items():
        names = [str(tool.get("name", "")) for tool in servers[name].tools]
        policy = applied(servers[name].policy, PolicyChange(budget=share.budget), names)
        rows.append({"name": name, "budget": share.budget, "written":
                     set_policy(machine.config_file, name, policy),
                     "kept": list(share.kept), "left_out": list(share.left_out)})
    return rows, sum(share.budget for share in shares.values())


def rebalance(machine: Machine) -> list[str]:
    """Split the kept global budget again among every server here with a cached tool
    list (none is started); what changed, one line per server. Nothing without one."""
    from mcpctl.config.tool_policy import GlobalBudget, set_global_budget  # noqa: PLC0415
    from mcpctl.probing import cache as probe_cache  # noqa: PLC0415

    setting = read_global_budget(machine.config_file)
    if setting is None:
        return []
    view = view_here(machine)
    measured = {}
    for outcome in admit_all(view.servers, machine):
        if outcome.admission is not None:
            probe = probe_cache.load(machine.paths, outcome.admission.status.fingerprint)
            if probe is not None:
                measured[outcome.name] = probe
    rows, _ = _split_and_write(machine, setting.total, measured)
    set_global_budget(machine.config_file,
                      GlobalBudget(setting.total, tuple(row["name"] for row in rows)))
    return [f"global budget of {setting.total:,} tokens: server {row['name']!r} now gets "
            f"{row['budget']:,}" for row in rows if row["written"]]


def drop_global_budget_report(machine: Machine) -> Report[ToolsView]:
    """Forget the global budget, and the budget it set on each server."""
    from mcpctl.config.tool_policy import set_global_budget  # noqa: PLC0415

    setting = read_global_budget(machine.config_file)
    dropped = []
    if setting is not None:
        policies = read_policies(machine.config_file)
        for name in setting.servers:
            policy = policies.get(name)
            if policy is not None and policy.budget is not None:
                set_policy(machine.config_file, name, policy._replace(budget=None))
                dropped.append(name)
        set_global_budget(machine.config_file, None)
    document: dict[str, Any] = {
        "schema_version": TOOLS_SCHEMA_VERSION, "total": 0 if setting is None else setting.total,
        "spent": 0, "servers": [], "not_measured": [], "dropped": dropped}
    body = {k: v for k, v in document.items() if k != "schema_version"}
    return Report("tools-budget", body, ToolsView(document), ExitCode.OK,
                  version=TOOLS_SCHEMA_VERSION)
