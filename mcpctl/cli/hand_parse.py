"""The common lines of the hot commands (`run`, `list`, `show`) read without typer.

One reading for all of them, as click would read the same words; `None` whenever a
line needs typer's parser, help or errors (a repeated option, an unknown word, an
option without its value, a workspace that is not a readable folder).
"""

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple


class HandLine(NamedTuple):
    """What the words said: the one positional name, the flags given, the valued options."""

    name: str | None
    flags: frozenset[str]
    values: Mapping[str, str]

    def path(self, key: str) -> Path | None:
        return Path(self.values[key]) if key in self.values else None


def parse_common(args: Sequence[str], flags: Mapping[str, str], valued: Mapping[str, str],
                 *, takes_name: bool) -> HandLine | None:
    """`flags` and `valued` map each spelling to the option it is."""
    name: str | None = None
    found: dict[str, str] = {}
    seen: set[str] = set()
    items = iter(args)
    for arg in items:
        # `--workspace=PATH` as click reads it; `-w=PATH` would be the path "=PATH".
        option, equals, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if arg in flags and flags[arg] not in seen:
            seen.add(flags[arg])
        elif option in valued and valued[option] not in found:
            value = value if equals else next(items, "")
            if not value or value.startswith("-"):
                return None
            found[valued[option]] = value
        elif arg.startswith("-") or not arg or not takes_name or name is not None:
            return None
        else:
            name = arg
    line = HandLine(name, frozenset(seen), found)
    workspace = line.path("workspace")
    # typer's check of the option (a readable folder), or its error.
    if workspace is not None and not (workspace.is_dir() and os.access(workspace, os.R_OK)):
        return None
    return line

