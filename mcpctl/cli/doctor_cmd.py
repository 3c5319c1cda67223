"""`mcpctl doctor`: for each server, why it would or would not start, and the fix."""

from __future__ import annotations

import functools
import os
import shutil
from pathlib import Path
from typing import Annotated, Any

import typer

from mcpctl.cli import render
from mcpctl.cli.cost_cmd import CapabilitiesOption, TimeoutOption, parse_capabilities, select
from mcpctl.cli.options import ConfigOption, JsonOption, WorkspaceOption, context
from mcpctl.cli.progress import progress
from mcpctl.clients.weak_approvals import WeakApprovals
from mcpctl.config.view import load_view
from mcpctl.errors import ExitCode, McpctlError
from mcpctl.probing.diagnosis import FAIL, OK, WARN, Check, Environment, static_checks
from mcpctl.probing.servers import Outcome, ProbeOptions, admit_all, probe_admitted
from mcpctl.reports.list_extras import weak_approvals_here


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor_command)


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


def doctor_command(
    names: Annotated[list[str] | None, typer.Argument(help="Servers (default: all here).")
                     ] = None,
    no_probe: Annotated[
        bool, typer.Option("--no-probe", help="Only the static checks; start nothing.")
    ] = False,
    timeout: TimeoutOption = None,
    capabilities: CapabilitiesOption = "roots",
    workspace: WorkspaceOption = None,
    config: ConfigOption = None,
    as_json: JsonOption = False,
) -> int:
    """Say for each server why it would or would not start, and how to fix it.

    Checks trust, the command on PATH, variables and secrets, unpinned npx/uvx/docker
    (cold downloads outlast client start timeouts), then — for trusted servers that
    pass — a live probe: time to first answer, protocol style and version, and the
    first lines of stderr. Exit 1 when a server would not start, 6 when a probe failed;
    143 (SIGTERM) or 129 (SIGHUP) if stopped by a signal, after stopping every server.

    Example: mcpctl doctor memory
    """
    ctx = context(workspace, config)
    view = load_view(ctx.root, ctx.config_file)
    outcomes = admit_all(select(view.servers, names or []), ctx.root, ctx.paths.trust_file)
    environment = Environment(ctx.root, Path.home(), os.environ,
                              lambda cmd: shutil.which(cmd, path=os.environ.get("PATH")),
                              _secret_exists, functools.cache(_keyring_check))
    weak = weak_approvals_here(ctx.root, view.servers)
    checks = {o.name: [*_checks(o, environment), *_weak_checks(o.name, weak)]
              for o in outcomes}
    probeable = [o for o in outcomes
                 if o.admission is not None and not no_probe
                 and all(c.status != FAIL for c in checks[o.name])]
    with progress("probing", len(probeable)) as advance:
        probe_admitted(probeable, ctx.paths,
                       ProbeOptions(parse_capabilities(capabilities), timeout), advance)
    documents = [_document(o, checks[o.name], o in probeable) for o in outcomes]
    if as_json:
        render.print_json({"workspace": str(ctx.root), "servers": documents,
                           "problems": [f"{p}" for p in view.problems]})
    else:
        _print(documents)
    if any(d["probe"] and d["probe"]["status"] == "failed" for d in documents):
        return ExitCode.SERVER_FAILED
    if any(c["status"] == FAIL for d in documents for c in d["checks"]):
        return ExitCode.FINDINGS
    return ExitCode.OK


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


def _print(documents: list[dict[str, Any]]) -> None:
    for document in documents:
        render.say(document["name"])
        for check in document["checks"]:
            render.say(f"  {check['status']:<4}  {check['check']}: {check['message']}")
        probe = document["probe"]
        if probe is None:
            continue
        if probe["status"] == "failed":
            render.say(f"  {FAIL:<4}  probe: {probe['error']}")
            lines = probe["stderr_tail"][-5:]
        else:
            render.say(f"  {OK:<4}  probe: first answer in {probe['first_answer_seconds']:.2f} s,"
                       f" {probe['protocol_version']} ({probe['style']}), "
                       f"{probe['tool_count']} tools")
            lines = probe["stderr_head"][:5]
        for line in lines:
            render.say(f"        stderr: {line}")
