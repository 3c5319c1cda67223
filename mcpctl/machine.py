"""This machine and this invocation, as one value (STYLE 8; issue 10).

The CLI builds a `Machine` once (`Machine.current`) and passes it down, so what reads
files, expands variables or pins paths takes the environment, the home folder, the
current folder and the OS as values: "files are pinned with the environment the
launch will use" then holds because there is one environment, not because call sites
happen to read the same one.
"""

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from mcpctl.paths import Paths


def os_name(platform: str) -> str:
    """`sys.platform` → the OS key the client table's rows use."""
    if platform.startswith("win"):
        return "windows"
    if platform == "darwin":
        return "macos"
    return "linux"


class Machine(NamedTuple):
    """mcpctl's paths, the user config, the workspace root, environ, home, cwd and OS."""

    paths: Paths
    config_file: Path
    root: Path
    environ: Mapping[str, str]
    home: Path
    os_key: str
    cwd: Path
    # `-w` named the root: only its own files are read, not each client's from cwd.
    root_given: bool = False

    @classmethod
    def current(cls, paths: Paths, config_file: Path, root: Path, *,
                root_given: bool = False) -> "Machine":
        """The invocation as the process sees it; read here and nowhere else."""
        # A copy: a later os.environ change (a test's monkeypatch, a library) must not
        # make the launch see another environment than the one files were pinned with.
        return cls(paths, config_file, root, dict(os.environ), Path.home(),
                   os_name(sys.platform), Path.cwd(), root_given)
