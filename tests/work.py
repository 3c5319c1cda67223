"""The work a call does, counted rather than timed (issue 25).

A test that shows an algorithm stays linear must not time it: a loaded machine makes
any clock budget fail. The number of Python function calls (and generator resumptions)
a call makes is the same on an idle machine and a busy one, so a ratio of two counts
can be bounded tightly. C code (regular expressions, the tokenizer's core) is one call
however long it runs: where that is the risk, a test bounds its time with
`@pytest.mark.timeout` instead, well past the idle time and well short of the slow case.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any


def calls_made(work: Callable[[], Any]) -> tuple[Any, int]:
    """`work()`'s result and the Python calls it made (every `call` profile event)."""
    count = 0

    def profile(frame: FrameType, event: str, arg: object) -> None:
        nonlocal count
        if event == "call":
            count += 1

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        result = work()
    finally:
        sys.setprofile(previous)
    return result, count
