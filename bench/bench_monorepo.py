"""Workspace pinning at monorepo scale against git on the same tree (issue 24).

Generated git repos in a temp folder (folders of 250 small committed files, one
`.mcp.json` server whose command is `true`); each mcpctl step is measured against a git
command on the same tree in the same run, interleaved, median of ROUNDS rounds after
a warm-up round (wall and CPU seconds; peak resident memory of the mcpctl process).
A cache writer mcpctl leaves running (a first pass over many files) is waited for
after its round, untimed, and when its cache was in place is shown beside:

- `run` of the trusted server, nothing changed / one file changed (refused), and
  `list`, against `git status --porcelain` (target at most 1.5x);
- `trust` from cold (no cache, no approval) against `git hash-object --stdin-paths`
  over every file (target at most 1.5x);
- with `--million`: the same `run` at 1,000,000 files (approvable, at most 2x), and a
  user-tier `run` from inside that repo against one from an empty folder;
- with `--cold`: the page cache dropped before every timed command, mcpctl's and git's
  (as root: `/proc/sys/vm/drop_caches`), so each reads the tree, its own program and
  its files from the disk: a repo not touched since the machine started, and the
  regime of the figures issue 24 was filed with (`hash-object` 7.1 s over 100,000
  files is a cold cache; a warm one here takes about 0.3 s);
- with `--package`: the server in a package folder holding half of the files (a
  monorepo's package), that folder the workspace, against `git status` run there.

    uv run python bench/bench_monorepo.py [--files 100000] [--million] [--rounds 5] [--cold]

The 1,000,000-file repo takes minutes to make: it is made once, in /tmp, and removed.
"""

from __future__ import annotations

import argparse
import fcntl
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

from bench.timing import MCPCTL

GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.test",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.test"}
PER_FOLDER = 250
DROP_CACHES = Path("/proc/sys/vm/drop_caches")
COLD: list[bool] = []  # set by --cold: drop the page cache before each timed command


def make_repo(root: Path, files: int, package: str = "") -> None:
    """`files` small files in folders of 250, committed, and the one server; with
    `package`, the server and the first half of the folders are in that folder."""
    root.mkdir(parents=True)
    for index in range(files):
        if index % PER_FOLDER == 0:
            inside = package if package and index < files // 2 else ""
            folder = root / inside / f"d{index // PER_FOLDER:05d}"
            folder.mkdir(parents=True)
        (folder / f"f{index % PER_FOLDER:03d}.js").write_text(f"module.exports = {index};\n")
    (root / package / ".mcp.json").write_text('{"mcpServers": {"srv": {"command": "true"}}}\n')
    env = {**os.environ, **GIT_ENV}
    # No automatic gc: it would go on in the background while the folder is removed.
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "tree"]):
        subprocess.run(["git", "-C", str(root), "-c", "gc.auto=0", *args], env=env,
                       check=True)


class Sample:
    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.written: list[float] = []  # until a detached cache writer was done
        self.peak_kib = 0
        self.codes: set[int] = set()


def writers_done(home: Path) -> bool:
    """Wait for the cache writers mcpctl detached (each holds its cache's lock until the
    cache is in place); whether there was one."""
    waited = False
    for lock in sorted((home / "cache" / "pins").glob("*.lock")):
        with lock.open("rb") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                fcntl.flock(handle, fcntl.LOCK_SH)
                waited = True
    return waited


