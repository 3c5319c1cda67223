"""One server of a registry by name and version, or an error that says what exists."""

from mcpctl.errors import UsageError
from mcpctl.registry.api import Entry, NotFound, Registry


def fetch_server(client: Registry, name: str, version: str | None) -> Entry:
    """The registry's entry for name@version (None: the latest); a UsageError naming
    the versions it has, or how to find the name, when there is none."""
    try:
        return client.server(name, version)
    except NotFound:
        pass
    try:
        versions = client.versions(name)
    except NotFound:
        versions = []
    if not versions:
        raise UsageError(f"{client.base_url} has no server named {name!r}; find its name "
                         f"with: mcpctl search {name.rsplit('/', 1)[-1]}")
    shown = ", ".join(versions[:10]) + (", …" if len(versions) > 10 else "")
    raise UsageError(f"{name} has no version {version!r} in {client.base_url} (it has: "
                     f"{shown}); give one of them, or leave @VERSION out for the latest")
