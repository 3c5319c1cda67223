"""How fast `mcpctl --help`, `list` and `list --json` are, as whole processes.

Against `python -c pass` in the same run, median of 9 interleaved rounds (after a
warm-up round), for both ways of starting mcpctl (`python -m mcpctl` and the `mcpctl`
console script):

- the bundled example (examples/demo-repo with examples/config.toml);
- a generated workspace with 1,000 user-tier and 1,000 workspace servers;
- `list` with a 10,000-record trust store against an empty one;
- fingerprinting 1,000 workspace servers (pinned files included), in-process.

Targets (issues 2 and 3): `list` on the example under 100 ms and under 10x bare
Python; the 2,000-server case under 5x the example; the big trust store under 1.5x.

    uv run python bench/bench_list.py
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.timing import MCPCTL, REPO, report

EXAMPLE = ["--workspace", str(REPO / "examples" / "demo-repo"),
           "--config", str(REPO / "examples" / "config.toml")]
RUNS = 9


def generate_big(folder: Path) -> list[str]:
    """1,000 user servers in a config.toml and 1,000 in a workspace's .mcp.json."""
    root = folder / "big-repo"
    (root / ".git").mkdir(parents=True)
    (root / "scripts").mkdir()
    servers: dict[str, dict[str, Any]] = {}
    for i in range(1000):
        if i % 10 == 0:
            (root / "scripts" / f"s{i}.sh").write_text(f"#!/bin/sh\nexec node s{i}.js\n")
            servers[f"w{i:04d}"] = {"command": "bash", "args": [f"scripts/s{i}.sh"]}
        else:
            servers[f"w{i:04d}"] = {"command": "npx", "args": ["-y", f"@scope/server-{i}@1.0.0"],
                                    "env": {"MODE": "fast"}}
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2))
    config = folder / "big-config.toml"
    config.write_text("".join(
        f'# server {i}\n[servers.u{i:04d}]\ncommand = "uvx"\nargs = ["pkg-{i}==1.0"]\n'
        f'env = {{ TOKEN = "${{secret:t{i}}}" }}\n\n' for i in range(1000)))
    return ["--workspace", str(root), "--config", str(config)]


def big_trust_store(path: Path, records: int) -> None:
    """`records` approvals spread over 100 workspaces (none of them the example)."""
    per = records // 100
    workspaces = {}
    for w in range(100):
        names = {}
        for n in range(per):
            digest = hashlib.sha256(f"{w}-{n}".encode()).hexdigest()
            names[f"server-{n}"] = {
                "fingerprint": f"sha256:{digest}", "approved_at": "2026-01-01T00:00:00+00:00",
                "definition": {"transport": "stdio", "command": "npx",
                               "args": ["-y", f"@scope/server-{n}@1.0.0"], "env": {"MODE": "x"},
                               "cwd": None, "envFile": None, "url": None, "headers": {},
                               "files": {}}}
        workspaces[f"/home/me/src/project-{w}"] = names
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"schema_version": 1, "workspaces": workspaces}, indent=1))


def interleaved_medians(commands: dict[str, tuple[list[str], dict[str, str]]],
                        runs: int) -> dict[str, float]:
    """Median wall time of each command; every round runs each command once, so load
    from other processes on the machine falls on all of them alike."""
    samples: dict[str, list[float]] = {label: [] for label in commands}
    for round_number in range(runs + 1):  # round 0 warms caches and writes bytecode
        for label, (argv, env) in commands.items():
            start = time.perf_counter()
            subprocess.run(argv, env={**os.environ, **env}, check=False,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if round_number:
                samples[label].append(time.perf_counter() - start)
    return {label: statistics.median(values) for label, values in samples.items()}


def fingerprint_thousand(folder: Path) -> float:
    from mcpctl.config.workspace import load_workspace  # noqa: PLC0415
    from mcpctl.pinning.pinned_files import Lookups  # noqa: PLC0415 - after sys.path is set
    from mcpctl.trust.status import status_of  # noqa: PLC0415

    root = folder / "big-repo"
    definitions = load_workspace(root).definitions
    assert len(definitions) == 1000
    samples = []
    for _ in range(RUNS):
        start = time.perf_counter()
        lookups = Lookups()  # as `list` does: one per command
        for definition in definitions:
            status_of(definition, root, {}, os.environ, Path.home(), lookups)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    # An installed tool runs from bytecode; measure that, not recompiling every import.
    was_set = os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None
    print(f"python {sys.version.split()[0]}; bytecode cache on"
          + (" (PYTHONDONTWRITEBYTECODE was set; unset for this run)" if was_set else "")
          + f"; median of {RUNS} interleaved rounds")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        home = {"MCPCTL_HOME": str(folder / "home")}
        store_home = {"MCPCTL_HOME": str(folder / "store-home")}
        big_trust_store(folder / "store-home" / "data" / "trust.json", 10_000)
        big = generate_big(folder)
        cases = {
            "--help": (["--help"], home),
            "list (example)": (["list", *EXAMPLE], home),
            "list --json (example)": (["list", "--json", *EXAMPLE], home),
            "list (1,000 user + 1,000 workspace)": (["list", *big], home),
            "list --json (1,000 user + 1,000 workspace)": (["list", "--json", *big], home),
            "list (example, 10,000-record trust store)": (["list", *EXAMPLE], store_home),
        }
        ways = {"-m": [sys.executable, "-m", "mcpctl"], "script": [MCPCTL]}
        commands: dict[str, tuple[list[str], dict[str, str]]] = {
            "python -c pass": ([sys.executable, "-c", "pass"], {})}
        for case, (args, env) in cases.items():
            for how, prefix in ways.items():
                commands[f"mcpctl {case} [{how}]"] = ([*prefix, *args], env)
        medians = interleaved_medians(commands, RUNS)
        baseline = medians["python -c pass"]
        for label, seconds in medians.items():
            report(label, seconds, None if label == "python -c pass" else baseline)
        print()
        for how in ways:
            example = medians[f"mcpctl list (example) [{how}]"]
            large = medians[f"mcpctl list (1,000 user + 1,000 workspace) [{how}]"]
            stored = medians[f"mcpctl list (example, 10,000-record trust store) [{how}]"]
            print(f"[{how}] list example: {example * 1000:.1f} ms, {example / baseline:.1f}x "
                  "bare python (targets: < 100 ms, < 10x)")
            print(f"[{how}] 2,000 servers / example: {large / example:.2f}x (target < 5x)")
            print(f"[{how}] 10,000-record trust store / empty: {stored / example:.2f}x "
                  "(target < 1.5x)")
        seconds = fingerprint_thousand(folder)
        print(f"fingerprint 1,000 workspace servers (pinned files included, in-process): "
              f"{seconds * 1000:.1f} ms")


if __name__ == "__main__":
    main()
