"""A bound on the test process's memory: a runaway test fails instead of eating the machine.

With the stdout cap of the protocol reader removed, pytest once grew to 24 GB in 410 s
before the kernel killed it (issue 16). A watchdog thread samples this process's resident
size; past the bound it raises `MemoryBoundExceeded` in the main thread (through a
SIGUSR1 handler, the only way to raise there from another thread), which fails the
running test and frees what it held. It is a BaseException so that mcpctl's own catch-all
handler, which the in-process `cli` fixture runs, cannot swallow it.
"""

from __future__ import annotations

import _thread
import os
import signal
import threading
from pathlib import Path
from types import FrameType

DEFAULT_BOUND_MIB = 2048
PAGE = os.sysconf("SC_PAGE_SIZE")


class MemoryBoundExceeded(BaseException):
    """The test process grew past the bound."""


def resident_mib() -> float:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * PAGE / 2**20


class Watchdog:
    """Samples `resident_mib()` every `interval` s; past `bound_mib` it interrupts once."""

    def __init__(self, bound_mib: float, interval: float = 0.1) -> None:
        self.bound_mib = bound_mib
        self.interval = interval
        self.peak_mib = 0.0
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="memory-watchdog",
                                        daemon=True)

    def start(self) -> None:
        signal.signal(signal.SIGUSR1, self._raise)
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=5)

    def _watch(self) -> None:
        while not self._stopped.wait(self.interval):
            size = resident_mib()
            self.peak_mib = max(self.peak_mib, size)
            if size > self.bound_mib:
                _thread.interrupt_main(signal.SIGUSR1)
                self._stopped.wait(5)  # one interrupt, then give the test time to unwind

    def _raise(self, _signum: int, _frame: FrameType | None) -> None:
        raise MemoryBoundExceeded(f"the test process grew to {resident_mib():.0f} MiB, past "
                                  f"the bound of {self.bound_mib:.0f} MiB")
