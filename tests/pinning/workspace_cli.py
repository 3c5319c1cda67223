"""mcpctl as the pinning tests run it on a workspace: the command, and a server's row
of `list --json`.

From beside the workspace: `python -m mcpctl` started inside it would import the
repo's own modules (a `json.py` there), where an installed `mcpctl` script does not
search the current folder. Tests whose subject is the current folder pass their own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import Result, run_mcpctl


def mcpctl(root: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    return run_mcpctl([*args, "--workspace", str(root)], cwd=root.parent, env=env)


def listed(root: Path, name: str | None = None,
           env: dict[str, str] | None = None) -> dict[str, Any]:
    """The server's row (`name`, or the only one)."""
    rows: list[dict[str, Any]] = json.loads(mcpctl(root, "list", "--json", env=env).out)[
        "servers"]
    return rows[0] if name is None else next(row for row in rows if row["name"] == name)


def state(root: Path, name: str | None = None,
          env: dict[str, str] | None = None) -> tuple[str, str]:
    row = listed(root, name, env)
    return row["state"], row["note"]
