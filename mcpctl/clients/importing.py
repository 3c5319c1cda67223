"""`import`: a client's own servers copied into the user tier (edge; DESIGN §11).

The same path into config.toml as `mcpctl add`: names checked, secret-looking values
moved to the keyring, idempotent, conflicts refused unless `replace`. An entry mcpctl
cannot express is refused with the reason, and conflicts are checked before anything
goes to the keyring. Only the client's own files are read, never a repo's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpctl.clients.load import load_client
from mcpctl.clients.server import ClientServer
from mcpctl.clients.table import ClientFormat, client_path
from mcpctl.clients.write.export import user_servers
from mcpctl.errors import UsageError
from mcpctl.model import Problem, ServerSpec

if TYPE_CHECKING:
    from mcpctl.machine import Machine


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
    """Copy the client's own servers (`names`, default all) into the user tier."""
    path = client_path(machine, client, file)
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
    from mcpctl.config.entries import entry_from_spec, spec_from_entry  # noqa: PLC0415
    from mcpctl.config.user_config_edit import add_server  # noqa: PLC0415
    from mcpctl.credentials.extraction import extract_secrets  # noqa: PLC0415

    refused = _refusal(server)
    if refused is not None:
        return refused
    name = server.name
    entry, secrets = extract_secrets(name, _user_entry(machine, server))
    current = existing.get(name)
    if current is not None:
        if entry_from_spec(current) == entry_from_spec(spec_from_entry(name, entry)):
            return ImportResult(name, "unchanged", "the user tier already defines it like "
                                "this", server)
        if not replace:
            return ImportResult(name, "refused", "the user tier defines it differently; "
                                "--replace overwrites it", server)
    if secrets:
        from mcpctl.credentials.keyring_store import set_secret  # noqa: PLC0415

        for secret, value in secrets.items():
            set_secret(machine.paths.secrets_index, secret, value)
    result = add_server(machine.config_file, name, entry, replace=replace)
    return ImportResult(name, result.status, "", server, tuple(secrets))


def _user_entry(machine: Machine, server: ClientServer) -> dict[str, Any]:
    """The user-tier entry: a local-scope server stays the user's own server for that
    one project (`workspace`), not one for every folder."""
    from mcpctl.config.entries import entry_from_spec  # noqa: PLC0415
    from mcpctl.config.user_config import WORKSPACE_KEY  # noqa: PLC0415

    entry = entry_from_spec(server.spec)
    if server.scope == "local":
        entry[WORKSPACE_KEY] = str(machine.root)
    return entry


def _refusal(server: ClientServer) -> ImportResult | None:
    """Why `server` is not imported whatever the user tier holds; None: it may be."""
    from mcpctl.config.server_entry import check_name  # noqa: PLC0415

    if server.managed:
        return ImportResult(server.name, "skipped", "it already launches through mcpctl "
                            "(an entry mcpctl exported)", server)
    if _runs_mcpctl(server.spec):
        # The guard's `mcpctl run --workspace ROOT NAME` entries, and any other launch
        # through mcpctl: imported, it would be a server that runs a server (issue 23).
        return ImportResult(server.name, "skipped", "it launches through mcpctl (`mcpctl "
                            "run …`): the server it starts is mcpctl's already", server)
    try:
        check_name(server.name)
    except UsageError as error:
        return ImportResult(server.name, "refused", str(error), server)
    if server.unsupported:
        return ImportResult(server.name, "refused", "; ".join(server.unsupported), server)
    relative = _relative_paths(server.spec) if server.scope in _PROJECT_SCOPES else []
    if relative:
        return ImportResult(server.name, "refused", f"its {server.scope}-scope entry uses a "
                            f"relative path ({', '.join(relative)}), which the client takes "
                            "from the project folder but `mcpctl run` would take from "
                            "wherever it starts; make it absolute first", server)
    return None


def _runs_mcpctl(spec: ServerSpec) -> bool:
    from mcpctl.clients.table import is_mcpctl_command  # noqa: PLC0415

    return is_mcpctl_command(spec.command) and spec.args[:1] == ("run",)


# Scopes tied to one project: the client runs their servers from the project folder.
_PROJECT_SCOPES = frozenset({"local", "project"})
_RELATIVE_PREFIXES = ("./", "../", ".\\", "..\\")


def _relative_paths(spec: ServerSpec) -> list[str]:
    """The fields of `spec` that name a path relative to the folder it starts in."""
    found = []
    if spec.command is not None and _is_relative(spec.command) and any(
            sep in spec.command for sep in "/\\"):
        found.append(f"command {spec.command!r}")  # a bare name is looked up on PATH
    found += [f"argument {arg!r}" for arg in spec.args  # an argument could be anything
              if (value := arg.partition("=")[2] if arg.startswith("-") else arg) in (".", "..")
              or value.startswith(_RELATIVE_PREFIXES)]
    found += [f"{label} {value!r}" for label, value in (("cwd", spec.cwd),
                                                        ("envFile", spec.env_file))
              if value is not None and _is_relative(value)]
    return found


def _is_relative(value: str) -> bool:
    if not value or value.startswith(("~", "$")):  # home and variables expand absolute
        return False
    return not (value.startswith(("/", "\\")) or value[1:3] in (":\\", ":/"))
