"""How many workers `-n auto` starts (tests/conftest.py; docs/design.md, issue 25)."""

import os

# A quarter of the suite's time is spent waiting (servers starting, timeouts taken on
# purpose, the clients' CLIs): with one worker per core those waits leave a core idle.
WORKERS_PER_CORE = 2


def cores() -> int:
    """The cores this process may run on (as xdist counts them without psutil)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def workers() -> int:
    return WORKERS_PER_CORE * cores()
