"""The data every other module speaks: a server definition and where it came from."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

PinnedFile = tuple[str, str]  # (path relative to the workspace root, content digest)


class Tier(StrEnum):
    USER = "user"
    WORKSPACE = "workspace"
    CLIENT = "client"


class Transport(StrEnum):
    STDIO = "stdio"
    HTTP = "http"
    SSE = "sse"


@dataclass(frozen=True)
class ServerSpec:
    """What a server is: how to start or reach it, exactly as written (unexpanded)."""

    name: str
    transport: Transport
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    env_file: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout: float | None = None
    # Fields mcpctl does not interpret; kept and shown, never dropped.
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def is_remote(self) -> bool:
        return self.url is not None

    def argv(self) -> list[str]:
        """The command line as written, for display and launch."""
        return [self.command or "", *self.args]


@dataclass(frozen=True)
class Source:
    """Provenance: the tier, the file and the line of the server's name in that file.

    `precedence` orders sources for the merge: lower wins (user tier 0, then the
    workspace formats in table order).
    """

    tier: Tier
    path: Path
    line: int
    precedence: int
    format_id: str = ""

    def location(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class Definition:
    """One server entry in one file."""

    spec: ServerSpec
    source: Source

    @property
    def name(self) -> str:
        return self.spec.name


@dataclass(frozen=True)
class Problem:
    """Something wrong in a config file, located as precisely as known."""

    path: Path
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.message}"
