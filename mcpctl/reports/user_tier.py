"""What `add` and `remove` report: one edit of the user tier, as a `Report`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpctl.errors import UsageError
from mcpctl.machine import Machine
from mcpctl.reports.report import Report

if TYPE_CHECKING:
    from mcpctl.credentials.rotation import SecretAction


@dataclass(frozen=True)
class Edited:
    name: str
    status: str  # added | replaced | unchanged | removed | absent
    config_file: Path


def add_report(machine: Machine, name: str, entry: dict[str, Any], secrets: dict[str, str],
               *, replace: bool) -> Report[Edited]:
    """Write `entry` as `name`; `secrets` (name → value) go to the keyring first, and
    only when config.toml is about to change (under its lock), so a refused add stores
    none and config never names a missing one. For an unchanged entry a missing secret is
    stored and a different one replaced only with `replace`."""
    from mcpctl.config.user_config_edit import add_server  # noqa: PLC0415 - tomlkit behind it

    index = machine.paths.secrets_index
    done: list[SecretAction] = []
    result = add_server(machine.config_file, name, entry, replace=replace,
                        before_write=(lambda: done.extend(_store(index, secrets, replace=True)))
                        if secrets else None)
    if result.status == "unchanged" and secrets:
        done = _store(index, secrets, replace=replace)
    warnings = [*_secret_lines(done), *_argv_lines(name, entry)]
    body = {"name": name, "status": result.status, "path": str(machine.config_file),
            "entry": entry if result.status != "unchanged" else result.previous,
            "secrets": [{"name": a.name, "action": a.action} for a in done]}
    return Report("add", body, Edited(name, result.status, machine.config_file),
                  warnings=warnings)


def remove_report(machine: Machine, name: str, *, missing_ok: bool, keep_secrets: bool,
                  shown: Callable[[Path], str]) -> Report[Edited]:
    """Remove `name` from the user tier, and the secrets only it referenced (unless
    `keep_secrets`); a workspace-only name is a usage error that says who owns it."""
    from mcpctl.config.user_config_edit import remove_server  # noqa: PLC0415
    from mcpctl.config.view import reading_from  # noqa: PLC0415
    from mcpctl.config.workspace import load_workspace  # noqa: PLC0415

    result = remove_server(machine.config_file, name)
    if result.status == "absent":
        in_workspace = [d for d in load_workspace(machine.root, reading_from(machine)).definitions
                        if d.name == name]
        if in_workspace:
            where = in_workspace[0].source
            raise UsageError(
                f"server {name!r} is defined by the workspace ({shown(where.path)}"
                f":{where.line}), not the user tier; the repo owns that file and mcpctl never "
                f"edits it; to withdraw an approval use: mcpctl revoke {name}"
            )
        if not missing_ok:
            raise UsageError(f"no server named {name!r} in the user tier "
                             f"({shown(machine.config_file)}){_did_you_mean(machine, name)}")
    secrets = _forget_secrets(machine, name, result.previous, keep=keep_secrets, shown=shown)
    body = {"name": name, "status": result.status, "path": str(machine.config_file),
            "secrets": [{"name": a.name, "action": a.action} for a in secrets]}
    return Report("remove", body, Edited(name, result.status, machine.config_file),
                  warnings=_secret_lines(secrets))


def _did_you_mean(machine: Machine, name: str) -> str:
    """` (did you mean 'github'?)` for the user-tier name closest to a mistyped one."""
    from mcpctl.config.merge import closest  # noqa: PLC0415
    from mcpctl.config.user_config import load_user_tier  # noqa: PLC0415

    suggestion = closest(name, [d.name for d in load_user_tier(machine.config_file).definitions])
    return f" (did you mean {suggestion!r}?)" if suggestion is not None else ""


def _store(index: Path, found: dict[str, str], *, replace: bool) -> list[SecretAction]:
    """Store the entry's secrets; a different value already in the keyring is replaced
    only with `replace` (else nothing is stored). A rerun onboarding script stores a
    missing one and leaves an equal one alone."""
    from mcpctl.credentials.rotation import plan_storage, store  # noqa: PLC0415

    actions = plan_storage(found, replace=replace)
    store(index, found, actions)
    return actions


def _forget_secrets(machine: Machine, name: str, previous: dict[str, Any] | None, *,
                    keep: bool, shown: Callable[[Path], str]) -> list[SecretAction]:
    """The secrets only the removed server referenced, removed (or kept with `keep`);
    one still referenced by another server here is kept and named."""
    from mcpctl.config.entries import EntryError, spec_from_entry  # noqa: PLC0415
    from mcpctl.config.secret_refs import secret_references  # noqa: PLC0415
    from mcpctl.config.view import view_here  # noqa: PLC0415
    from mcpctl.credentials.rotation import SecretAction, forget  # noqa: PLC0415
    from mcpctl.errors import KeyringUnavailable, McpctlError  # noqa: PLC0415
    from mcpctl.variables import Kind, references_in  # noqa: PLC0415

    if previous is None:
        return []
    try:
        spec = spec_from_entry(name, previous)
    except EntryError:
        return []
    referenced = [r.name for r in references_in(spec) if r.kind is Kind.SECRET]
    if keep or not referenced:
        return [SecretAction(secret, "kept", "--keep-secrets") for secret in referenced]
    # Read as `list` reads from here: a subfolder's server keeps its secrets (issue 22).
    still_used = secret_references(view_here(machine).servers)
    try:
        return forget(machine.paths.secrets_index, referenced, still_used)
    except McpctlError as error:
        raise KeyringUnavailable(
            f"removed {name} from {shown(machine.config_file)}, but its secrets "
            f"({', '.join(referenced)}) could not be removed from the keyring: {error}") from None


_SAID = {
    "stored": "stored a secret-looking value in the OS keyring as {name!r}; config.toml "
              "references it as ${{secret:{name}}}",
    "replaced": "replaced secret {name!r} in the OS keyring with the value given",
    "removed": "removed secret {name!r} from the OS keyring",
    "kept": "kept secret {name!r} in the OS keyring ({why})",
}


def _secret_lines(actions: list[SecretAction]) -> list[str]:
    return [_SAID[a.action].format(name=a.name, why=a.why) for a in actions if a.action in _SAID]


def _argv_lines(name: str, entry: dict[str, Any]) -> list[str]:
    """A secret expanded into argv is visible to every local user (`ps`); env is not."""
    from mcpctl.credentials.argv import argv_warning, secrets_in_argv  # noqa: PLC0415

    return [argv_warning(name, secret) for secret in secrets_in_argv(entry)]
