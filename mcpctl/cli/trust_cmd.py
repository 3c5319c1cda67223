"""`mcpctl trust` and `mcpctl revoke`: approvals by fingerprint."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from mcpctl.cli import render
from mcpctl.cli.options import ConfigOption, JsonOption, WorkspaceOption, context

if TYPE_CHECKING:
    from mcpctl.config.merge import MergedServer
    from mcpctl.machine import Machine
    from mcpctl.model import ServerSpec
    from mcpctl.reports.approvals import Approvals, Revoked
    from mcpctl.reports.report import Report
    from mcpctl.trust.status import Status

T = TypeVar("T")


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
        bool, typer.Option("--yes", "-y",
                           help="Approve servers never approved before without asking (needed "
                                "with no terminal); a changed one stops it, approving nothing.")
    ] = False,
    accept_changed: Annotated[
        bool, typer.Option("--accept-changed",
                           help="Without asking, also approve servers changed since their "
                                "approval (each one's diff is printed).")
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
    --yes is required; --yes approves only servers never approved before: a server
    changed since its approval stops it (exit 4, the diff shown, nothing approved)
    unless --accept-changed is given too. If the definition or a covered file changes
    later, the server becomes `changed` and will not start until approved again.

    Example: mcpctl trust --all --yes --workspace ~/src/project
    """
    from mcpctl.reports.approvals import trust_report  # noqa: PLC0415

    yes = yes or accept_changed  # the explicit option for changes asks nothing either
    interactive = sys.stdin.isatty() and not yes and not as_json

    def review(asking: list[tuple[MergedServer, Status]]) -> None:
        if not as_json:
            _describe_file_changes([status for _, status in asking])
            for server, status in asking:
                _describe(server, status, machine)

    def confirm(servers: list[MergedServer]) -> bool:
        asked = ", ".join(repr(server.name) for server in servers)
        return typer.confirm(f"Trust {asked}?", default=False)

    machine = context(workspace, config)
    report = trust_report(machine, names or [], all_servers, review=review,
                          confirm=None if yes else confirm, can_ask=interactive,
                          ignore_changes_in=ignore_changes_in or (),
                          accept_changed=accept_changed)
    return _emit_then_guard(machine, report, as_json, _print_results)


def _emit_then_guard(machine: Machine, report: Report[T], as_json: bool,
                     text: Callable[[T], None]) -> int:
    """Say what changed, then keep the guard's wiring current with it (DESIGN §11)."""
    from mcpctl.cli.guarding import keep_guards_current  # noqa: PLC0415

    code = render.emit(report, as_json, text)
    keep_guards_current(machine)
    return code


def _print_results(approvals: Approvals) -> None:
    for result in approvals.results:
        # From a subfolder a server may be another folder's (issue 22): say which.
        folder = result["workspace"]
        shown = render.display_path(Path(folder))
        where = "" if folder == approvals.root else \
            f" in {'this folder' if shown == '.' else shown}"
        render.say(f"{result['status']}: {result['name']} ({result['fingerprint']}){where}")
    if not approvals.results:
        render.say("no workspace servers here to trust")


MAX_FILES_SHOWN = 200  # of the files changed; the rest are counted


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


def _describe(server: MergedServer, status: Status, machine: Machine) -> None:
    from mcpctl.config.workspace import folder_of  # noqa: PLC0415
    from mcpctl.reports import listing  # noqa: PLC0415

    spec = server.winner.spec
    source = server.winner.source
    render.say(f"{server.name}  ({status.state}) from {render.display_path(source.path)}:"
               f"{source.line}")
    for line in listing.layer_lines(source, render.display_path):
        render.say(f"  {'merged:':<12} {line}")
    other_changes = [c for c in status.changes if not c.startswith("file ")]
    if other_changes:
        render.say("  changed since approval:")
        for change in other_changes:
            render.say(f"    {change}")
    folder = folder_of(source, machine.root)
    # Without a `cwd` it starts in the folder it is a server of (issue 22).
    start = "(workspace root)" if folder == machine.root else \
        f"({render.display_path(folder)}, its file's folder)"
    for label, value in listing.spec_lines(spec, cwd_default=start):
        render.say(f"  {label + ':':<12} {value}")
    for line in _env_file_lines(spec, folder, machine):
        render.say(f"  {'env:':<12} {line}")
    for line in listing.secret_lines(spec):
        render.say(f"  {'secret:':<12} {line}")
    for path, digest in status.files:
        render.say(f"  {'runs:':<12} {path} {digest}")
    if status.pins is not None:
        render.say(f"  {'covers:':<12} {status.pins.describe()}")
    render.say(f"  fingerprint: {status.fingerprint}")


def _env_file_lines(spec: ServerSpec, root: Path, machine: Machine) -> list[str]:
    """Every variable the envFile gives the launch, secret parts masked (issue 23)."""
    from mcpctl.credentials.masking import masked_map  # noqa: PLC0415
    from mcpctl.pinning.reach import env_file_variables  # noqa: PLC0415

    if spec.env_file is None:
        return []
    values = env_file_variables(spec, root, machine.environ, machine.home)
    if values is None:
        return [f"(from envFile) cannot be read here; the launch reads {spec.env_file} again"]
    overridden = spec.env.keys()
    return [f"{key}={value} (from envFile{', overridden by env' if key in overridden else ''})"
            for key, value in masked_map(values).items()]


def revoke_command(
    names: Annotated[list[str] | None, typer.Argument(help="Servers to forget.")] = None,
    whole_workspace: Annotated[
        bool, typer.Option("--whole-workspace", help="Every approval of this workspace "
                           "(from a subfolder, of every folder whose files `list` reads "
                           "there).")
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
    from mcpctl.reports.approvals import revoke_report  # noqa: PLC0415

    machine = context(workspace, config)
    report = revoke_report(machine, names or [], whole_workspace=whole_workspace,
                           all_approvals=all_approvals, stale=stale)
    return _emit_then_guard(machine, report, as_json, _print_revoked)


def _print_revoked(revoked: Revoked) -> None:
    for item in revoked.removed:
        render.say(f"revoked: {item['name']} in {item['workspace']} ({item['reason']})")
    if not revoked.removed:
        render.say("nothing to revoke")
    else:
        render.say("note: servers already running are not stopped; restart your MCP client.")
