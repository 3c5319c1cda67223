"""`mcpctl guard --system`: print (or write) the managed files that make Claude Code,
Gemini CLI and Codex start no repo server except through `mcpctl run` (issue 22)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from mcpctl.cli import render
from mcpctl.cli.options import ConfigOption, JsonOption, context

HELP = """Print or write the managed settings files that guard clients machine-wide.

    The user-level guard (`mcpctl clients enable claude-code` and `mcpctl sync`) keeps
    Claude Code's allowlist in your own settings, which a repo's committed
    .claude/settings.json can widen. The managed files cannot be widened by any user or
    repo file: Claude Code's managed-settings.json (allowManagedMcpServersOnly, only
    `mcpctl run` command lines allowed), Gemini CLI's system settings (your servers
    as `mcpctl run NAME`, only their names allowed) and Codex's requirements.toml (an
    mcp_servers allowlist of your servers, each only as `mcpctl run NAME`). Claude
    Code's lines carry the machine's guard key, kept in /etc/mcpctl/guard.key (made by
    --write when there is none; every user's mcpctl reads it), so no repo can write an
    allowed line. Without --write the files are printed with the key shown as ***;
    --write writes them (as root) under --root, which also builds them for an MDM to
    deploy.

    --off takes mcpctl's user-level guard out of Claude Code: its own allowlist entries
    and guard entries, never yours. `clients disable claude-code` leaves the guard in
    place (it fails closed), so --off is refused while claude-code is still enabled.

    Example: sudo mcpctl guard --system --write --command /usr/local/bin/mcpctl
    """


def register(app: typer.Typer) -> None:
    app.command("guard", help=HELP)(guard_command)


def guard_command(
    system: Annotated[bool, typer.Option("--system", help="The machine-wide (managed) "
                                         "files.")] = False,
    off: Annotated[bool, typer.Option("--off", help="Take mcpctl's user-level guard out of "
                                      "Claude Code (after `mcpctl clients disable "
                                      "claude-code`).")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="With --off: say what would be "
                                          "removed; write nothing.")] = False,
    write: Annotated[bool, typer.Option("--write", help="Write the files instead of "
                                        "printing them.")] = False,
    root: Annotated[Path, typer.Option("--root", help="Write under this folder instead of "
                                       "/ (to build a package).")] = Path("/"),
    command: Annotated[str | None, typer.Option("--command", help="The mcpctl the entries "
                                                "run, exactly as users' entries name it "
                                                "(default: [clients] command).")] = None,
    as_json: JsonOption = False,
    config: ConfigOption = None,
) -> int:
    from mcpctl.errors import UsageError  # noqa: PLC0415
    from mcpctl.reports.system_guard import system_guard_report  # noqa: PLC0415

    if system == off:
        raise UsageError("guard: say --system or --off (the user-level guard is `mcpctl "
                         "sync`)")
    if off and (write or command is not None or root != Path("/")):
        raise UsageError("guard --off: --write, --root and --command go with --system")
    if system and dry_run:
        raise UsageError("guard --system: --dry-run goes with --off (without --write "
                         "nothing is written)")
    if off:
        from mcpctl.cli.export_cmd import show_exports  # noqa: PLC0415
        from mcpctl.reports.client_tier import guard_off_report  # noqa: PLC0415

        return render.emit(guard_off_report(context(None, config), dry_run=dry_run),
                           as_json, show_exports)
    report = system_guard_report(context(None, config), root=root, command=command,
                                 write=write)
    return render.emit(report, as_json, _print)


def _print(body: dict[str, Any]) -> None:
    key = body["key"]
    for file in body["files"]:
        if body["written"]:
            render.say(f"{file['client']}: {file['path']} (written)")
        else:
            render.say(f"# {file['client']}: {file['path']}")
            for line in file["text"].splitlines():
                render.say(line)
    if body["written"]:
        render.say(f"guard key: {key['path']} ({'written' if key['made'] else 'kept'})")
    for client, why in body["not_written"].items():
        render.warn(f"note: {client}: {why}")
    if not body["written"]:
        render.warn(f"note: the guard key is shown as ***; --write writes the files with "
                    f"the key in {key['path']} (made there when there is none)")
    for client, what in body["limits"].items():
        render.warn(f"note: {client}: not stopped by its file: {what}")
