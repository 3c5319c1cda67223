"""What `cost` reports: each server's tools and their tokens, as a `Report`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from mcpctl.config.merge import MergedServer, named
from mcpctl.config.view import view_here
from mcpctl.errors import ExitCode
from mcpctl.filtering.policy import ToolPolicy
from mcpctl.machine import Machine
from mcpctl.model import Problem
from mcpctl.probing.servers import Outcome, ProbeOptions, admit_all, probe_admitted
from mcpctl.reports.list_extras import tool_policies
from mcpctl.reports.report import Report, problems_exit
from mcpctl.tokens.cost import CostReport, ServerCost, build_report

COST_SCHEMA_VERSION = 1


def report_for(outcomes: Sequence[Outcome]) -> CostReport:
    """Build the report from cached token counts: no tokenizer needed when all are cached."""
    counted: dict[int, int] = {}
    tools: dict[str, Sequence[dict[str, Any]]] = {}
    previous: dict[str, Sequence[dict[str, Any]]] = {}
    for outcome in outcomes:
        if outcome.probe is None:
            continue
        tools[outcome.name] = outcome.probe.tools
        counted.update({id(t): n for t, n in zip(outcome.probe.tools, outcome.probe.tokens,
                                                 strict=True)})
        if outcome.previous is not None:
            previous[outcome.name] = outcome.previous.tools
    return build_report(tools, previous=previous, count=lambda tool: counted[id(tool)])


def status_of(outcome: Outcome) -> str:
    if outcome.refused is not None:
        return "refused"
    if outcome.failed is not None:
        return "failed"
    return "cached" if outcome.from_cache else "probed"


def server_document(outcome: Outcome, cost: ServerCost | None, state: str) -> dict[str, Any]:
    probe = outcome.probe
    document: dict[str, Any] = {
        "name": outcome.name,
        "state": state,
        "status": status_of(outcome),
        "error": outcome.refused or outcome.failed,
        "stderr_tail": list(outcome.stderr_tail),
        "protocol_version": probe.protocol_version if probe else None,
        "style": probe.style if probe else None,
        "probed_at": probe.probed_at if probe else None,
        "first_answer_seconds": round(outcome.result.first_answer, 3) if outcome.result else None,
        "tool_count": len(cost.tools) if cost else None,
        "total_tokens": cost.total_tokens if cost else None,
        "share": round(cost.share, 4) if cost else None,
        "largest": [{"name": t.name, "tokens": t.tokens} for t in cost.largest] if cost else [],
        "tools": [{"name": t.name, "tokens": t.tokens, "chars": t.chars} for t in cost.tools]
        if cost else [],
        "warnings": [{"code": w.code, "message": w.message, "tool": w.tool}
                     for w in cost.warnings] if cost else [],
        "changes": None,
    }
    if cost is not None and cost.changes is not None:
        document["changes"] = {"added": list(cost.changes.added),
                               "removed": list(cost.changes.removed),
                               "changed": list(cost.changes.changed)}
    return document


def cost_document(outcomes: Sequence[Outcome], report: CostReport, states: dict[str, str],
                  capabilities: frozenset[str]) -> dict[str, Any]:
    costs = {cost.name: cost for cost in report.servers}
    return {
        "schema_version": COST_SCHEMA_VERSION,
        "tokenizer": report.tokenizer,
        "capabilities": sorted(capabilities),
        "total_tokens": report.total_tokens,
        "total_tools": report.total_tools,
        "servers": [server_document(o, costs.get(o.name), states[o.name]) for o in outcomes],
        "warnings": [{"code": w.code, "message": w.message} for w in report.warnings],
    }


Probing = Callable[[int], AbstractContextManager[Callable[[str], None]]]  # progress display


@dataclass(frozen=True)
class Costs:
    document: dict[str, Any]


def cost_report(machine: Machine, names: list[str], options: ProbeOptions,
                probing: Probing) -> Report[Costs]:
    """Probe (or reuse the cached probe of) each chosen server and count its tokens."""
    from mcpctl.trust.view import TrustStates  # noqa: PLC0415

    view = view_here(machine)
    servers = chosen(view.servers, names, view.problems)
    states = TrustStates.on(machine)  # one store read, one pass: gate and report
    outcomes = admit_all(servers, machine, states)
    with probing(sum(o.admission is not None for o in outcomes)) as advance:
        probe_admitted(outcomes, machine, options, advance)
    notes = _rebalanced(machine)  # before the filters are counted: budgets may move
    report = report_for(outcomes)
    state_by_name = {o.name: states.state_of(o.server.winner)[0] for o in outcomes}
    document = cost_document(outcomes, report, state_by_name, options.capabilities)
    policies, policy_problems = tool_policies(machine)
    filtered = add_filtered(document, outcomes, policies)
    warnings = [f"warning: {s['name']}: {w['message']}" for s in document["servers"]
                if s["total_tokens"] is not None for w in s["warnings"]]
    warnings += [f"warning: all: {w['message']}" for w in document["warnings"]]
    warnings += [f"warning: {name}: {line}" for name, line in filtered]
    warnings += notes
    code = ExitCode.OK
    if any(o.failed for o in outcomes):
        code = ExitCode.SERVER_FAILED
    elif names and any(o.refused for o in outcomes):
        code = ExitCode.TRUST_REFUSED
    body = {key: value for key, value in document.items() if key != "schema_version"}
    problems = [*view.problems, *policy_problems]
    return Report("cost", body, Costs(document), problems_exit(code, problems),
                  problems, warnings=warnings, version=COST_SCHEMA_VERSION)


def _rebalanced(machine: Machine) -> list[str]:
    """The global budget split again over what is measured now (issue 29)."""
    from mcpctl.errors import ConfigError  # noqa: PLC0415
    from mcpctl.reports.tools import rebalance  # noqa: PLC0415

    try:
        return [f"note: {line}" for line in rebalance(machine)]
    except ConfigError as error:  # a policy problem, reported with the others
        return [f"warning: all: {error}"]


def add_filtered(document: dict[str, Any], outcomes: Sequence[Outcome],
                 policies: dict[str, ToolPolicy]) -> list[tuple[str, str]]:
    """The cost after each server's tool policy, beside the cost before it (issue 29);
    returns the rug-pull lines: tools listed since a policy was set, left off."""
    from mcpctl.filtering.decide import decide  # noqa: PLC0415
    from mcpctl.reports.tools import new_tool_lines  # noqa: PLC0415

    said: list[tuple[str, str]] = []
    probes = {o.name: o.probe for o in outcomes}
    for server in document["servers"]:
        probe = probes.get(server["name"])
        if server["total_tokens"] is None or probe is None:
            server.update(tools_on=None, tokens_on=None, tools_off=[])
            continue
        policy = policies.get(server["name"], ToolPolicy())
        decisions = decide(probe.tools, probe.tokens, policy)
        server.update(tools_on=sum(d.on for d in decisions),
                      tokens_on=sum(d.tokens or 0 for d in decisions if d.on),
                      tools_off=[{"name": d.name, "reason": d.reason}
                                 for d in decisions if not d.on])
        said += [(server["name"], line) for line in new_tool_lines(server["name"], decisions)]
    measured = [s for s in document["servers"] if s["tools_on"] is not None]
    document["total_tools_on"] = sum(s["tools_on"] for s in measured)
    document["total_tokens_on"] = sum(s["tokens_on"] for s in measured)
    return said


def chosen(servers: list[MergedServer], names: list[str], problems: Sequence[Problem]
           ) -> list[MergedServer]:
    """The servers named (each once, in the order given), or all of them."""
    if not names:
        return servers
    return [named(servers, name, problems) for name in dict.fromkeys(names)]
