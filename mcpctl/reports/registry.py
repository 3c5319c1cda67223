"""What `search`, `outdated` and `upgrade` report (issue 28), as `Report`s."""

from typing import TYPE_CHECKING, Any, NamedTuple

from mcpctl.errors import ExitCode, McpctlError, UsageError
from mcpctl.machine import Machine
from mcpctl.reports.report import Report

if TYPE_CHECKING:
    from mcpctl.config.origin import Origin
    from mcpctl.registry.api import Entry, Registry
    from mcpctl.registry.document import Package, Remote, ServerDocument


class Found(NamedTuple):
    name: str
    version: str
    needs: str
    description: str


class Listed(NamedTuple):
    registry: str
    servers: list[Found]


def registry_for(machine: Machine, given: str | None) -> "Registry":
    from mcpctl.registry.api import Registry  # noqa: PLC0415
    from mcpctl.registry.settings import registry_url  # noqa: PLC0415

    return Registry(registry_url(machine.config_file, given), machine.paths.cache_dir)


def search_report(machine: Machine, text: str, limit: int,
                  registry: str | None) -> Report[Listed]:
    client = registry_for(machine, registry)
    page = client.search(text, limit)
    servers = [_found_document(e) for e in page.entries]
    body = {"registry": client.base_url, "query": text, "servers": servers,
            "skipped": len(page.skipped)}
    warnings = [f"warning: left out {len(page.skipped)} malformed registry entr"
                f"{'y' if len(page.skipped) == 1 else 'ies'}: {page.skipped[0]}"] \
        if page.skipped else []
    listed = Listed(client.base_url, [Found(s["name"], s["version"], _needs_text(s["needs"]),
                                            s["description"]) for s in servers])
    return Report("search", body, listed, warnings=warnings)


def _found_document(entry: "Entry") -> dict[str, Any]:
    server = entry.server
    return {"name": server.name, "version": server.version, "title": server.title,
            "description": server.description, "status": entry.status or None,
            "packages": [{"type": p.registry_type, "identifier": p.identifier,
                          "version": p.version, "transport": p.transport}
                         for p in server.packages],
            "remotes": [{"type": r.transport, "url": r.url} for r in server.remotes],
            "needs": needs_of(server)}


def needs_of(server: "ServerDocument") -> dict[str, Any]:
    """What adding it takes: how it runs, its secrets and required values (by key)."""
    from mcpctl.registry.inputs import questions  # noqa: PLC0415

    secrets: list[str] = []
    required: list[str] = []
    choices: list[Package | Remote] = [*server.packages, *server.remotes]
    for choice in choices:
        try:
            asked = questions(choice)
        except UsageError:
            continue
        secrets += [q.key for q in asked if q.input.is_secret and q.key not in secrets]
        required += [q.key for q in asked if q.input.is_required and not q.input.is_secret
                     and q.key not in required]
    kinds = list(dict.fromkeys([p.registry_type for p in server.packages]
                               + ["remote" for _ in server.remotes[:1]]))
    return {"kinds": kinds, "secrets": secrets, "required": required}


def _needs_text(needs: dict[str, Any]) -> str:
    parts = ["/".join(needs["kinds"]) or "nothing to run"]
    if needs["secrets"]:
        parts.append(f"{len(needs['secrets'])} secret{'s' if len(needs['secrets']) > 1 else ''}")
    if needs["required"]:
        parts.append(f"{len(needs['required'])} required")
    return ", ".join(parts)


class Row(NamedTuple):
    name: str
    server: str
    current: str
    latest: str | None
    status: str  # current | outdated | unknown


def outdated_report(machine: Machine, registry: str | None) -> Report[list[Row]]:
    """Each user-tier server `add --from-registry` made, against its registry's latest."""
    rows: list[Row] = []
    errors: list[str] = []
    for name, origin in _registry_entries(machine):
        try:
            latest = _latest(machine, origin, registry).server.version
        except McpctlError as error:
            rows.append(Row(name, origin.name, origin.version, None, "unknown"))
            errors.append(f"{name}: {error}")
            continue
        rows.append(Row(name, origin.name, origin.version, latest,
                        "current" if latest == origin.version else "outdated"))
    body = {"servers": [r._asdict() for r in rows]}
    return Report("outdated", body, rows, ExitCode.REGISTRY_FAILED if errors else ExitCode.OK,
                  errors=errors)


def _registry_entries(machine: Machine) -> "list[tuple[str, Origin]]":
    from mcpctl.config.origin import origin_of  # noqa: PLC0415
    from mcpctl.config.user_config import load_user_tier  # noqa: PLC0415

    load = load_user_tier(machine.config_file)
    found = []
    for definition in load.definitions:
        origin = origin_of(definition.spec)
        if origin is not None:
            found.append((definition.spec.name, origin))
    return found


def _latest(machine: Machine, origin: "Origin", registry: str | None,
            version: str | None = None) -> "Entry":
    """The registry's entry for the origin's server: the registry it came from (a file's
    origin: the configured one), unless `registry` says otherwise."""
    from mcpctl.registry.lookup import fetch_server  # noqa: PLC0415

    chosen = registry or origin.registry
    return fetch_server(registry_for(machine, chosen), origin.name, version)


class Upgraded(NamedTuple):
    name: str
    status: str  # upgraded | current
    old: str
    new: str
    changes: list[str]


def upgrade_report(machine: Machine, name: str, registry: str | None,
                   version: str | None) -> Report[Upgraded]:
    """Move NAME's pinned version to the registry's latest (or `version`)."""
    from mcpctl.config.origin import origin_of  # noqa: PLC0415
    from mcpctl.config.user_config_edit import add_server, config_text, parse_config  # noqa: PLC0415
    from mcpctl.registry.upgrade import upgraded  # noqa: PLC0415

    servers = parse_config(machine.config_file, config_text(machine.config_file)).get(
        "servers", {})
    entry = servers.get(name) if isinstance(servers, dict) else None
    if not isinstance(entry, dict):
        raise UsageError(f"no server named {name!r} in the user tier "
                         f"({machine.config_file}); see: mcpctl list")
    origin = _origin_of_entry(name, entry, origin_of)
    target = _latest(machine, origin, registry, version).server
    change = upgraded(name, entry, origin, target)
    status = "upgraded" if change.changes else "current"
    if change.changes:
        add_server(machine.config_file, name, change.entry, replace=True)
    body = {"name": name, "server": origin.name, "from": origin.version,
            "to": target.version, "status": status, "changes": change.changes,
            "path": str(machine.config_file)}
    return Report("upgrade", body, Upgraded(name, status, origin.version, target.version,
                                            change.changes), warnings=change.notes)


def _origin_of_entry(name: str, entry: dict[str, Any], origin_of: Any) -> "Origin":
    from mcpctl.config.entries import EntryError, spec_from_entry  # noqa: PLC0415

    try:
        origin: Origin | None = origin_of(spec_from_entry(name, entry))
    except EntryError as error:
        raise UsageError(str(error)) from None
    if origin is None:
        raise UsageError(f"{name} was not added from a registry (it has no origin); add it "
                         f"with: mcpctl add {name} --from-registry SERVER --replace")
    return origin
