"""What `list` and `show` report: the merged tiers with trust states, as `Report`s."""

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from mcpctl.clients.guarded import (
    AlsoRead,
    GuardState,
    claude_code_also_reads,
    client_reading,
    guard_states_here,
)
from mcpctl.clients.weak_approvals import WeakApproval
from mcpctl.config.merge import MergedServer, named
from mcpctl.config.unknown_keys import unknown_keys
from mcpctl.config.view import view_here
from mcpctl.errors import ExitCode
from mcpctl.machine import Machine
from mcpctl.model import Tier
from mcpctl.reports import listing
from mcpctl.reports.list_extras import (
    Starters,
    last_probe,
    starters_document,
    starters_of,
    tool_policies,
    unguarded_here,
    weak_approvals_here,
)
from mcpctl.reports.report import Report
from mcpctl.trust.state import NEEDS_ATTENTION
from mcpctl.trust.status import Status
from mcpctl.trust.view import TrustStates

Shown = Callable[[Path], str]  # how a path reads in a message (relative, ~/…)


class Listing(NamedTuple):
    """What `list` says: the rows, last probes, weak approvals and other clients' starts."""

    rows: list[listing.Row]
    probes: dict[str, dict[str, Any] | None]
    weak: list[WeakApproval]
    starters: Starters  # clients that start a shadowed repo definition instead
    unguarded: list[str]  # .mcp.json servers the guard has not wired yet
    servers: list[MergedServer]
    guards: dict[str, GuardState]  # what guards each client here (issue 22)
    also: list[AlsoRead]  # other .mcp.json files Claude Code reads from here


class ServerDetail(NamedTuple):
    """What `show` says about one server: each definition with its trust status."""

    server: MergedServer
    rows: list[listing.Row]
    statuses: list[Status]
    starters: Starters
    guards: list[GuardState | None]  # per row: what guards the client reading its file


def list_report(machine: Machine, tier: Tier | None, *, needs_attention: bool,
                shown: Shown) -> Report[Listing]:
    """Every definition here with its state; exit 3 on a problem, 1 on attention asked."""
    view = view_here(machine, frozenset({tier}) if tier else None)
    states = TrustStates.on(machine)
    rows = list(listing.rows(view.servers, states.state_of))
    policies, policy_problems = tool_policies(machine)
    probes = {s.name: last_probe(machine.paths, states, s, policies.get(s.name))
              for s in view.servers}
    weak = weak_approvals_here(machine, view.servers)
    starters = starters_of(view.servers, weak)
    unguarded = unguarded_here(machine, weak)
    guards = guard_states_here(machine)
    also = [a for a in claude_code_also_reads(machine) if a.path not in view.files]
    problems = [*view.problems, *states.problems, *weak.problems, *policy_problems]
    body = {
        "workspace": str(view.root),
        "user_config": str(view.config_file),
        "servers": [{**listing.row_document(row, states.root_of(row.definition)),
                     "last_probe": probes[row.name] if row.shadowed_by is None else None,
                     **starters_document(starters.of(row.definition))}
                    for row in rows],
        "unguarded": unguarded,
        "guards": {client: state.document() for client, state in guards.items()},
        "claude_code_also_reads": [{"path": str(a.path), "servers": list(a.servers)
                                    if a.servers is not None else None} for a in also],
        "weak_approvals": [{"server": a.server, "setting": a.setting, "path": str(a.path),
                            "line": a.line, "message": a.message()} for a in weak.approvals],
    }
    code = ExitCode.OK
    attention = [f"{row.name} ({row.state})" for row in rows if row.state in NEEDS_ATTENTION]
    attention += [f"{a.server or 'every .mcp.json server'} (approved by name in "
                  f"{shown(a.path)})" for a in weak.approvals]
    attention += [f"{name} (not guarded in Claude Code)" for name in unguarded]
    attention += [f"the repo's {state.widened_by} (widens {state.client}'s allowlist)"
                  for state in guards.values() if state.widened_by]
    warnings = [unknown.message() for unknown in
                unknown_keys(d for s in view.servers for d in s.definitions)]
    if problems:
        code = ExitCode.INVALID_CONFIG
    elif needs_attention and attention:
        code = ExitCode.FINDINGS
        warnings.append(f"{len(attention)} workspace server(s) need attention: "
                        + ", ".join(attention) + "; review with `mcpctl show NAME`, approve "
                        "with `mcpctl trust NAME`")
    listed = Listing(rows, probes, weak.approvals, starters, unguarded, view.servers, guards,
                     also)
    return Report("list", body, listed, code, problems,
                  warnings, version=listing.LIST_SCHEMA_VERSION)


def _guard_of(row: listing.Row, folder: Path, guards: dict[str, GuardState]
              ) -> GuardState | None:
    """What guards the client that reads this repo definition's file (issue 22); `folder`:
    the one the file is read for."""
    client = client_reading(row.definition.source.path, folder)
    state = guards.get(client) if client else None
    return state if state is not None and state.state != "nothing to guard" else None


def show_report(machine: Machine, name: str) -> Report[ServerDetail]:
    """Every definition of `name`, which wins and why, with trust details."""
    view = view_here(machine)
    server = named(view.servers, name, view.problems)
    states = TrustStates.on(machine)
    weak = weak_approvals_here(machine, [server]) if server.shadowed else None
    starters = starters_of([server], weak)
    problems = [*view.problems, *states.problems]
    rows = list(listing.rows([server], states.state_of))
    statuses = [states.status(row.definition) for row in rows]
    guards = guard_states_here(machine)
    guarded = [_guard_of(row, states.root_of(row.definition), guards) for row in rows]
    body = {
        "name": name,
        "why": listing.why_wins(server),
        "definitions": [{**listing.row_document(row, states.root_of(row.definition)),
                         **listing.trust_document(status),
                         **starters_document(starters.of(row.definition)),
                         **({"guard": {"client": state.client, **state.document()}}
                            if state else {})}
                        for row, status, state in zip(rows, statuses, guarded, strict=True)],
    }
    return Report("show", body, ServerDetail(server, rows, statuses, starters, guarded),
                  ExitCode.INVALID_CONFIG if problems else ExitCode.OK, problems,
                  [unknown.message() for unknown in unknown_keys(server.definitions)],
                  version=listing.LIST_SCHEMA_VERSION)

