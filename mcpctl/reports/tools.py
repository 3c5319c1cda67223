"""What `mcpctl tools NAME` reports: each tool, its cost and annotations, on or off.

The tools come from the server's last cached probe (probed now when there is none, or
with `--refresh`), so listing costs no start. A change (`--disable`, `--only`, a budget…)
is validated against that list before `[tools.NAME]` is written: a pattern that matches
no tool is a usage error, since it would silently filter nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcpctl.config.merge import named
from mcpctl.config.tool_policy import policy_for, set_policy
from mcpctl.config.view import view_here
from mcpctl.errors import ExitCode, ServerFailed, TrustRefused, UsageError
from mcpctl.filtering.change import PolicyChange, applied, unknown_patterns
from mcpctl.filtering.decide import NEW_REASON, ToolDecision, decide
from mcpctl.filtering.policy import ToolPolicy, table_of
from mcpctl.machine import Machine
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
    if not change.empty:
        unknown = unknown_patterns(change, names)
        if unknown:
            raise UsageError(f"server {name!r} lists no tool matching {unknown[0]!r} "
                             f"(its tools: {_some(names)})")
        policy = applied(policy, change, names)
        written = set_policy(machine.config_file, name, policy)
    decisions = decide(probe.tools, probe.tokens, policy)
    document = tools_document(name, probe.tools, decisions, policy,
                              written=written, cached=outcome.from_cache,
                              probed_at=probe.probed_at)
    warnings = [f"warning: {name}: {line}" for line in new_tool_lines(name, decisions)]
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
    """Split `total` tokens among every server here that has a probe (`split.py`), and
    write each share as that server's own `budget`."""
    from mcpctl.config.tool_policy import read_policies  # noqa: PLC0415
    from mcpctl.filtering.split import Server, split_budget  # noqa: PLC0415

    view = view_here(machine)
    outcomes = probe_admitted(admit_all(view.servers, machine), machine, options)
    policies = read_policies(machine.config_file)
    measured = {o.name: o.probe for o in outcomes if o.probe is not None}
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
    skipped = [{"name": o.name, "reason": o.refused or o.failed or "no tool list"}
               for o in outcomes if o.probe is None]
    document = {"schema_version": TOOLS_SCHEMA_VERSION, "total": total,
                "spent": sum(share.budget for share in shares.values()), "servers": rows,
                "not_measured": skipped}
    warnings = [f"warning: {s['name']}: not measured, so outside the budget: {s['reason']}"
                for s in skipped]
    body = {k: v for k, v in document.items() if k != "schema_version"}
    return Report("tools-budget", body, ToolsView(document), ExitCode.OK, warnings=warnings,
                  version=TOOLS_SCHEMA_VERSION)
