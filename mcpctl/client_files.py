"""Reading and writing other clients' files: the only edge of the client tier (DESIGN §10, §11).

A write is a read-modify-write that never clobbers what a client wrote meanwhile:
the new text is computed from the bytes read, and just before the atomic replace the
file is read again; if it changed (Claude Code rewrites `~/.claude.json` while it runs),
the whole computation is redone from the new bytes, and after a few attempts mcpctl
gives up without writing. The old bytes are kept as a timestamped backup (0600) in
mcpctl's data folder. A symlinked file (dotfile managers) is written through to its
target. mcpctl's own lock for the file lives in its cache folder, not beside the
client's file, where a `<file>.lock` could collide with the client's own lock.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from mcpctl.atomic import atomic_write_text, file_lock
from mcpctl.client_export import (
    ExportPlan,
    apply_plan,
    masked_diff,
    plan_export,
    read_document,
    servers_of,
)
from mcpctl.clients import CLIENTS, ClientFormat, client_file, os_name
from mcpctl.errors import ConfigError, ExitCode, McpctlError, UsageError
from mcpctl.model import Problem, ServerSpec
from mcpctl.paths import Paths

if TYPE_CHECKING:
    from mcpctl.client_tier import ClientServer

# Claude Code's ~/.claude.json grows with every project; 16 MiB (the cap for config
# files mcpctl reads) is not enough there.
MAX_CLIENT_BYTES = 64 * 1024 * 1024
ATTEMPTS = 3
BACKUPS_KEPT = 20


class ConcurrentChange(McpctlError):
    """The client kept rewriting its file while mcpctl prepared its change."""

    exit_code = ExitCode.FINDINGS


def read_client_text(path: Path, limit: int = MAX_CLIENT_BYTES) -> str | Problem:
    """The file's text exactly as stored (newlines kept), or a Problem (never raises)."""
    data = _read_bytes(path, limit)
    if isinstance(data, Problem):
        return data
    if data is None:
        return Problem(path, 1, 1, "cannot read: No such file or directory")
    return _decode(path, data)