def once(argv: list[str], env: dict[str, str], sample: Sample | None, *,
         cwd: Path | None = None, stdin: bytes | None = None) -> None:
    """One run; then, untimed in `wall` but kept in `written`, the wait for a cache
    writer it left behind (so no round runs beside the last one's writer)."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.PIPE,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if stdin is not None and process.stdin is not None:
        process.stdin.write(stdin)
    if process.stdin is not None:
        process.stdin.close()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    ended = time.perf_counter()
    waited = writers_done(Path(env["MCPCTL_HOME"])) if "MCPCTL_HOME" in env else False
    if sample is not None:
        sample.wall.append(ended - start)
        if waited:
            sample.written.append(time.perf_counter() - start)
        sample.cpu.append(usage.ru_utime + usage.ru_stime)
        sample.peak_kib = max(sample.peak_kib, usage.ru_maxrss)
        sample.codes.add(process.returncode)


def drop_page_cache() -> None:
    """Write dirty pages back, then drop clean ones, dentries and inodes."""
    os.sync()
    DROP_CACHES.write_text("3\n")


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def measure(steps: dict[str, tuple[list[str], dict[str, object]]], env: dict[str, str],
            rounds: int, before: dict[str, object] | None = None) -> dict[str, Sample]:
    """Interleaved rounds; a step's `prepare` callable runs before it, untimed."""
    samples = {label: Sample() for label in steps}
    for attempt in range(rounds + 1):
        for label, (argv, options) in steps.items():
            prepare = options.get("prepare")
            if callable(prepare):
                prepare()
            if COLD:
                drop_page_cache()
            once(argv, env, samples[label] if attempt else None,
                 cwd=options.get("cwd"),  # type: ignore[arg-type]
                 stdin=options.get("stdin"))  # type: ignore[arg-type]
    del before
    return samples


def show(label: str, sample: Sample, yardstick: Sample | None = None, target: str = "") -> None:
    wall, cpu = median(sample.wall), median(sample.cpu)
    line = f"{label:<48} {wall * 1000:8.0f} ms wall {cpu * 1000:8.0f} ms cpu"
    if sample.peak_kib:
        line += f"  peak {sample.peak_kib / 1024:6.0f} MiB"
    if sample.written:
        line += (f"  cache written at {median(sample.written) * 1000:.0f} ms "
                 f"({len(sample.written)} of {len(sample.wall)} rounds left a writer)")
    if yardstick is not None:
        line += (f"  {wall / median(yardstick.wall):5.2f}x wall "
                 f"{cpu / median(yardstick.cpu):5.2f}x cpu {target}")
    line += f"  exit {sorted(sample.codes)}"
    print(line, flush=True)


def load_note() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (1 min), {five:.1f} (5 min) on {os.cpu_count()} cores"


def scale(root: Path, home: Path, rounds: int, label: str, target: str) -> None:
    """`root`: the workspace (the repo's top, or a package folder inside it)."""
    env = {**os.environ, "MCPCTL_HOME": str(home)}
    workspace = ["--workspace", str(root)]
    paths = subprocess.run(["git", "-C", str(root), "ls-files"], capture_output=True,
                           check=True).stdout
    started = time.perf_counter()
    trusted = subprocess.run([MCPCTL, "trust", "srv", "--yes", *workspace], env=env,
                             capture_output=True, text=True, check=False)
    print(f"{label}: first trust exit {trusted.returncode} in "
          f"{time.perf_counter() - started:.1f} s {trusted.stderr.strip()[:200]}", flush=True)
    once([MCPCTL, "run", "srv", *workspace], env, None)  # the cache settles
    time.sleep(3.5)
    once([MCPCTL, "run", "srv", *workspace], env, None)
    status = ["git", "-C", str(root), "status", "--porcelain"]
    target_file = root / "d00000" / "f000.js"
    original = target_file.read_text()

    def change() -> None:
        target_file.write_text(original.replace("0", "1") + "// changed\n")

    def restore() -> None:
        target_file.write_text(original)

    unchanged: dict[str, tuple[list[str], dict[str, object]]] = {
        "git status --porcelain": (status, {}),
        "run, nothing changed": ([MCPCTL, "run", "srv", *workspace], {}),
        "list": ([MCPCTL, "list", *workspace], {}),
    }
    print(f"{label}: {load_note()}", flush=True)
    samples = measure(unchanged, env, rounds)
    git = samples["git status --porcelain"]
    show("git status --porcelain", git)
    show("run, nothing changed", samples["run, nothing changed"], git, target)
    show("list", samples["list"], git, target)
    change()
    first = Sample()
    once([MCPCTL, "run", "srv", *workspace], env, first)  # hashes it, rewrites the cache
    show("run, first start after the change (refused)", first)
    changed: dict[str, tuple[list[str], dict[str, object]]] = {
        "git status --porcelain, one changed": (status, {}),
        "run, one changed (refused)": ([MCPCTL, "run", "srv", *workspace], {}),
    }
    print(f"{label}: {load_note()}", flush=True)
    samples = measure(changed, env, rounds)
    restore()
    changed_git = samples["git status --porcelain, one changed"]
    show("git status --porcelain, one changed", changed_git)
    show("run, one changed (refused)", samples["run, one changed (refused)"], changed_git,
         target)
    del paths


