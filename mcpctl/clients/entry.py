"""One client entry in mcpctl's terms (pure; DESIGN §11).

The client's field names are translated by its table row (`clients.py`) and its
translations (`client_translations.py`); whatever mcpctl cannot express (a tool
filter, a value the client passes literally that mcpctl would expand, an `${input:}`)
is listed as `unsupported`, so import can refuse it with the reason instead of
mangling it. Variables are checked first (`client_variables.py`), before the
translations write mcpctl's own `${env:...}` references.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcpctl.clients.table import ClientFormat
from mcpctl.clients.translations import TRANSLATIONS
from mcpctl.clients.variables import check_variables
from mcpctl.config.entries import KNOWN_FIELDS


@dataclass(frozen=True)
class Converted:
    entry: dict[str, Any]  # mcpctl's field names; unknown fields kept for display
    notes: tuple[str, ...] = ()
    unsupported: tuple[str, ...] = ()


def convert_entry(client: ClientFormat, raw: Mapping[str, Any]) -> Converted:
    """One entry in the client's terms → an entry in mcpctl's."""
    entry = dict(raw)
    notes: list[str] = []
    unsupported: list[str] = []
    _rename_aliases(client, entry, unsupported)
    # Before the translations, which write mcpctl's own `${env:...}` references.
    check_variables(client, entry, notes, unsupported)
    for name in client.translations:
        TRANSLATIONS[name](entry, notes, unsupported)
    _drop_unknown_fields(client, entry, notes, unsupported)
    return Converted(entry, tuple(notes), tuple(unsupported))


def _rename_aliases(client: ClientFormat, entry: dict[str, Any],
                    unsupported: list[str]) -> None:
    for written, canonical in client.aliases.items():
        if written not in entry:
            continue
        if canonical in entry:
            unsupported.append(f"both {written!r} and {canonical!r}")
            del entry[written]
        else:
            entry[canonical] = entry.pop(written)


def _drop_unknown_fields(client: ClientFormat, entry: dict[str, Any], notes: list[str],
                         unsupported: list[str]) -> None:
    for key in sorted(set(entry) - KNOWN_FIELDS):
        if key in client.inert:
            notes.append(f"dropped {client.title}'s {key!r} (it does not change what runs)")
            del entry[key]
        elif key in client.defaults and entry[key] == client.defaults[key]:
            del entry[key]
        elif key in client.defaults:
            unsupported.append(f"{key} = {entry[key]!r} in {client.title}, which mcpctl "
                               "cannot express")
        else:
            unsupported.append(f"uses {client.title}'s {key!r}, which mcpctl cannot express")
