"""`mcpctl doctor`: for each server, why it would or would not start, and the fix."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from mcpctl.cli import render
from mcpctl.cli.cost_cmd import CapabilitiesOption, TimeoutOption, parse_capabilities
from mcpctl.cli.options import ConfigOption, JsonOption, WorkspaceOption, context


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor_command)


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
    from mcpctl.cli.progress import progress  # noqa: PLC0415
    from mcpctl.probing.servers import ProbeOptions  # noqa: PLC0415
    from mcpctl.reports.doctor import doctor_report  # noqa: PLC0415

    options = None if no_probe else ProbeOptions(parse_capabilities(capabilities), timeout)
    report = doctor_report(context(workspace, config), names or [], options,
                           lambda total: progress("probing", total))
    return render.emit(report, as_json, lambda diagnoses: _print(diagnoses.servers))


def _print(documents: list[dict[str, Any]]) -> None:
    from mcpctl.probing.diagnosis import FAIL, OK  # noqa: PLC0415

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