def cold_trust(root: Path, base: Path, rounds: int) -> None:
    paths = subprocess.run(["git", "-C", str(root), "ls-files"], capture_output=True,
                           check=True).stdout
    home = base / "cold-home"
    env = {**os.environ, "MCPCTL_HOME": str(home)}

    def cold() -> None:
        shutil.rmtree(home, ignore_errors=True)

    steps: dict[str, tuple[list[str], dict[str, object]]] = {
        "git hash-object --stdin-paths (every file)": (
            ["git", "-C", str(root), "hash-object", "--stdin-paths"], {"stdin": paths}),
        "trust from cold": ([MCPCTL, "trust", "srv", "--yes", "--workspace", str(root)],
                            {"prepare": cold}),
    }
    print(f"trust: {load_note()}", flush=True)
    samples = measure(steps, env, rounds)
    yardstick = samples["git hash-object --stdin-paths (every file)"]
    show("git hash-object --stdin-paths (every file)", yardstick)
    show("trust from cold", samples["trust from cold"], yardstick, "(target <= 1.5x)")
    sizes = sorted((path.stat().st_size, path.name) for path in home.rglob("*") if path.is_file())
    print("  files mcpctl keeps: " + ", ".join(f"{name[:12]}… {size / 1024:.0f} KiB"
                                               for size, name in sizes[-4:]), flush=True)


def user_tier(root: Path, base: Path, rounds: int) -> None:
    home = base / "user-home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text('[servers.mine]\ncommand = "true"\n')
    env = {**os.environ, "MCPCTL_HOME": str(home)}
    empty = base / "empty"
    empty.mkdir()
    steps: dict[str, tuple[list[str], dict[str, object]]] = {
        "user-tier run from an empty folder": ([MCPCTL, "run", "mine"], {"cwd": empty}),
        "user-tier run from inside the repo": ([MCPCTL, "run", "mine"], {"cwd": root}),
    }
    print(f"user tier: {load_note()}", flush=True)
    samples = measure(steps, env, rounds)
    empty_sample = samples["user-tier run from an empty folder"]
    show("user-tier run from an empty folder", empty_sample)
    show("user-tier run from inside the repo", samples["user-tier run from inside the repo"],
         empty_sample, "(target: no slower)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--million", action="store_true")
    parser.add_argument("--skip-small", action="store_true")
    parser.add_argument("--cold", action="store_true",
                        help="drop the page cache before every timed command (root only)")
    parser.add_argument("--package", action="store_true",
                        help="also a repo whose server is in a package folder holding "
                        "half of its files (the workspace is that folder)")
    options = parser.parse_args()
    if options.cold:
        try:
            drop_page_cache()
        except OSError as error:
            parser.error(f"--cold drops the page cache, which needs root: {error}")
        COLD.append(True)
        print("page cache dropped before every timed command", flush=True)
    with tempfile.TemporaryDirectory(dir="/tmp", ignore_cleanup_errors=True) as folder:
        base = Path(folder)
        if not options.skip_small:
            root = base / "repo"
            started = time.perf_counter()
            make_repo(root, options.files)
            print(f"made {options.files:,} files in {time.perf_counter() - started:.0f} s",
                  flush=True)
            scale(root, base / "home", options.rounds, f"{options.files:,} files",
                  "(target <= 1.5x)")
            cold_trust(root, base, options.rounds)
            shutil.rmtree(root)
        if options.package:
            root = base / "packaged"
            make_repo(root, options.files, "pkg")
            scale(root / "pkg", base / "home-package", options.rounds,
                  f"{options.files:,} files, the workspace a package of half of them",
                  "(target <= 1.5x)")
            shutil.rmtree(root)
        if options.million:
            root = base / "million"
            started = time.perf_counter()
            make_repo(root, 1_000_000)
            print(f"made 1,000,000 files in {time.perf_counter() - started:.0f} s", flush=True)
            scale(root, base / "home-million", max(3, options.rounds // 2), "1,000,000 files",
                  "(target <= 2x)")
            user_tier(root, base, options.rounds)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak resident memory of any child: {peak:.0f} MiB")


if __name__ == "__main__":
    main()
