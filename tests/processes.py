"""The processes tests start: bounded waits, stopped on success and failure, none left behind.

Every test session tags its environment with a fresh `MCPCTL_TEST_SESSION` id, which every
process it starts inherits (servers too: mcpctl passes the user's environment on). After
each test, `lingering` finds the tagged processes still alive; the conftest kills them and
fails the test that left them, so an orphaned loop cannot load the machine and make later
tests fail for a reason they do not show (issue 16).
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

SESSION_VARIABLE = "MCPCTL_TEST_SESSION"
# Started for the whole session (the private keyring): never counted as left behind.
SESSION_PIDS: set[int] = set()


def stop(process: subprocess.Popen[Any], grace: float = 5) -> None:
    """SIGTERM, wait up to `grace`, then SIGKILL and reap; close its pipes."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            stream.close()


@contextmanager
def started(argv: Sequence[str], **options: Any) -> Iterator[subprocess.Popen[Any]]:
    """`subprocess.Popen(argv, **options)` for the block, killed and reaped when it ends,
    whether the block passed or failed (a failed assertion must not orphan a writer)."""
    process: subprocess.Popen[Any] = subprocess.Popen(argv, **options)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def wait_for(condition: Callable[[], bool], *, within: float, what: str) -> None:
    """Poll `condition` until it holds; fail saying `what` did not happen within `within` s."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {within} s")
        time.sleep(0.02)


LOST_AFTER = 30.0  # no process takes this long to act on a signal, even on a busy machine


def signal_and_wait(process: subprocess.Popen[Any], signum: signal.Signals, *,
                    within: float) -> tuple[Any, Any]:
    """Send `signum` and collect the output within `within` s. Past that the test fails
    saying which of two things happened, never with a bare timeout: the signal was acted
    on late (the bound is broken) or, still running `LOST_AFTER` s on, it was lost."""
    ignored = ignored_signals(process.pid)
    if signum in ignored:
        raise AssertionError(f"pid {process.pid} ignores {signum.name}, inherited from the "
                             "test run (nohup, or a shell's background job): run pytest "
                             "where the signal is not ignored")
    sent = time.monotonic()
    process.send_signal(signum)
    try:
        return process.communicate(timeout=within)
    except subprocess.TimeoutExpired:
        pass
    try:
        process.communicate(timeout=LOST_AFTER - within)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise AssertionError(f"{signum.name} was lost: pid {process.pid} still ran "
                             f"{LOST_AFTER:.0f} s after it was sent, and was killed") from None
    raise AssertionError(f"{signum.name} was acted on late: pid {process.pid} ended "
                         f"{time.monotonic() - sent:.1f} s after it was sent, past the bound "
                         f"of {within} s (exit code {process.returncode})")


def ignored_signals(pid: int) -> set[int]:
    """The signals process `pid` ignores (SigIgn of /proc/PID/status)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigIgn:"):
            mask = int(line.split()[1], 16)
            return {number for number in range(1, 65) if mask >> (number - 1) & 1}
    return set()


def open_descriptor_targets() -> list[str]:
    """What each of this process's open descriptors names (a path, `pipe:[N]`, ...). A
    leak test looks at the names of what the code under test could leak: a bare count
    would also see a descriptor another thread of the test process opened meanwhile."""
    named = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            named.append(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            continue  # closed since it was listed (the listing's own descriptor)
    return named


def _state_and_parent(pid: str) -> tuple[str, int]:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()
    return fields[0], int(fields[1])


def lingering(tag: str, *, workers: bool = False) -> dict[int, str]:
    """Live processes (not zombies) whose environment holds `MCPCTL_TEST_SESSION=tag`,
    other than this one and the session's own: pid → command line. With `workers`
    (the controller of a parallel run) this process's own children are the workers,
    which carry its tag from their start and end on their own."""
    return _scan(tag, workers=workers)[0]


def _scan(tag: str, *, workers: bool) -> tuple[dict[int, str], set[int]]:
    """`lingering`, and this process's own children whose environment reads empty.

    A child that has just exec'd can read so for a moment: the kernel closes the
    close-on-exec pipe that tells `Popen` the exec succeeded before it lays the new
    program's environment out, so a test that starts a process and ends at once can be
    looked at in between, and its process would pass for untagged (seen under load)."""
    needle = f"{SESSION_VARIABLE}={tag}".encode()
    found, unsure = {}, set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = Path(entry.path, "environ").read_bytes()
            tagged = needle in environ.split(b"\0")
            if not (tagged or not environ):
                continue
            state, parent = _state_and_parent(entry.name)
            cmdline = Path(entry.path, "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue  # it ended while being read
        pid = int(entry.name)
        if state in ("Z", "X") or pid in SESSION_PIDS or parent in SESSION_PIDS:
            continue
        if workers and parent == os.getpid():
            continue
        if tagged:
            found[pid] = cmdline.replace(b"\0", b" ").decode(errors="replace").strip()
        elif parent == os.getpid():
            unsure.add(pid)
    return found, unsure


def lingering_after_settling(tag: str, within: float = 3.0, *,
                             workers: bool = False) -> dict[int, str]:
    """`lingering`, once processes being stopped have had `within` s to end (a kill just
    sent lands asynchronously, and a busy machine delays it) and a child caught in the
    middle of its exec has shown its environment."""
    deadline = time.monotonic() + within
    while True:
        found, unsure = _scan(tag, workers=workers)
        if not (found or unsure) or time.monotonic() >= deadline:
            return found
        time.sleep(0.05)


def kill_all(pids: Sequence[int]) -> None:
    """SIGKILL each pid, and reap those that are this process's children."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            continue
        # Not ours to reap (ChildProcessError): its own parent, or init, does.
        with suppress(ChildProcessError):
            os.waitpid(pid, 0)


def read_until_closed(fd: int, *, within: float) -> bytes:
    """Everything a process writes to the terminal whose other end is `fd`, until it
    closes it (EIO or end of file); a process still writing or silent after `within` s
    fails the test instead of blocking it."""
    chunks: list[bytes] = []
    deadline = time.monotonic() + within
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            break
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: every process holding the terminal's other end has ended
            return b"".join(chunks)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
    raise AssertionError(f"the terminal was not closed within {within} s; it showed: "
                         f"{b''.join(chunks)[-500:]!r}")
