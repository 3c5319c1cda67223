"""The whole suite, run again and again beside CPU burners (issue 16; by hand, not in CI).

Each round runs `CI=true uv run pytest -q -p no:cacheprovider` (the same command as
`.ci/run`, so a missing component fails rather than skips) while `--burners` busy
loops keep every core loaded, and records whether it passed, how long it took and the
failing tests. An idle round first (no burners) gives the time each loaded round is
compared with; the suite passes the bar when every loaded round passes and none takes
more than `--slack` (default 20 %) longer than the idle one.

    uv run python bench/loaded_suite.py --rounds 10 --burners 2
    uv run python bench/loaded_suite.py --rounds 3 -- tests/protocol   # a part only

Exit status: 0 when every round passed within the slack, 1 when one did not.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ROUND_TIMEOUT = 40 * 60  # seconds; a round that takes longer has hung


@dataclass(frozen=True)
class Round:
    loaded: bool
    seconds: float
    passed: bool
    summary: str
    failures: tuple[str, ...]
    output: str


def burn(stop_at: float) -> None:
    """One busy core until `stop_at` (a monotonic time), so a burner cannot outlive us."""
    while time.monotonic() < stop_at:
        sum(range(10_000))


def one_round(selection: list[str], *, burners: int, loaded: bool) -> Round:
    """`loaded`: a round of the run (with or without burners), not the idle baseline."""
    stop_at = time.monotonic() + ROUND_TIMEOUT
    spawn = multiprocessing.get_context("spawn")
    workers = [spawn.Process(target=burn, args=(stop_at,), daemon=True) for _ in range(burners)]
    for worker in workers:
        worker.start()
    started = time.monotonic()
    try:
        done = subprocess.run(
            ["uv", "run", "pytest", "-q", "-p", "no:cacheprovider", *selection],
            cwd=REPO, env={**os.environ, "CI": "true"}, capture_output=True, text=True,
            timeout=ROUND_TIMEOUT, check=False)
        output, code = done.stdout + done.stderr, done.returncode
    except subprocess.TimeoutExpired:
        output, code = "round timed out", -1
    finally:
        for worker in workers:
            worker.terminate()
            worker.join(5)
    seconds = time.monotonic() - started
    summaries = re.findall(r"^=*\s*(\d+ (?:passed|failed).*?)\s*=*$", output, re.M)
    failures = tuple(re.findall(r"^(?:FAILED|ERROR) (\S+)", output, re.M))
    return Round(loaded, seconds, code == 0, summaries[-1] if summaries else output[-300:],
                 failures, output)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=10, help="loaded rounds (default 10)")
    parser.add_argument("--burners", type=int, default=os.cpu_count() or 1,
                        help="busy loops beside each loaded round (default: one per core)")
    parser.add_argument("--slack", type=float, default=0.20,
                        help="how much longer than the idle round a loaded one may take")
    parser.add_argument("--no-idle", action="store_true",
                        help="skip the idle round (no time comparison then)")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="write each failed round's whole output to DIR/round-N.txt")
    parser.add_argument("selection", nargs="*", help="pytest arguments (default: everything)")
    options = parser.parse_args()
    rounds = [] if options.no_idle else [one_round(options.selection, burners=0, loaded=False)]
    if rounds:
        report(1, rounds[0], None, options.keep)
    for _ in range(options.rounds):
        rounds.append(one_round(options.selection, burners=options.burners, loaded=True))
        report(len(rounds), rounds[-1], rounds[0] if not options.no_idle else None, options.keep)
    idle = None if options.no_idle else rounds[0]
    loaded = [r for r in rounds if r.loaded]
    bound = None if idle is None else idle.seconds * (1 + options.slack)
    slow = [r for r in loaded if bound is not None and r.seconds > bound]
    failed = [r for r in rounds if not r.passed]
    print(f"{len(loaded)} loaded round(s): {len(loaded) - len(failed)} passed"
          + (f"; idle {idle.seconds:.0f} s, slowest loaded "
             f"{max(r.seconds for r in loaded):.0f} s" if idle and loaded else ""))
    return 1 if failed or slow else 0


def report(number: int, done: Round, idle: Round | None, keep: Path | None) -> None:
    if keep is not None and not done.passed:
        keep.mkdir(parents=True, exist_ok=True)
        (keep / f"round-{number}.txt").write_text(done.output, encoding="utf-8")
    print_round(number, done, idle)


def print_round(number: int, done: Round, idle: Round | None) -> None:
    ratio = f" ({done.seconds / idle.seconds:.2f}x idle)" if idle and idle is not done else ""
    state = "passed" if done.passed else "FAILED"
    print(f"round {number} {'loaded' if done.loaded else 'idle'}: {state} in "
          f"{done.seconds:.0f} s{ratio}: {done.summary}", flush=True)
    for failure in done.failures:
        print(f"  {failure}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
