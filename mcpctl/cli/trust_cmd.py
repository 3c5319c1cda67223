"""`mcpctl trust` and `mcpctl revoke`: approvals by fingerprint."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
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
    ignore_changes_in: Annotated[
        list[str] | None,
        typer.Option("--ignore-changes-in", metavar="DIR",
                     help="Leave this workspace folder out of the approval (repeatable); "
                          "recorded, and shown by list and show.")
    ] = None,
    workspace: WorkspaceOption = None,
    config: ConfigOption = None,
    as_json: JsonOption = False,
) -> int:
    """Approve workspace servers at their exact current fingerprint.

    An approval covers the whole workspace (git's tracked and unignored files, or
    every file outside git), or for a version-pinned npx/uvx package only what the
    runner reads from the workspace. Shows the files changed since the last approval
    once, then each server's command line, every variable and keyring secret it
    receives, cwd, url and what the approval covers, and asks once. With no terminal,
    --yes is required. If the definition or a covered file changes later, the server
    becomes `changed` and will not start until approved again.

    Example: mcpctl trust memory tasks --ignore-changes-in docs --workspace ~/src/project
    """
    from mcpctl.trust import actions as trust_actions  # noqa: PLC0415

    ctx = context(workspace, config)
    view = load_view(ctx.root, ctx.config_file)
    servers = _select(view.servers, names or [], all_servers)
    interactive = sys.stdin.isatty() and not yes and not as_json
    if not yes and not interactive:
        raise TrustRefused("not a terminal: nothing approved; review with `mcpctl show NAME` "
                           "and approve non-interactively with --yes")
    ignored = _folders(ignore_changes_in or [], ctx.root) if ignore_changes_in else None
    pending = trust_actions.statuses(servers, ctx.root, ctx.paths.trust_file, ignored)
    results = _review(pending, interactive=interactive, as_json=as_json,
                      approve=lambda server, status: trust_actions.approve(
                          server, status, ctx.root, ctx.paths.trust_file))
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


def _review(pending: list[tuple[MergedServer, Status]], *, interactive: bool, as_json: bool,
            approve: Callable[[MergedServer, Status], None]) -> list[dict[str, Any]]:
    """Show what is asked (the changed files once), ask once, approve the approvable."""
    results: list[dict[str, Any]] = []
    asking = [(server, status) for server, status in pending
              if status.state is not TrustState.TRUSTED]
    if not as_json:
        _describe_file_changes([status for _, status in asking])
    approvable = []
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
        approvable.append((server, status))
    names_asked = ", ".join(repr(server.name) for server, _ in approvable)
    declined = bool(approvable) and interactive and not typer.confirm(
        f"Trust {names_asked}?", default=False)
    for server, status in approvable:
        if declined:
            results.append(_result(server, status, "declined"))
            continue
        approve(server, status)
        results.append(_result(server, status, "trusted"))
    return results


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


MAX_FILES_SHOWN = 200  # of the files changed; the rest are counted


def _folders(texts: list[str], root: Path) -> list[str]:
    """Workspace-relative folders, `/`-separated; anything else is a usage error."""
    folders = []
    for text in texts:
        relative = Path(text)
        if relative.is_absolute():
            try:
                relative = relative.relative_to(root)
            except ValueError:
                raise UsageError(f"--ignore-changes-in {text!r} is not inside the workspace "
                                 f"{root}") from None
        parts = relative.parts
        if not parts or parts == (".",) or ".." in parts:
            raise UsageError(f"--ignore-changes-in {text!r}: name a folder inside the "
                             "workspace (not the root, no `..`)")
        folders.append("/".join(p for p in parts if p != ".") + "/")
    return sorted(set(folders))


def _describe_file_changes(statuses: list[Status]) -> None:
    """Once for every server asked about: the files changed since its last approval."""
    changes = {change.path: change for status in statuses for change in status.file_changes}
    if not changes:
        return
    ordered = [changes[path] for path in sorted(changes)]
    render.say(f"{len(ordered)} file{'s' if len(ordered) != 1 else ''} changed in the "
               "workspace since the last approval:")
    for change in ordered[:MAX_FILES_SHOWN]:
        render.say(f"  {change.path} {change.what} ({change.stat()})")
    if len(ordered) > MAX_FILES_SHOWN:
        render.say(f"  … and {len(ordered) - MAX_FILES_SHOWN} more")


def _describe(server: MergedServer, status: Status) -> None:
    spec = server.winner.spec
    source = server.winner.source
    render.say(f"{server.name}  ({status.state}) from {render.display_path(source.path)}:"
               f"{source.line}")
    other_changes = [c for c in status.changes if not c.startswith("file ")]
    if other_changes:
        render.say("  changed since approval:")
        for change in other_changes:
            render.say(f"    {change}")
    for label, value in listing.spec_lines(spec, cwd_default="(workspace root)"):
        render.say(f"  {label + ':':<12} {value}")
    for line in listing.secret_lines(spec):
        render.say(f"  {'secret:':<12} {line}")
    for path, digest in status.files:
        render.say(f"  {'runs:':<12} {path} {digest}")
    if status.pins is not None:
        render.say(f"  {'covers:':<12} {status.pins.describe()}")
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
