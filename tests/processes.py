"""Stopping the helper processes tests start (daemons, HTTP servers)."""

from __future__ import annotations

import subprocess
from typing import Any


def stop(process: subprocess.Popen[Any], grace: float = 5) -> None:
    """SIGTERM, wait up to `grace`, then SIGKILL; close its stdout pipe."""
    process.terminate()
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stdout is not None:
        process.stdout.close()
