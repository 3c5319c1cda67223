"""What `doctor` reports: for each server, why it would or would not start."""

from __future__ import annotations

import dataclasses
import functools
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpctl.clients.guarded import NOT_GUARDED, NOTHING, GuardState, client_reading
from mcpctl.clients.weak_approvals import WeakApprovals
from mcpctl.config.unknown_keys import unknown_keys
from mcpctl.config.view import view_here
from mcpctl.config.workspace import folder_of
from mcpctl.errors import ExitCode, McpctlError
from mcpctl.machine import Machine
from mcpctl.model import Tier
from mcpctl.probing.diagnosis import FAIL, OK, WARN, Check, Environment, static_checks
from mcpctl.probing.servers import Outcome, ProbeOptions, admit_all, probe_admitted
from mcpctl.reports.cost import Probing, chosen
from mcpctl.reports.list_extras import weak_approvals_here
from mcpctl.reports.report import Report, problems_exit


@dataclass(frozen=True)
class Diagnoses:
    servers: list[dict[str, Any]]


def doctor_report(machine: Machine, names: list[str], options: ProbeOptions | None,
                  probing: Probing) -> Report[Diagnoses]:
    """Static checks for each chosen server, then a probe of those that pass (None: no
    probe). Exit 6 when a probe failed, else 1 when a check failed."""
    view = view_here(machine)
    outcomes = admit_all(chosen(view.servers, names, view.problems), machine)
    path = machine.environ.get("PATH")
    environment = Environment(machine.root, machine.home, machine.environ,
                              lambda cmd: shutil.which(cmd, path=path), _secret_exists,
                              functools.cache(_keyring_check))
    weak = weak_approvals_here(machine, view.servers)
    from mcpctl.clients.guarded import guard_states_here  # noqa: PLC0415

    guards = guard_states_here(machine)  # what guards each client here (issue 22)
    checks = {o.name: [*_checks(o, _of_its_folder(environment, o)),
                       *_weak_checks(o.name, weak), *_guard_checks(o, machine.root, guards)]
              for o in outcomes}
    probeable = [o for o in outcomes
                 if o.admission is not None and options is not None
                 and all(c.status != FAIL for c in checks[o.name])]
    with probing(len(probeable)) as advance:
        if options is not None:
            probe_admitted(probeable, machine, options, advance)
    documents = [_document(o, checks[o.name], o in probeable) for o in outcomes]
    code = ExitCode.OK
    if any(d["probe"] and d["probe"]["status"] == "failed" for d in documents):
        code = ExitCode.SERVER_FAILED
    elif any(c["status"] == FAIL for d in documents for c in d["checks"]):
        code = ExitCode.FINDINGS
    warnings = [unknown.message() for unknown in
                unknown_keys(o.server.winner for o in outcomes)]
    return Report("doctor", {"workspace": str(machine.root), "servers": documents},
                  Diagnoses(documents), problems_exit(code, view.problems), view.problems,
                  warnings)


def _of_its_folder(environment: Environment, outcome: Outcome) -> Environment:
    """`${workspaceFolder}` of a definition read from another folder's file (from a
    subfolder, issue 22) is that folder, as its launch has it."""
    folder = folder_of(outcome.server.winner.source, Path(environment.workspace))
    return dataclasses.replace(environment, workspace=folder)


def _secret_exists(name: str) -> bool | str:
    from mcpctl.credentials.keyring_store import get_secret  # noqa: PLC0415

    try:
        return get_secret(name) is not None
    except McpctlError as error:
        return str(error)


def _keyring_check() -> Check:
    """Can secrets be read here? The backend keyring would use, or the exit-5 message
    with the headless recipe (a machine with no desktop session has no keyring)."""
    from mcpctl.credentials.keyring_store import backend_name  # noqa: PLC0415

    try:
        return Check("keyring", OK, f"secrets are read from {backend_name()}")
    except McpctlError as error:
        return Check("keyring", FAIL, str(error))


def _checks(outcome: Outcome, environment: Environment) -> list[Check]:
    source = outcome.server.winner.source
    if outcome.admission is None:
        trust = Check("trust", FAIL, outcome.refused or "not admitted")
    else:
        trust = Check("trust", OK, f"{outcome.admission.status.state} "
                      f"({source.tier} tier, {source.location()})")
    return [trust, *static_checks(outcome.server.winner.spec, environment)]


def _weak_checks(name: str, weak: WeakApprovals) -> list[Check]:
    return [Check("other clients", WARN, approval.message()) for approval in weak.approvals
            if approval.server == name or (approval.server is None and name in approval.covers)]


def _guard_checks(outcome: Outcome, root: Path, guards: Mapping[str, GuardState]
                  ) -> list[Check]:
    """Per client that reads one of this server's repo definitions: does it start it
    only through mcpctl's gate (issue 22)? A warning when not, with what would."""
    found: list[Check] = []
    for definition in outcome.server.definitions:
        if definition.source.tier is not Tier.WORKSPACE:
            continue
        folder = folder_of(definition.source, root)  # the one its file is read for
        state = guards.get(client_reading(definition.source.path, folder) or "")
        if state is None or state.state == NOTHING:
            continue
        fix = f"; to guard it: {state.fix}" if state.fix else ""
        found.append(Check("guard", WARN if state.state == NOT_GUARDED else OK,
                           f"{state.client} {state.state} ({state.how}{fix})"))
    return found


def _document(outcome: Outcome, checks: list[Check], probed: bool) -> dict[str, Any]:
    probe: dict[str, Any] | None = None
    if probed and outcome.failed is not None:
        probe = {"status": "failed", "error": outcome.failed,
                 "stderr_tail": list(outcome.stderr_tail)}
    elif probed and outcome.result is not None:
        result = outcome.result
        probe = {"status": "ok", "first_answer_seconds": round(result.first_answer, 3),
                 "style": result.style, "protocol_version": result.protocol_version,
                 "tool_count": len(result.tools), "stderr_head": list(result.stderr_head)}
    return {"name": outcome.name, "checks": [c.__dict__ for c in checks], "probe": probe}
