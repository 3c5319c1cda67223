"""Which tests reach which lines of mcpctl: the map that picks each mutant's tests.

`bench/structural_mutation.py` ran every mutant against the whole suite: about two
minutes for a mutant that is killed (the workers' start, the collection, the first
failing test) and the whole suite (about six minutes) for one that survives, so its
scope of some 3,000 mutants took days on two cores. Most of that is tests that never
execute the mutated line and so cannot tell the mutant from the original.

The map is made once per state of the sources: the whole suite runs once under
coverage, in a copy of the checkout, recording per line of `mcpctl/` the tests that
executed it. In the test's own process that is coverage's `test_function` context;
in the processes a test starts (most of the suite runs mcpctl as a real process) it
is the test's node id, which `bench/coverage_contexts.py` puts in the environment and
coverage's configuration reads as each process's static context. Every Python
process is measured through the `.pth` file coverage installs
(`COVERAGE_PROCESS_START`), and a process that `exec`s, calls `os._exit` or is ended
by SIGTERM (a bridge or server a test stops) saves its data first (`patch`, `sigterm`).
The tests that start a real client hand the two variables on to it
(`tests/clients/real_clients.py`), so the mcpctl the client starts is measured too.

A mutant then runs first against the tests that reach its lines. A test the map
missed (a process started with an environment of its own making, a process killed
before it saved its data) can only make a mutant look alive on that first run, never
dead, so a mutant those tests do not kill still runs against the whole suite: the
score is the whole suite's, and the map only makes killing cheap.

The map is keyed by a digest of `mcpctl/`, `tests/` and this plugin as they are; a
map of other sources is not used (the run says so and uses the whole suite).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

from bench.coverage_contexts import VARIABLE, portable

MAP_FILE = "bench/.coverage-map.json"  # git-ignored
_KEYED = ("mcpctl/", "tests/", "bench/coverage_contexts.py")
_RC = """\
[run]
data_file = {data}
parallel = true
source = {source}
context = ${{{variable}-}}
dynamic_context = test_function
sigterm = true
patch =
    _exit
    execv
"""


def source_digest(root: Path) -> str:
    """SHA-256 over the path and content of every file the map depends on."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--",
         *_KEYED], cwd=root, capture_output=True, check=True, timeout=120).stdout
    digest = hashlib.sha256()
    for name in sorted(filter(None, listed.split(b"\0"))):
        path = root / os.fsdecode(name)
        if path.is_file() and not path.is_symlink():
            digest.update(name + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def build(root: Path, environment: dict[str, str], jobs: int, timeout: float,
          tests: tuple[str, ...] = ("tests",)) -> dict[str, object]:
    """Run the suite under coverage in the prepared copy `root`; the map as data."""
    data = root / ".coverage-map" / "data"
    data.parent.mkdir(exist_ok=True)
    rc = root / ".coverage-map" / "coveragerc"
    rc.write_text(_RC.format(data=data, source=root / "mcpctl", variable=VARIABLE))
    env = {**environment, "COVERAGE_PROCESS_START": str(rc)}
    env.pop(VARIABLE, None)
    python = str(root / ".venv" / "bin" / "python")
    durations = root / ".coverage-map" / "durations.json"
    done = subprocess.run(
        [python, "-m", "coverage", "run", f"--rcfile={rc}", "-m", "pytest", "-q",
         "-p", "no:cacheprovider", "-p", "bench.coverage_contexts", "-n", str(jobs),
         f"--test-durations={durations}", *tests], cwd=root, env=env, timeout=timeout,
        capture_output=True, text=True, check=False)
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED ")]
    print(f"coverage map: the suite ended with {done.returncode}: "
          f"{(done.stdout.strip().splitlines() or ['(no output)'])[-1]}", *failed,
          sep="\n", flush=True)
    subprocess.run([python, "-m", "coverage", "combine", f"--rcfile={rc}", "-q"],
                   cwd=root, env=env, timeout=timeout, check=True)
    made = read(root, data)
    try:
        made["seconds"] = json.loads(durations.read_text())
    except (OSError, ValueError):
        made["seconds"] = {}  # no order but the listing's: slower, never wrong
    return made


def read(root: Path, data_file: Path) -> dict[str, object]:
    """The combined coverage data as {module: {line: [test index]}} and the tests."""
    from coverage import CoverageData  # noqa: PLC0415 - only where a map is made

    data = CoverageData(basename=str(data_file))
    data.read()
    tests: dict[str, int] = {}
    lines: dict[str, dict[str, list[int]]] = {}
    for filename in sorted(data.measured_files()):
        module = Path(filename).resolve().relative_to(root.resolve()).as_posix()
        rows = lines.setdefault(module, {})
        for line, labels in data.contexts_by_lineno(filename).items():
            ids = {portable(test, str(root)) for label in labels
                   for test in test_ids(label, root)}
            rows[str(line)] = sorted(tests.setdefault(test, len(tests)) for test in ids)
    return {"digest": source_digest(root), "tests": list(tests), "lines": lines}


def test_ids(label: str, root: Path) -> set[str]:
    """The node ids a coverage context names: a node id (a test's process) or a
    qualified test function (`tests.cli.test_x.TestY.test_z`, the test's own)."""
    found = set()
    for part in label.split("|"):
        if "::" in part:
            found.add(part)
        elif part.startswith("tests."):
            node = _node_of(part.split("."), root)
            if node:
                found.add(node)
    return found


def _node_of(parts: list[str], root: Path) -> str | None:
    for cut in range(len(parts) - 1, 0, -1):
        if (root / Path(*parts[:cut])).with_suffix(".py").is_file():
            return "/".join(parts[:cut]) + ".py::" + "::".join(parts[cut:])
    return None


def save(root: Path, coverage_map: dict[str, object]) -> None:
    path = root / MAP_FILE
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(coverage_map, separators=(",", ":")))
    os.replace(temporary, path)


def load(root: Path, *, stale: bool = False) -> dict[str, object] | None:
    """The saved map if it was made from the sources as they are now (with `stale`,
    whatever they were: for a report, never to choose a mutant's tests), else None."""
    try:
        coverage_map = json.loads((root / MAP_FILE).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(coverage_map, dict) or (not stale and coverage_map.get("digest") !=
                                              source_digest(root)):
        return None
    seconds = coverage_map.get("seconds")
    coverage_map["seconds"] = _with_functions(seconds if isinstance(seconds, dict) else {})
    return coverage_map


def tests_reaching(coverage_map: dict[str, object], module: str, lines: Iterable[int]
                   ) -> list[str]:
    """The node ids of the tests that executed any of `lines` of `module`, quickest
    first (as the map's run timed them; a test without a time last), then by name."""
    table = coverage_map["lines"]
    names = coverage_map["tests"]
    seconds = coverage_map.get("seconds") or {}
    assert isinstance(table, dict)
    assert isinstance(names, list)
    assert isinstance(seconds, dict)
    rows = table.get(module, {})
    chosen = {names[index] for line in lines for index in rows.get(str(line), ())}
    return sorted(chosen, key=lambda test: (seconds.get(test, float("inf")), test))


def _with_functions(seconds: dict[str, float]) -> dict[str, float]:
    """The times, and for each parametrized test its name without parameters (as the
    test's own process records it) with its quickest parametrization's time."""
    functions: dict[str, float] = {}
    for name, value in seconds.items():
        function = name.split("[", 1)[0]
        if function != name:
            functions[function] = min(value, functions.get(function, value))
    return {**functions, **seconds}