def _read_bytes(path: Path, limit: int = MAX_CLIENT_BYTES) -> bytes | Problem | None:
    """None when the file does not exist."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as error:
        return Problem(path, 1, 1, f"cannot read: {error.strerror or error}")
    try:
        kind = os.fstat(fd).st_mode
        if stat.S_ISDIR(kind):
            return Problem(path, 1, 1, "is a directory, not a file")
        if not stat.S_ISREG(kind):
            return Problem(path, 1, 1, "is not a regular file")
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as error:
        return Problem(path, 1, 1, f"cannot read: {error.strerror or error}")
    finally:
        os.close(fd)
    if len(data) > limit:
        return Problem(path, 1, 1, f"file is larger than {limit} bytes")
    return data


def _decode(path: Path, data: bytes) -> str | Problem:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        return Problem(path, 1, 1, f"not UTF-8 text (byte {error.start})")


@dataclass(frozen=True)
class WriteResult:
    path: Path  # the file written (a symlink's target)
    written: bool
    backup: Path | None
    attempts: int


Compute = Callable[[str | None], str]


def write_client_file(
    path: Path, compute: Compute, *, backup_dir: Path, lock_dir: Path,
    now: Callable[[], datetime], attempts: int = ATTEMPTS,
) -> WriteResult:
    """Replace `path` with `compute(old_text)` (old_text None: no file yet).

    `compute` is called again with the new text whenever the file changed between
    the read and the write; it raises (ConfigError) to refuse. Returns what was done.
    """
    target = path.resolve() if path.is_symlink() else path
    lock = lock_dir / hashlib.sha256(str(target).encode()).hexdigest()[:32]
    for attempt in range(1, attempts + 1):
        before = _snapshot(target)
        new_text = compute(None if before is None else _text_or_raise(target, before))
        if new_text.encode("utf-8") == (before if before is not None else b""):
            return WriteResult(target, False, None, attempt)
        with file_lock(lock):
            if _snapshot(target) != before:
                continue  # the client wrote meanwhile: start again from its bytes
            backup = _backup(target, before, backup_dir, now()) if before is not None \
                else None
            atomic_write_text(target, new_text)
        return WriteResult(target, True, backup, attempt)
    raise ConcurrentChange(
        f"{path} changed while mcpctl was preparing its change ({attempts} times); "
        "nothing was written; try again when the client is idle")


def _snapshot(path: Path) -> bytes | None:
    data = _read_bytes(path)
    if isinstance(data, Problem):
        raise ConfigError(f"{data}; the file was not changed")
    return data


def _text_or_raise(path: Path, data: bytes) -> str:
    text = _decode(path, data)
    if isinstance(text, Problem):
        raise ConfigError(f"{text}; the file was not changed")
    return text


def _backup(target: Path, data: bytes, backup_dir: Path, when: datetime) -> Path:
    stamp = when.strftime("%Y%m%dT%H%M%S.%fZ")
    backup = backup_dir / f"{target.name}.{stamp}"
    # Client files can hold tokens: the backup is 0600 whatever the original's mode.
    atomic_write_text(backup, data.decode("utf-8"), mode=0o600)
    old = sorted(backup_dir.glob(f"{target.name}.*"))
    for stale in old[:-BACKUPS_KEPT]:
        stale.unlink(missing_ok=True)
    return backup


# ---- the operations that write: export, sync, import --------------------------------

@dataclass(frozen=True)
class Machine:
    """What the client-tier edges need to know about this machine and invocation."""

    paths: Paths
    config_file: Path
    root: Path
    environ: Mapping[str, str]
    home: Path
    os_key: str

    @classmethod
    def current(cls, paths: Paths, config_file: Path, root: Path) -> Machine:
        return cls(paths, config_file, root, dict(os.environ), Path.home(),
                   os_name(sys.platform))

    def client_path(self, client: ClientFormat, override: Path | None = None) -> Path:
        return override.absolute() if override else client_file(client, self.os_key,
                                                                self.environ, self.home)


@dataclass
class ExportReport:
    client: ClientFormat
    path: Path
    plan: ExportPlan = field(default_factory=ExportPlan)
    written: bool = False
    backup: Path | None = None
    diff: str = ""
    error: McpctlError | None = None


def user_servers(config_file: Path) -> dict[str, ServerSpec]:
    """The user tier by name; a config.toml with problems stops any export (a server
    missing from a half-read file would look removed)."""
    from mcpctl.user_config import load_user_tier  # noqa: PLC0415

    load = load_user_tier(config_file)
    if load.problems:
        raise ConfigError(f"{load.problems[0]}; fix config.toml first (nothing was exported)")
    return {definition.name: definition.spec for definition in load.definitions}


def export_to_client(
    machine: Machine, client: ClientFormat, names: Sequence[str], *, replace: bool,
    dry_run: bool, command: str | None = None, file: Path | None = None, prune: bool = False,
) -> ExportReport:
    from mcpctl.sync_config import read_client_settings  # noqa: PLC0415

    specs = user_servers(machine.config_file)
    missing = [name for name in names if name not in specs]
    if missing:
        raise UsageError(f"no server named {missing[0]!r} in the user tier "
                         f"({machine.config_file}); see: mcpctl list --tier user")
    wanted = [specs[name] for name in (names or sorted(specs))]
    command = command or read_client_settings(machine.config_file).command
    path = machine.client_path(client, file)
    report = ExportReport(client, path)

    def compute(old: str | None) -> str:
        data = read_document(client, old, path)
        report.plan = plan_export(client, servers_of(client, data, path), wanted, command,
                                  replace=replace, prune=prune)
        return apply_plan(client, old, report.plan, path, data)

    if dry_run:
        data = _snapshot(path)
        old = None if data is None else _text_or_raise(path, data)
        new = compute(old)
        report.diff = masked_diff(old or "", new, str(path)) if report.plan.writes else ""
        return report
    result = write_client_file(
        path, compute, backup_dir=machine.paths.data_dir / "backups" / client.id,
        lock_dir=machine.paths.cache_dir / "locks", now=lambda: datetime.now(UTC),
        attempts=ATTEMPTS + 2 if client.rewritten_by_client else ATTEMPTS)
    report.path, report.written, report.backup = result.path, result.written, result.backup
    return report


def sync_clients(machine: Machine, *, check: bool, dry_run: bool, replace: bool,
                 command: str | None = None) -> list[ExportReport]:
    """Export the whole user tier to every client in `[clients] sync`, removing what
    mcpctl exported earlier for servers since removed. A client whose file cannot be
    written is reported and the others are still synced."""
    from mcpctl.sync_config import read_client_settings  # noqa: PLC0415

    settings = read_client_settings(machine.config_file)
    if not settings.sync:
        raise UsageError("no clients to sync: enable one with `mcpctl clients enable NAME` "
                         "(see `mcpctl clients` for the names)")
    user_servers(machine.config_file)  # a broken config.toml stops everything up front
    reports = []
    for client in (c for c in CLIENTS if c.id in settings.sync):
        try:
            reports.append(export_to_client(machine, client, (), replace=replace,
                                            dry_run=check or dry_run, command=command,
                                            prune=True))
        except McpctlError as error:
            reports.append(ExportReport(client, machine.client_path(client), error=error))
    return reports


@dataclass(frozen=True)
class ImportResult:
    name: str
    status: str  # added | unchanged | replaced | refused | skipped
    reason: str = ""
    server: ClientServer | None = None
    secrets: tuple[str, ...] = ()


@dataclass
class ImportReport:
    client: ClientFormat
    files: list[Path]
    config_file: Path
    results: list[ImportResult] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def import_from_client(machine: Machine, client: ClientFormat, names: Sequence[str], *,
                       replace: bool, file: Path | None = None) -> ImportReport:
    """Copy the client's own servers into the user tier the way `add` does: names
    checked, secret-looking values moved to the keyring, idempotent, conflicts refused
    unless `replace`. Entries mcpctl cannot express are refused with the reason."""
    from mcpctl.client_tier import load_client  # noqa: PLC0415

    path = machine.client_path(client, file)
    if not path.exists() and not path.is_symlink():
        raise UsageError(f"no {client.title} config at {path} (nothing to import)")
    load = load_client(client, machine.root, machine.os_key, machine.environ, machine.home,
                       override=file, workspace=False)
    report = ImportReport(client, [f.path for f in load.files if f.exists],
                          machine.config_file, problems=list(load.problems))
    winners: dict[str, ClientServer] = {}
    for server in sorted(load.servers, key=lambda s: s.definition.source.precedence):
        winners.setdefault(server.name, server)
    missing = [name for name in names if name not in winners]
    if missing:
        defined = ", ".join(sorted(winners)) or "none"
        raise UsageError(f"{client.title} defines no server named {missing[0]!r} in {path} "
                         f"(it defines: {defined})")
    existing = user_servers(machine.config_file)
    for name in names or sorted(winners):
        report.results.append(_import_one(machine, winners[name], existing, replace=replace))
    return report


def _import_one(machine: Machine, server: ClientServer, existing: Mapping[str, ServerSpec],
                *, replace: bool) -> ImportResult:
    from mcpctl.entries import entry_from_spec, spec_from_entry  # noqa: PLC0415
    from mcpctl.secret_extraction import extract_secrets  # noqa: PLC0415
    from mcpctl.server_entry import check_name  # noqa: PLC0415
    from mcpctl.user_config_edit import add_server  # noqa: PLC0415

    name = server.name
    if server.managed:
        return ImportResult(name, "skipped", "it already launches through mcpctl "
                            "(an entry mcpctl exported)", server)
    try:
        check_name(name)
    except UsageError as error:
        return ImportResult(name, "refused", str(error), server)
    if server.unsupported:
        return ImportResult(name, "refused", "; ".join(server.unsupported), server)
    entry, secrets = extract_secrets(name, entry_from_spec(server.spec))
    current = existing.get(name)
    if current is not None:
        if entry_from_spec(current) == entry_from_spec(spec_from_entry(name, entry)):
            return ImportResult(name, "unchanged", "the user tier already defines it like "
                                "this", server)
        if not replace:
            return ImportResult(name, "refused", "the user tier defines it differently; "
                                "--replace overwrites it", server)
    if secrets:
        from mcpctl.keyring_store import set_secret  # noqa: PLC0415

        for secret, value in secrets.items():
            set_secret(machine.paths.secrets_index, secret, value)
    result = add_server(machine.config_file, name, entry, replace=replace)
    return ImportResult(name, result.status, "", server, tuple(secrets))
