"""`export` and `sync`: user-tier servers written into clients' files (edge; DESIGN §11).

The plan (`client_export_plan.py`) and the edit (`client_edit.py`) are computed from
the bytes read, inside `write_client_file`, which redoes them if the client rewrote
its file meanwhile; `--dry-run` computes them once and shows a masked diff instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpctl.clients.exported_command import ExportedCommand
from mcpctl.clients.files import ATTEMPTS, client_text_or_none, write_client_file
from mcpctl.clients.guard_key import hide_in
from mcpctl.clients.table import CLIENTS, ClientFormat, client_path
from mcpctl.clients.write.diff import masked_diff
from mcpctl.clients.write.edit import apply_plan
from mcpctl.clients.write.parse import project_servers, read_document, servers_of
from mcpctl.clients.write.plan import ExportPlan, SameServer, plan_export
from mcpctl.errors import ConfigError, McpctlError, UsageError
from mcpctl.model import ServerSpec

if TYPE_CHECKING:
    from mcpctl.machine import Machine


@dataclass
class ExportReport:
    """What exporting to one client planned and wrote."""

    client: ClientFormat
    path: Path
    plan: ExportPlan = field(default_factory=ExportPlan)
    written: bool = False
    backup: Path | None = None
    backup_secrets: int = 0  # secret values the backup holds as references
    backup_skipped: bool = False  # no backup: a secret could not be taken out of it
    diff: str = ""
    error: McpctlError | None = None
    command: ExportedCommand | None = None  # what the entries run, and what to say about it


def user_servers(config_file: Path) -> dict[str, ServerSpec]:
    """The user tier by name; a config.toml with problems stops any export (a server
    missing from a half-read file would look removed)."""
    from mcpctl.config.user_config import load_user_tier  # noqa: PLC0415

    load = load_user_tier(config_file)
    if load.problems:
        raise ConfigError(f"{load.problems[0]}; fix config.toml first (nothing was exported)")
    return {definition.name: definition.spec for definition in load.definitions}


def exported_command(config_file: Path, given: str | None) -> ExportedCommand:
    """What exported entries run: `given` (--command), else `[clients] command`, else
    the default, with the warning or note the default comes with."""
    from mcpctl.clients.settings import read_client_settings  # noqa: PLC0415

    return ExportedCommand(given) if given else read_client_settings(config_file).exported


def export_to_client(
    machine: Machine, client: ClientFormat, names: Sequence[str], *, replace: bool,
    dry_run: bool, command: str | ExportedCommand | None = None, file: Path | None = None,
    prune: bool = False,
) -> ExportReport:
    """Write `names` (default: the whole user tier) into the client's file."""
    wanted = _wanted(machine.config_file, names)
    chosen = command if isinstance(command, ExportedCommand) \
        else exported_command(machine.config_file, command)
    path = client_path(machine, client, file)
    report = ExportReport(client, path, command=chosen)
    filters = _tool_filters(machine, client, wanted)
    key = entry_key(machine, client, dry_run=dry_run)

    def compute(old: str | None) -> str:
        data = read_document(client, old, path)
        report.plan = plan_export(client, servers_of(client, data, path), wanted,
                                  chosen.command,
                                  replace=replace, prune=prune,
                                  same_server=_same_server(client, machine),
                                  projects=project_servers(client, data), filters=filters,
                                  key=key)
        return apply_plan(client, old, report.plan, path, data)

    if dry_run:
        old = client_text_or_none(path)
        new = compute(old)
        documents = (read_document(client, old, path), read_document(client, new, path))
        # The key goes before masking, which would show its first characters.
        report.diff = masked_diff(hide_in(old or "", key), hide_in(new, key), str(path),
                                  documents) if report.plan.writes else ""
        return report
    result = write_client_file(
        path, compute, backup_dir=machine.paths.data_dir / "backups" / client.id,
        lock_dir=machine.paths.cache_dir / "locks", now=lambda: datetime.now(UTC),
        attempts=ATTEMPTS + 2 if client.rewritten_by_client else ATTEMPTS)
    report.path, report.written, report.backup = result.path, result.written, result.backup
    report.backup_secrets, report.backup_skipped = result.secrets_replaced, result.backup_skipped
    return report


def entry_key(machine: Machine, client: ClientFormat, *, dry_run: bool) -> str | None:
    """The guard key `client`'s entries carry (None: a client without one). A dry run
    makes none: before the first key exists it plans with a stand-in."""
    from mcpctl.clients.guard_key import HIDDEN, machine_key  # noqa: PLC0415

    if not client.keyed:
        return None
    return machine_key(machine.paths, machine.os_key, create=not dry_run) or HIDDEN


def _tool_filters(machine: Machine, client: ClientFormat, wanted: Sequence[ServerSpec]
                  ) -> dict[str, dict[str, Any]]:
    """The client's own tool filter per server with a `[tools.NAME]` policy (issue 29)."""
    from mcpctl.clients.write.tool_filters import ENTRY_FILTERS, decided_for, entry_filters  # noqa: PLC0415

    if client.id not in ENTRY_FILTERS:
        return {}
    return entry_filters(client.id, decided_for(machine, wanted))


def _same_server(client: ClientFormat, machine: Machine) -> SameServer:
    """The adoption check, reading the keyring only for an entry that holds a secret."""
    from mcpctl.clients.write.adoption import holds_the_same_server  # noqa: PLC0415

    def secret_of(name: str) -> str | None:
        from mcpctl.credentials.keyring_store import get_secret  # noqa: PLC0415

        try:
            return get_secret(name)
        except McpctlError:
            return None  # no keyring: not provably the same, so a conflict as before

    return lambda name, raw, spec: holds_the_same_server(client, name, raw, spec, secret_of)


def _wanted(config_file: Path, names: Sequence[str]) -> list[ServerSpec]:
    specs = user_servers(config_file)
    missing = [name for name in names if name not in specs]
    if missing:
        raise UsageError(f"no server named {missing[0]!r} in the user tier "
                         f"({config_file}); see: mcpctl list --tier user")
    return [specs[name] for name in (names or sorted(specs))]


def sync_clients(machine: Machine, *, check: bool, dry_run: bool, replace: bool,
                 command: str | None = None) -> list[ExportReport]:
    """Export the whole user tier to every client in `[clients] sync`, removing what
    mcpctl exported earlier for servers since removed. A client whose file cannot be
    written is reported and the others are still synced."""
    from mcpctl.clients.settings import read_client_settings  # noqa: PLC0415

    settings = read_client_settings(machine.config_file)
    if not settings.sync:
        raise UsageError("no clients to sync: enable one with `mcpctl clients enable NAME` "
                         "(see `mcpctl clients` for the names)")
    user_servers(machine.config_file)  # a broken config.toml stops everything up front
    chosen = ExportedCommand(command) if command else settings.exported
    reports = []
    for client in (c for c in CLIENTS if c.id in settings.sync):
        try:
            reports.append(export_to_client(machine, client, (), replace=replace,
                                            dry_run=check or dry_run, command=chosen,
                                            prune=True))
        except McpctlError as error:
            reports.append(ExportReport(client, client_path(machine, client), error=error,
                                        command=chosen))
    return reports
