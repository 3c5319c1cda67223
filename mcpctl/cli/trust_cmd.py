"""`mcpctl trust` and `mcpctl revoke`: approvals by fingerprint."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from mcpctl.cli import render
from mcpctl.cli.options import ConfigOption, JsonOption, WorkspaceOption, context
from mcpctl.config.merge import MergedServer
from mcpctl.reports import listing
from mcpctl.reports.approvals import Approvals, Revoked, revoke_report, trust_report
from mcpctl.trust.status import Status


def register(app: typer.Typer) -> None:
    app.command("trust")(trust_command)
    app.command("revoke")(revoke_command)


def trust_command(
    names: Annotated[list[str] | None, typer.Argument(help="Workspace servers to approve.")
                     ] = None,
    all_servers: Annotated[
        bool, typer.Option("--all", help="Every untrusted or changed workspace server here.")
    ] = False,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Approve without asking (needed with no terminal).")
    ] = False,
    workspace: WorkspaceOption = None,
    config: ConfigOption = None,
    as_json: JsonOption = False,
) -> int:
    """Approve workspace servers at their exact current fingerprint.

    Shows the literal command line, env (secret-looking values masked), cwd, url and
    pinned files, and the diff for a changed server, then asks. With no terminal,
    --yes is required. If the definition or a pinned file changes later, the server
    becomes `changed` and will not start until approved again.

    Example: mcpctl trust memory tasks --workspace ~/src/project
    """
    interactive = sys.stdin.isatty() and not yes and not as_json

    def review(server: MergedServer, status: Status) -> None:
        if not as_json:
            _describe(server, status)

    def confirm(server: MergedServer) -> bool:
        return typer.confirm(f"Trust {server.name!r}?", default=False)

    report = trust_report(context(workspace, config), names or [], all_servers, review=review,
                          confirm=None if yes else confirm, can_ask=interactive)
    return render.emit(report, as_json, _print_results)


def _print_results(approvals: Approvals) -> None:
    for result in approvals.results:
        render.say(f"{result['status']}: {result['name']} ({result['fingerprint']})")
    if not approvals.results:
        render.say("no workspace servers here to trust")


def _describe(server: MergedServer, status: Status) -> None:
    spec = server.winner.spec
    source = server.winner.source
    render.say(f"{server.name}  ({status.state}) from {render.display_path(source.path)}:"
               f"{source.line}")
    if status.changes:
        render.say("  changed since approval:")
        for change in status.changes:
            render.say(f"    {change}")
    for label, value in listing.spec_lines(spec, cwd_default="(workspace root)"):
        render.say(f"  {label + ':':<12} {value}")
    for path, digest in status.files:
        render.say(f"  pinned file: {path} {digest}")
    render.say(f"  fingerprint: {status.fingerprint}")


def revoke_command(
    names: Annotated[list[str] | None, typer.Argument(help="Servers to forget.")] = None,
    whole_workspace: Annotated[
        bool, typer.Option("--whole-workspace", help="Every approval of this workspace.")
    ] = False,
    all_approvals: Annotated[bool, typer.Option("--all", help="Every approval, everywhere.")
                             ] = False,
    stale: Annotated[
        bool, typer.Option("--stale", help="Approvals that are changed or orphaned, everywhere.")
    ] = False,
    workspace: WorkspaceOption = None,
    config: ConfigOption = None,
    as_json: JsonOption = False,
) -> int:
    """Forget approvals. A running server is not stopped by this.

    Example: mcpctl revoke --stale
    """
    report = revoke_report(context(workspace, config), names or [],
                           whole_workspace=whole_workspace, all_approvals=all_approvals,
                           stale=stale)
    return render.emit(report, as_json, _print_revoked)


def _print_revoked(revoked: Revoked) -> None:
    for item in revoked.removed:
        render.say(f"revoked: {item['name']} in {item['workspace']} ({item['reason']})")
    if not revoked.removed:
        render.say("nothing to revoke")
    else:
        render.say("note: servers already running are not stopped; restart your MCP client.")
