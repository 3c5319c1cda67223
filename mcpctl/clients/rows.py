"""What each client would start, and the names clients start differently (pure).

A client starts, per name, its most preferred definition that is on: one switched off,
in a VS Code profile, or a repo server Claude Code has not approved is shown with why
it does not start, and the definitions it would prefer over are `shadowed`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from mcpctl.clients.server import ClientServer
from mcpctl.model import ServerSpec

# Whether the client starts a repo server, by name (Claude Code's approvals).
ProjectState = Callable[[str], str]

_STARTS = ("starts", "via mcpctl", "approved by name", "via mcpctl's gate (guard)")


@dataclass(frozen=True)
class ClientRow:
    server: ClientServer
    state: str  # starts | via mcpctl | shadowed | needs approval | approved by name | ...
    shadowed_by: str | None = None  # the scope that wins over this one


@dataclass(frozen=True)
class Difference:
    """A name two or more clients would start differently."""

    name: str
    definitions: tuple[ClientServer, ...]


def client_rows(servers: list[ClientServer], user_specs: Mapping[str, ServerSpec],
                project_state: ProjectState | None = None,
                folder_state: str | None = None) -> list[ClientRow]:
    """One client's servers with what the client does with each. `project_state` says
    whether the client starts a repo server (Claude Code approvals); None: it does.
    `folder_state`: why the client starts nothing in this folder (Gemini CLI's folder
    trust); None: it starts what its files say."""
    by_name: dict[str, list[ClientServer]] = {}
    for server in sorted(servers, key=lambda s: s.definition.source.precedence):
        by_name.setdefault(server.name, []).append(server)
    return [row for name in sorted(by_name)
            for row in _rows_of(by_name[name], user_specs, project_state, folder_state)]


def _rows_of(servers: list[ClientServer], user_specs: Mapping[str, ServerSpec],
             project_state: ProjectState | None, folder_state: str | None) -> list[ClientRow]:
    """The rows of one name's definitions, most preferred first."""
    idle = [folder_state or _idle_state(server, project_state) for server in servers]
    winner = next((s for s, state in zip(servers, idle, strict=True) if state is None), None)
    rows = []
    for server, state in zip(servers, idle, strict=True):
        if server is winner:
            rows.append(ClientRow(server, _winner_state(server, user_specs, project_state)))
        elif state is not None:
            rows.append(ClientRow(server, state))
        else:  # a candidate that is not the winner: there is a winner
            rows.append(ClientRow(server, "shadowed", winner.scope if winner else None))
    return rows


def _idle_state(server: ClientServer, project_state: ProjectState | None) -> str | None:
    """Why the client does not start `server` whatever else it defines; None: it may."""
    if server.switched_off:
        return "switched off"
    if server.scope.startswith("profile"):
        return f"in {server.scope}"
    if server.scope == "project" and project_state is not None \
            and project_state(server.name) != "approved by name":
        return project_state(server.name)
    return None


def _winner_state(server: ClientServer, user_specs: Mapping[str, ServerSpec],
                  project_state: ProjectState | None) -> str:
    if _guarded(server):
        return "via mcpctl's gate (guard)"
    if server.managed:
        spec = user_specs.get(server.name)
        if spec is None:
            return "via mcpctl, not in the user tier"
        return "via mcpctl, remote in the user tier" if spec.is_remote else "via mcpctl"
    if server.scope == "project" and project_state is not None:
        return "approved by name"
    return "starts"


def _guarded(server: ClientServer) -> bool:
    """A local-scope entry the guard wrote: the repo's server, through the gate."""
    from mcpctl.clients.table import is_guard_run  # noqa: PLC0415

    return server.scope == "local" and is_guard_run(server.name, server.spec.command,
                                                    server.spec.args, server.spec.env)


def differences(rows_by_client: Mapping[str, list[ClientRow]],
                user_specs: Mapping[str, ServerSpec]) -> list[Difference]:
    """Names that clients would start with different definitions (a managed entry
    means the user tier's definition)."""
    import json  # noqa: PLC0415

    from mcpctl.config.entries import entry_from_spec  # noqa: PLC0415

    meanings: dict[str, dict[str, list[ClientServer]]] = {}
    for rows in rows_by_client.values():
        for row in rows:
            if row.state not in _STARTS:
                continue
            spec = user_specs[row.server.name] if row.server.managed else row.server.spec
            meaning = json.dumps(entry_from_spec(spec), sort_keys=True, default=str)
            meanings.setdefault(row.server.name, {}).setdefault(meaning, []).append(row.server)
    return [Difference(name, tuple(s for group in groups.values() for s in group))
            for name, groups in sorted(meanings.items()) if len(groups) > 1]
