"""What `secret set`, `secret rm`, `secret list` and `secret check` report (names, never
values)."""

from __future__ import annotations

from dataclasses import dataclass

from mcpctl.config.merge import MergedServer
from mcpctl.config.secret_refs import secret_references
from mcpctl.config.view import view_here
from mcpctl.errors import ExitCode, UsageError
from mcpctl.machine import Machine
from mcpctl.reports.report import Report, problems_exit


@dataclass(frozen=True)
class SecretNames:
    names: list[str]
    stored: set[str]
    references: dict[str, list[str]]


def set_report(machine: Machine, name: str, value: str) -> Report[str]:
    from mcpctl.credentials.keyring_store import set_secret  # noqa: PLC0415

    set_secret(machine.paths.secrets_index, name, value)
    return Report("secret-set", {"name": name, "stored": True}, name)


def rm_report(machine: Machine, name: str) -> Report[str]:
    """Delete `name`; a server that still references it is a warning, not an error."""
    from mcpctl.credentials.keyring_store import delete_secret  # noqa: PLC0415

    if not delete_secret(machine.paths.secrets_index, name):
        raise UsageError(f"no secret named {name!r} in the keyring")
    view = view_here(machine)
    users = secret_references(view.servers).get(name, [])
    warnings = [f"warning: still referenced by {', '.join(users)}; those servers will not "
                f"start until it is set again (mcpctl secret set {name})"] if users else []
    return Report("secret-rm", {"name": name, "removed": True, "referenced_by": users}, name,
                  warnings=warnings)


def list_report(machine: Machine) -> Report[SecretNames]:
    """Every secret the index names or a server references, and who references it."""
    from mcpctl.credentials.keyring_store import indexed_names  # noqa: PLC0415

    stored = set(indexed_names(machine.paths.secrets_index))
    view = view_here(machine)
    references = secret_references(view.servers)
    # A server of the user's for one other project (`workspace = …`) still uses its
    # secrets: not "unreferenced" because this folder is not that project (issue 26).
    for secret, users in secret_references(_other_projects(machine)).items():
        mine = references.setdefault(secret, [])
        mine += [user for user in users if user not in mine]
    names = sorted(stored | set(references))
    entries = [{"name": n, "stored": n in stored, "referenced_by": references.get(n, []),
                "unreferenced": n in stored and not references.get(n)} for n in names]
    # A broken config.toml hides references: every secret would look unused (an
    # invitation to `secret rm`), so the problems decide the exit code.
    return Report("secret-list", {"secrets": entries}, SecretNames(names, stored, references),
                  problems_exit(ExitCode.OK, view.problems), problems=view.problems)


def check_report() -> Report[dict[str, str | None]]:
    """Whether a secret could be stored and read here now; exit 5 when not (issue 26)."""
    from mcpctl.credentials.keyring_store import check_keyring  # noqa: PLC0415

    checked = check_keyring()
    body = {"backend": checked.backend, "state": checked.state, "message": checked.message}
    ok = checked.state == "ok"
    return Report("secret-check", body, body,
                  ExitCode.OK if ok else ExitCode.KEYRING_UNAVAILABLE,
                  errors=[] if ok else [f"keyring {checked.state}: {checked.message}"])


def _other_projects(machine: Machine) -> list[MergedServer]:
    """The user tier's servers for one project each, whichever folder this is."""
    from mcpctl.config.merge import merge  # noqa: PLC0415
    from mcpctl.config.user_config import load_user_tier, workspace_of  # noqa: PLC0415

    return merge([d for d in load_user_tier(machine.config_file).definitions
                  if workspace_of(d.spec) is not None])
