"""The cost report as data for `cost --json` and the table (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcpctl.probing.servers import Outcome
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
