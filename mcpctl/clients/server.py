"""A server as one client defines it, in mcpctl's terms (pure; DESIGN §11).

Each client entry becomes a Definition with `Source(tier=Tier.CLIENT, ...)`. mcpctl
never starts a client-tier server; exported entries run `mcpctl run NAME`, which
resolves the user tier.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpctl.clients.entry import convert_entry
from mcpctl.clients.guard_key import hidden, key_in
from mcpctl.clients.table import ClientFormat, is_managed, is_mcpctl_command
from mcpctl.clients.variables import reference_problems
from mcpctl.config.entries import EntryError, spec_from_entry
from mcpctl.model import Definition, Problem, ServerSpec, Source, Tier

# Scopes in the order a client prefers them (Claude Code: local > project > user).
SCOPE_ORDER = ("local", "project", "user", "profile")


@dataclass(frozen=True)
class ClientServer:
    client: str
    scope: str  # user | local | project | "profile <id>"
    definition: Definition
    managed: bool  # `mcpctl run NAME`: an entry mcpctl exported
    unsupported: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    switched_off: bool = False  # the client's own off switch (Codex enabled = false...)

    @property
    def name(self) -> str:
        return self.definition.name

    @property
    def spec(self) -> ServerSpec:
        return self.definition.spec


def servers_from_data(
    client: ClientFormat, servers: Mapping[str, Any], *, scope: str, path: Path,
    lines: Mapping[str, tuple[int, int]], tier: Tier = Tier.CLIENT,
) -> tuple[list[ClientServer], list[Problem]]:
    """The servers of one parsed servers table, and the entries that are not servers."""
    found: list[ClientServer] = []
    problems: list[Problem] = []
    precedence = SCOPE_ORDER.index(scope.split(" ", maxsplit=1)[0])
    for name, raw in servers.items():
        line, column = lines.get(name, (1, 1))
        server = _server(client, name, raw, scope, Source(tier, path, line, precedence,
                                                          client.id), column)
        if isinstance(server, Problem):
            problems.append(server)
        else:
            found.append(server)
    return found, problems


def _server(client: ClientFormat, name: str, raw: Any, scope: str, source: Source,
            column: int) -> ClientServer | Problem:
    if not isinstance(raw, Mapping):
        return Problem(source.path, source.line, column,
                       f"server {name!r}: entry must be an object")
    converted = convert_entry(client, raw)
    try:
        spec = spec_from_entry(name, converted.entry)
    except EntryError as error:
        return Problem(source.path, source.line, column, str(error))
    if is_mcpctl_command(spec.command) and key_in(spec.args) is not None:
        # The machine's guard key is never shown, whatever shows this entry (issue 22).
        spec = spec._replace(args=tuple(hidden(spec.args)))
    unsupported = (*converted.unsupported, *reference_problems(client, spec))
    off = client.off_switch is not None and \
        raw.get(client.off_switch[0]) == client.off_switch[1]
    return ClientServer(client.id, scope, Definition(spec, source),
                        is_managed(client, name, raw), unsupported, converted.notes, off)
