"""Many credentials in one text, for the bounds on how many are taken out or masked."""

from __future__ import annotations


def distinct_tokens(stop: int, start: int = 0) -> list[str]:
    """GitHub-shaped tokens numbered `start` to `stop - 1`, no two alike and none inside
    another."""
    return [f"ghp_{i:02d}" + "A1b2C3d4E5" * 3 + "x1y2z3" for i in range(start, stop)]
