"""`mcpctl trust` and `mcpctl revoke`: approvals by fingerprint."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from mcpctl.cli import render
from mcpctl.cli.guarding import keep_guards_current
from mcpctl.cli.options import ConfigOption, JsonOption, WorkspaceOption, context
from mcpctl.config.merge import MergedServer, find
from mcpctl.config.view import load_view
from mcpctl.errors import ExitCode, TrustRefused, UsageError
from mcpctl.model import Tier
from mcpctl.reports import listing
from mcpctl.trust.gate import unpinnable_message
from mcpctl.trust.state import TrustState
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
    from mcpctl.trust import actions as trust_actions  # noqa: PLC0415

    ctx = context(workspace, config)
    view = load_view(ctx.root, ctx.config_file)
    servers = _select(view.servers, names or [], all_servers)
    interactive = sys.stdin.isatty() and not yes and not as_json
    if not yes and not interactive:
        raise TrustRefused("not a terminal: nothing approved; review with `mcpctl show NAME` "
                           "and approve non-interactively with --yes")
    pending = trust_actions.statuses(servers, ctx.root, ctx.paths.trust_file)
    results: list[dict[str, Any]] = []
    for server, status in pending:
        if status.state is TrustState.TRUSTED:
            results.append(_result(server, status, "already-trusted"))
            continue
        if not as_json:
            _describe(server, status)
        if status.state is TrustState.UNPINNABLE:
            # Never approvable; the others still are, and the exit code says it at the end.
            render.warn(f"mcpctl: error: {unpinnable_message(server.name, status.unpinned)}")
            results.append(_result(server, status, "unpinnable"))
            continue
        if interactive and not typer.confirm(f"Trust {server.name!r}?", default=False):
            results.append(_result(server, status, "declined"))
            continue
        trust_actions.approve(server, status, ctx.root, ctx.paths.trust_file)
        results.append(_result(server, status, "trusted"))
    if as_json:
        render.print_json({"workspace": str(ctx.root), "results": results,
                           "problems": [listing.problem_document(p) for p in view.problems]})
    else:
        for result in results:
            render.say(f"{result['status']}: {result['name']} ({result['fingerprint']})")
        if not results:
            render.say("no workspace servers here to trust")
        render.warn_problems(view.problems)
    keep_guards_current(ctx)
    if any(result["status"] == "unpinnable" for result in results):
        return ExitCode.TRUST_REFUSED
    # A broken file may hide servers that were meant to be reviewed: say so by exit code.
    return ExitCode.INVALID_CONFIG if view.problems else ExitCode.OK


def _select(servers: list[MergedServer], names: list[str], all_servers: bool
            ) -> list[MergedServer]:
    if bool(names) == all_servers:
        raise UsageError("name the servers to trust, or give --all (not both)")
    if all_servers:
        return [s for s in servers if s.winner.source.tier is Tier.WORKSPACE]
    chosen = []
    for name in dict.fromkeys(names):
        server = find(servers, name)
        if server is None:
            raise UsageError(f"no server named {name!r} in this workspace (see: mcpctl list)")
        if server.winner.source.tier is Tier.USER:
            raise UsageError(f"server {name!r} is in your user tier, which is trusted as written; "
                             "only workspace servers need approval")
        chosen.append(server)
    return chosen


def _result(server: MergedServer, status: Status, outcome: str) -> dict[str, Any]:
    return {"name": server.name, "status": outcome, "fingerprint": status.fingerprint,
            "source": listing.source_document(server.winner.source)}


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
    from mcpctl.trust import actions as trust_actions  # noqa: PLC0415

    modes = [bool(names), whole_workspace, all_approvals, stale]
    if sum(modes) != 1:
        raise UsageError("give server names, or one of --whole-workspace, --all, --stale")
    ctx = context(workspace, config)
    store = ctx.paths.trust_file
    if stale:
        removed = trust_actions.revoke_stale(store)
    elif all_approvals:
        removed = trust_actions.revoke_all(store)
    else:
        removed = trust_actions.revoke_in(store, ctx.root, names or None)
    if as_json:
        render.print_json({"revoked": removed, "running_servers_stopped": False})
    else:
        for item in removed:
            render.say(f"revoked: {item['name']} in {item['workspace']} ({item['reason']})")
        if not removed:
            render.say("nothing to revoke")
        render.say("note: servers already running are not stopped; restart your MCP client.")
    keep_guards_current(ctx)
    return ExitCode.OK
