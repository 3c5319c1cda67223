"""After `trust` and `revoke`: keep the guard's wiring current (DESIGN §11).

The one call `trust_cmd.py` makes into the guard. What changed is said on stderr, so
the command's own output (and its --json document) stays as it was; a client file
that cannot be written is a warning, never a failed approval.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mcpctl.cli import render
from mcpctl.errors import McpctlError

if TYPE_CHECKING:
    from mcpctl.machine import Machine

_SAID = {"added": "now starts {name!r} in {where} through mcpctl's gate",
         "updated": "now starts {name!r} in {where} through mcpctl's gate",
         "removed": "no longer routes {name!r} in {where} through mcpctl ({reason})"}
_ALLOWLIST = {"added": "'s allowlist now lets `{name}` start",
              "removed": "'s allowlist no longer lets `{name}` start ({reason})"}


def keep_guards_current(machine: Machine) -> None:
    from mcpctl.clients.write.guard import refresh_guards  # noqa: PLC0415

    try:
        report = refresh_guards(machine)
    except McpctlError as error:
        render.warn(f"warning: the guard was not updated: {error}")
        return
    if report is None:
        return
    if report.error is not None:
        render.warn(f"warning: the guard was not updated: {report.error}")
    else:
        for change in report.plan.changes:
            if change.status in _SAID:
                where = render.display_path(Path(change.workspace or ""))
                render.warn(f"guard: {report.client.title} " + _SAID[change.status].format(
                    name=change.name, where=where, reason=change.reason))
    allowlist = report.allowlist
    if allowlist is None:
        return
    if allowlist.error is not None:
        render.warn(f"warning: Claude Code's allowlist was not updated: {allowlist.error}")
        return
    for change in allowlist.plan.changes:
        if change.status in _ALLOWLIST:
            render.warn(f"guard: {report.client.title}" + _ALLOWLIST[change.status].format(
                name=change.name, reason=change.reason))
