"""What `add` and `remove` report: one edit of the user tier, as a `Report`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpctl.errors import UsageError
from mcpctl.machine import Machine
from mcpctl.reports.report import Report


@dataclass(frozen=True)
class Edited:
    name: str
    status: str  # added | replaced | unchanged | removed | absent
    config_file: Path


def add_report(machine: Machine, name: str, entry: dict[str, Any], secrets: dict[str, str],
               *, replace: bool) -> Report[Edited]:
    """Write `entry` as `name`; `secrets` (name → value) go to the keyring first, and
    only when config.toml is about to change (under its lock), so a refused add stores
    none and config never names a missing one."""
    from mcpctl.config.user_config_edit import add_server  # noqa: PLC0415 - tomlkit behind it

    index = machine.paths.secrets_index
    result = add_server(machine.config_file, name, entry, replace=replace,
                        before_write=(lambda: _store(index, secrets)) if secrets else None)
    warnings: list[str] = []
    stored = list(secrets) if result.status != "unchanged" else \
        _restore_missing(index, secrets, warnings)
    warnings += [f"stored a secret-looking value in the OS keyring as {secret!r}; "
                 f"config.toml references it as ${{secret:{secret}}}" for secret in stored]
    body = {"name": name, "status": result.status, "path": str(machine.config_file),
            "entry": entry if result.status != "unchanged" else result.previous}
    return Report("add", body, Edited(name, result.status, machine.config_file),
                  warnings=warnings)


def remove_report(machine: Machine, name: str, *, missing_ok: bool,
                  shown: Callable[[Path], str]) -> Report[Edited]:
    """Remove `name` from the user tier; a workspace-only name is a usage error that
    says who owns it."""
    from mcpctl.config.user_config_edit import remove_server  # noqa: PLC0415
    from mcpctl.config.workspace import load_workspace  # noqa: PLC0415

    result = remove_server(machine.config_file, name)
    if result.status == "absent":
        in_workspace = [d for d in load_workspace(machine.root).definitions if d.name == name]
        if in_workspace:
            where = in_workspace[0].source
            raise UsageError(
                f"server {name!r} is defined by the workspace ({shown(where.path)}"
                f":{where.line}), not the user tier; the repo owns that file and mcpctl never "
                f"edits it; to withdraw an approval use: mcpctl revoke {name}"
            )
        if not missing_ok:
            raise UsageError(f"no server named {name!r} in the user tier "
                             f"({shown(machine.config_file)})")
    body = {"name": name, "status": result.status, "path": str(machine.config_file)}
    return Report("remove", body, Edited(name, result.status, machine.config_file))


def _store(index: Path, found: dict[str, str]) -> None:
    from mcpctl.credentials.keyring_store import set_secret  # noqa: PLC0415

    for secret, value in found.items():
        set_secret(index, secret, value)


def _restore_missing(index: Path, found: dict[str, str], warnings: list[str]) -> list[str]:
    """For an unchanged definition: store a referenced secret only if the keyring lacks
    it (a rerun onboarding script restores it); never replace a different value."""
    from mcpctl.credentials.keyring_store import get_secret  # noqa: PLC0415

    missing = {}
    for secret, value in found.items():
        current = get_secret(secret)
        if current is None:
            missing[secret] = value
        elif current != value:
            warnings.append(f"kept the keyring's current value of {secret!r}, which differs "
                            f"from the one given; to replace it: mcpctl secret set {secret}")
    _store(index, missing)
    return list(missing)
