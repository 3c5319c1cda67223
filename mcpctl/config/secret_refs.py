"""Which servers reference which secrets (pure)."""

from __future__ import annotations

from collections.abc import Iterable

from mcpctl.config.merge import MergedServer
from mcpctl.variables import Kind, references_in


def secret_references(servers: Iterable[MergedServer]) -> dict[str, list[str]]:
    """Secret name → names of the servers (any definition of them) that reference it."""
    found: dict[str, list[str]] = {}
    for server in servers:
        for definition in server.definitions:
            secrets = (r.name for r in references_in(definition.spec) if r.kind is Kind.SECRET)
            for secret in secrets:
                users = found.setdefault(secret, [])
                if server.name not in users:
                    users.append(server.name)
    return found
