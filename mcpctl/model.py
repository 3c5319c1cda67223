"""The data every other module speaks: a server definition and where it came from.

Values are NamedTuples rather than dataclasses: every command builds these classes at
start-up, and a frozen dataclass costs about five times as much to create (and imports
`inspect`), which the hot paths cannot afford (issue 15, DESIGN §1.6).

A module that defines NamedTuples does not use `from __future__ import annotations`:
typing compiles every annotation it is given as a string (a `ForwardRef` per field, 214
of them on `list`'s path), and real annotations cost it nothing. A name that is not
defined yet where an annotation is evaluated (the class itself, one imported only for
type checking) is written as a string there.
"""

from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any, NamedTuple

PinnedFile = tuple[str, str]  # (path relative to the workspace root, content digest)
# The default of a mapping field: one shared empty dict, never written to (fields are
# typed Mapping) and still a dict to whatever serialises it.
NO_ENTRIES: Mapping[str, Any] = {}


class Tier(StrEnum):
    USER = "user"
    WORKSPACE = "workspace"
    CLIENT = "client"


class Transport(StrEnum):
    STDIO = "stdio"
    HTTP = "http"
    SSE = "sse"


class ServerSpec(NamedTuple):
    """What a server is: how to start or reach it, exactly as written (unexpanded)."""

    name: str
    transport: Transport
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = NO_ENTRIES
    cwd: str | None = None
    env_file: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = NO_ENTRIES
    timeout: float | None = None
    # Fields mcpctl does not interpret; kept and shown, never dropped.
    extra: Mapping[str, Any] = NO_ENTRIES

    @property
    def is_remote(self) -> bool:
        return self.url is not None

    def argv(self) -> list[str]:
        """The command line as written, for display and launch."""
        return [self.command or "", *self.args]


class Source(NamedTuple):
    """Provenance: the tier, the file and the line of the server's name in that file.

    `precedence` orders sources for the merge: lower wins (user tier 0, then the
    workspace formats in table order).
    """

    tier: Tier
    path: Path
    line: int
    precedence: int
    format_id: str = ""
    # The farther files (path, line) whose keys a layered entry takes too (Codex's
    # project layers, nearest first after `path`); empty for one file's entry.
    layers: tuple[tuple[Path, int], ...] = ()

    def location(self) -> str:
        return f"{self.path}:{self.line}"


class Definition(NamedTuple):
    """One server entry in one file."""

    spec: ServerSpec
    source: Source

    @property
    def name(self) -> str:
        return self.spec.name


class Problem(NamedTuple):
    """Something wrong in a config file, located as precisely as known."""

    path: Path
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.message}"
