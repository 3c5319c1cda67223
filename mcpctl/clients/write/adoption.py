"""Is a client's own entry the server the user tier already holds? (DESIGN §11)

After `mcpctl import`, the client's entry still says what it said; the user tier now
holds the same server with its secrets moved to the keyring. `export` and `sync` take
such an entry over (`adopted`) without `--replace`: it is converted exactly as import
converts it, its secrets are extracted exactly as import extracts them, and it is the
same server only when the result equals the user tier's definition and every extracted
value equals what the keyring holds under that name. Anything else is a real
difference, left to the user (a conflict).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mcpctl.clients.entry import convert_entry
from mcpctl.clients.table import ClientFormat
from mcpctl.clients.variables import reference_problems
from mcpctl.config.entries import EntryError, entry_from_spec, spec_from_entry
from mcpctl.config.user_config import WORKSPACE_KEY
from mcpctl.credentials.extraction import extract_secrets
from mcpctl.model import ServerSpec

SecretLookup = Callable[[str], str | None]


def holds_the_same_server(client: ClientFormat, name: str, raw: Any, spec: ServerSpec,
                          secret_of: SecretLookup) -> bool:
    """True when importing `raw` would give exactly `spec`, secrets included."""
    if not isinstance(raw, Mapping):
        return False
    converted = convert_entry(client, raw)
    if converted.unsupported:
        return False
    try:
        client_spec = spec_from_entry(name, converted.entry)
    except EntryError:
        return False
    if reference_problems(client, client_spec):
        return False
    entry, secrets = extract_secrets(name, entry_from_spec(client_spec))
    try:
        imported = spec_from_entry(name, entry)
    except EntryError:
        return False
    # A local-scope server's `workspace` is where the entry sits (its project's section),
    # never in the entry itself: imported, it is added; compared, it is left out (issue 26).
    wanted = entry_from_spec(spec)
    wanted.pop(WORKSPACE_KEY, None)
    if entry_from_spec(imported) != wanted:
        return False
    return all(secret_of(secret) == value for secret, value in secrets.items())
