"""Shared timing helpers for the bench scripts: whole processes, medians, ratios."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MCPCTL = str(Path(sys.executable).with_name("mcpctl"))


def median_seconds(
    argv: Sequence[str], *, runs: int = 9, env: Mapping[str, str] | None = None,
    cwd: Path | None = None, stdin: str | None = None,
) -> float:
    """Median wall time of running `argv` to completion, after one warm-up run."""
    full_env = {**os.environ, **(env or {})}
    samples = []
    for attempt in range(runs + 1):
        start = time.perf_counter()
        subprocess.run(argv, env=full_env, cwd=cwd, input=stdin, text=True, check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if attempt:
            samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def bare_python(runs: int = 9) -> float:
    return median_seconds([sys.executable, "-c", "pass"], runs=runs)


def report(label: str, seconds: float, baseline: float | None = None) -> None:
    ratio = f"  ({seconds / baseline:.2f}x)" if baseline else ""
    print(f"{label:<58} {seconds * 1000:8.1f} ms{ratio}")
