"""This machine and invocation, as the client-tier edges see it (DESIGN §11).

Built once at the edge (`Machine.current`) and passed down, so what reads clients'
files takes the environment, the home folder and the OS as values (STYLE 8).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from mcpctl.clients.table import ClientFormat, client_file, os_name
from mcpctl.paths import Paths


@dataclass(frozen=True)
class Machine:
    """What the client-tier edges need to know about this machine and invocation."""

    paths: Paths
    config_file: Path
    root: Path
    environ: Mapping[str, str]
    home: Path
    os_key: str

    @classmethod
    def current(cls, paths: Paths, config_file: Path, root: Path) -> Machine:
        return cls(paths, config_file, root, dict(os.environ), Path.home(),
                   os_name(sys.platform))

    def client_path(self, client: ClientFormat, override: Path | None = None) -> Path:
        return override.absolute() if override else client_file(client, self.os_key,
                                                                self.environ, self.home)
