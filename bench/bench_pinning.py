"""What pinning the whole workspace costs `list`, as whole processes (issue 11, item 4).

Median of 9 interleaved rounds after a warm-up round (the digest cache is warm: an
unchanged workspace costs a listing and a stat walk), against `python -c pass`:

- a git work tree of 10,000 committed files with two trusted servers, against the
  same work tree with no server at all (target: at most 1.5x);
- the same with 100,000 files (target: under 1 s);
- the 10,000-file tree outside git (every file under the root is listed).

    uv run python bench/bench_pinning.py
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.timing import MCPCTL, report

RUNS = 9
GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.test",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.test"}
SERVERS = {"alpha": {"command": "bash", "args": ["scripts/alpha.sh"]},
           "beta": {"command": "node", "args": ["src/beta.js"]}}


def tree(root: Path, files: int, *, use_git: bool) -> None:
    """`files` small files in folders of 100, two server scripts, optionally committed."""
    for index in range(files):
        folder = root / "src" / f"d{index // 100:04d}"
        if index % 100 == 0:
            folder.mkdir(parents=True)
        (folder / f"f{index % 100:02d}.js").write_text(f"module.exports = {index};\n")
    (root / "scripts").mkdir()
    (root / "scripts" / "alpha.sh").write_text("#!/bin/sh\nexec node src/beta.js\n")
    (root / "src" / "beta.js").write_text("console.log('beta')\n")
    if use_git:
        env = {**os.environ, **GIT_ENV}
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "tree"]):
            subprocess.run(["git", "-C", str(root), *args], env=env, check=True)
    else:
        (root / ".git").mkdir()


def with_servers(root: Path, servers: Mapping[str, object]) -> None:
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))


def interleaved(commands: dict[str, list[str]], env: dict[str, str]
                ) -> tuple[dict[str, float], dict[str, float]]:
    """Median wall and CPU (user + system, the process and its children) seconds: on a
    shared, loaded machine the CPU figure is the one that says what mcpctl costs."""
    samples: dict[str, list[float]] = {label: [] for label in commands}
    cpu: dict[str, list[float]] = {label: [] for label in commands}
    for attempt in range(RUNS + 1):
        for label, argv in commands.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(argv, env=env, check=False, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if attempt:
                samples[label].append(time.perf_counter() - start)
                cpu[label].append(after.ru_utime - before.ru_utime
                                  + after.ru_stime - before.ru_stime)
    return ({label: statistics.median(values) for label, values in samples.items()},
            {label: statistics.median(values) for label, values in cpu.items()})


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        env = {**os.environ, "MCPCTL_HOME": str(base / "home")}
        roots = {}
        for label, files, use_git in (("10k", 10_000, True), ("100k", 100_000, True),
                                      ("10k-folder", 10_000, False)):
            for servers in ("none", "two"):
                root = base / f"{label}-{servers}"
                tree(root, files, use_git=use_git)
                with_servers(root, SERVERS if servers == "two" else {})
                if servers == "two":
                    subprocess.run([MCPCTL, "trust", "--all", "--yes", "-w", str(root)],
                                   env=env, check=True, stdout=subprocess.DEVNULL)
                roots[f"{label}-{servers}"] = root
        commands = {"python -c pass": [sys.executable, "-c", "pass"]}
        commands |= {f"list {key}": [MCPCTL, "list", "-w", str(root)]
                     for key, root in roots.items()}
        medians, cpu = interleaved(commands, env)
    bare = medians.pop("python -c pass")
    report("python -c pass (wall)", bare)
    for label, seconds in medians.items():
        report(f"{label} (wall)", seconds, bare)
    bare_cpu = cpu.pop("python -c pass")
    report("python -c pass (cpu)", bare_cpu)
    for label, seconds in cpu.items():
        report(f"{label} (cpu)", seconds, bare_cpu)
    for label in ("10k", "10k-folder", "100k"):
        ratio = medians[f"list {label}-two"] / medians[f"list {label}-none"]
        cpu_ratio = cpu[f"list {label}-two"] / cpu[f"list {label}-none"]
        print(f"{label}: two trusted servers vs none: {ratio:.2f}x wall, {cpu_ratio:.2f}x cpu "
              "(target at most 1.5x)")
    print(f"100k with two trusted servers: {medians['list 100k-two'] * 1000:.0f} ms wall, "
          f"{cpu['list 100k-two'] * 1000:.0f} ms cpu (target under 1 s)")


if __name__ == "__main__":
    main()
