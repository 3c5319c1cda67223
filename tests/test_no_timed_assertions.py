"""No test asserts on elapsed wall time (issue 25).

A clock budget in a test fails for the machine's load, not for a defect: the suite once
went red on a busy 2-core machine because a run that takes 3 s idle took 14 s. Speed is
measured in `bench/`. What a test may do with time is bound a wait, so that a hang
fails instead of stalling the run, with a bound at least 10x the idle time. The allowed
forms:

- a timeout on the wait itself: `subprocess.run(..., timeout=60)`, `process.wait(30)`,
  `communicate(timeout=...)`, `select(..., 10)`, `Event.wait(10)`;
- a deadline inside a polling loop: `tests.processes.wait_for(condition, within=30,
  what=...)`, or a `while` loop that checks `time.monotonic()` against a deadline in
  its condition or its body;
- a per-test bound: `@pytest.mark.timeout(N)` (module-wide as `pytestmark`), for a test
  whose failure mode is a hang, or the suite's default timeout for every other test;
- a lower bound: `assert waited >= GRACE` (that a wait lasted at least its documented
  time). Load only lengthens a wait, so a lower bound cannot fail for load.

Forbidden, and found by `timed_assertions` below: outside a loop, an `assert` (or an
`if` that raises or calls `pytest.fail`) whose comparison puts a clock reading, a value
computed from one, or a duration attribute (`.elapsed`, `.seconds`, ...) on the smaller
side (`elapsed < 10`, `10 > elapsed`, `elapsed == 5`). To show that work stays linear,
count it (`tests/steps.py` counts executed lines) rather than time it.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CLOCKS = frozenset({"monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns", "time",
                    "time_ns", "process_time", "process_time_ns", "thread_time",
                    "thread_time_ns", "now", "utcnow", "timeit", "default_timer"})
CLOCK_MODULES = frozenset({"time", "datetime", "timeit", "loop"})
# Attributes that hold a duration measured by the code under test.
DURATIONS = frozenset({"elapsed", "seconds", "first_answer", "waited", "wall", "duration"})
# A comparison `small OP big` for each operator (`a > b` is `b < a`).
UPPER = (ast.Lt, ast.LtE)
LOWER = (ast.Gt, ast.GtE)
EXACT = (ast.Eq,)


def _is_clock_call(node: ast.AST, clock_names: set[str]) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Name):
        return func.id in clock_names
    if not isinstance(func, ast.Attribute) or func.attr not in CLOCKS:
        return False
    owner = func.value
    while isinstance(owner, ast.Attribute):  # datetime.datetime.now, self.loop.time
        if owner.attr in CLOCK_MODULES:
            return True
        owner = owner.value
    return isinstance(owner, ast.Name) and owner.id in CLOCK_MODULES | {"datetime"}


def _timed(node: ast.AST, names: set[str], clock_names: set[str]) -> bool:
    """Whether `node` reads a clock, a name computed from one, or a duration attribute."""
    for inner in ast.walk(node):
        if _is_clock_call(inner, clock_names):
            return True
        if isinstance(inner, ast.Name) and inner.id in names:
            return True
        if isinstance(inner, ast.Attribute) and inner.attr in DURATIONS:
            return True
    return False


def _assigned(target: ast.AST) -> Iterator[str]:
    for inner in ast.walk(target):
        if isinstance(inner, ast.Name):
            yield inner.id


def _timed_names(tree: ast.AST, clock_names: set[str]) -> set[str]:
    """Names assigned anywhere from a timed expression, to a fixed point (a file is
    small, and each round adds a name or ends)."""
    names: set[str] = set()
    while True:
        before = len(names)
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.NamedExpr):
                value = node.value
                if value is None or not _timed(value, names, clock_names):
                    continue
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    names.update(_assigned(target))
        if len(names) == before:
            return names


def _upper_bounds(compare: ast.Compare, names: set[str], clock_names: set[str], *,
                  failing: bool) -> bool:
    """Whether some link of `compare` bounds a timed value from above, or pins it. A
    `failing` comparison is the one that must not hold (`if elapsed > 3: fail`)."""
    upper, lower = (LOWER, UPPER) if failing else (UPPER, LOWER)
    sides = [compare.left, *compare.comparators]
    for op, left, right in zip(compare.ops, sides[:-1], sides[1:], strict=True):
        if isinstance(op, upper + EXACT) and _timed(left, names, clock_names):
            return True
        if isinstance(op, lower + EXACT) and _timed(right, names, clock_names):
            return True
    return False


def _fails(body: list[ast.stmt]) -> bool:
    """Whether a block raises or calls `pytest.fail`."""
    for statement in body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Raise):
                return True
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "fail"):
                return True
    return False


def _checks(tree: ast.AST) -> Iterator[tuple[ast.expr, bool, bool]]:
    """Each assertion's test, or a failing `if`'s, with whether it lies in a loop and
    whether it is the failing case (an `if`) rather than the one that must hold."""

    def visit(node: ast.AST, in_loop: bool) -> Iterator[tuple[ast.expr, bool, bool]]:
        if isinstance(node, ast.Assert):
            yield node.test, in_loop, False
        elif isinstance(node, ast.If) and _fails(node.body):
            yield node.test, in_loop, True
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            in_loop = False  # a loop around a definition does not loop its body
        elif isinstance(node, ast.While | ast.For | ast.AsyncFor):
            in_loop = True
        for child in ast.iter_child_nodes(node):
            yield from visit(child, in_loop)

    yield from visit(tree, False)


def timed_assertions(source: str, name: str = "<test>") -> list[str]:
    """`name:line` of each assertion on elapsed wall time in `source`."""
    tree = ast.parse(source)
    clock_names = {alias.asname or alias.name for node in ast.walk(tree)
                   if isinstance(node, ast.ImportFrom) and node.module in ("time", "timeit")
                   for alias in node.names if alias.name in CLOCKS}
    names = _timed_names(tree, clock_names)
    return [f"{name}:{test.lineno}" for test, in_loop, failing in _checks(tree) if not in_loop
            for compare in ast.walk(test)
            if isinstance(compare, ast.Compare)
            and _upper_bounds(compare, names, clock_names, failing=failing)]


def suite_files() -> list[Path]:
    """Every Python file of the suite; hidden folders (`.npm`, `.clients`) hold what
    .ci/run installs, not tests."""
    return sorted(path for path in (REPO / "tests").rglob("*.py")
                  if not any(part.startswith(".") for part in path.relative_to(REPO).parts))


def test_no_test_asserts_on_elapsed_wall_time() -> None:
    found = [hit for path in suite_files()
             for hit in timed_assertions(path.read_text(encoding="utf-8"),
                                         str(path.relative_to(REPO)))]
    assert found == [], ("assertions on elapsed wall time (bound the wait instead; see "
                         "tests/test_no_timed_assertions.py): " + ", ".join(found))


FORBIDDEN = {
    "budget": """
        started = time.monotonic()
        work()
        assert time.monotonic() - started < 10
        """,
    "derived name": """
        began = time.perf_counter()
        work()
        waited = time.perf_counter() - began
        assert 5.0 <= waited < 5.8
        """,
    "imported clock": """
        from time import monotonic as now
        t0 = now()
        work()
        assert 10 > now() - t0
        """,
    "reported duration": """
        failure = run_failure(plan)
        assert failure.elapsed < plan.timeout + 5
        """,
    "ratio of two timings": """
        one = time.perf_counter(); scan(); one = time.perf_counter() - one
        start = time.perf_counter(); edit(); spent = time.perf_counter() - start
        assert spent < 10 * one + 0.5
        """,
    "failing if": """
        started = time.time()
        work()
        if time.time() - started > 3:
            pytest.fail("too slow")
        """,
    "pinned": """
        assert result.seconds == 5
        """,
    "loop around a definition": """
        for case in cases:
            def check():
                assert time.monotonic() - started < 1
        """,
    "datetime": """
        began = datetime.datetime.now()
        work()
        assert (datetime.datetime.now() - began).total_seconds() < 2
        """,
}

ALLOWED = {
    "timeout on the wait": """
        done = subprocess.run(argv, timeout=60, check=False)
        assert done.returncode == 0
        """,
    "deadline in a polling loop": """
        deadline = time.monotonic() + 30
        while not ended:
            assert time.monotonic() < deadline, "the reader never reported the end"
            time.sleep(0.01)
        """,
    "deadline in a loop condition": """
        deadline = time.monotonic() + 10
        while len(survivors()) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        """,
    "raise at a deadline in a loop": """
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError("not within 30 s")
        """,
    "lower bound": """
        started = time.monotonic()
        code = bridge.finish()
        waited = time.monotonic() - started
        assert waited >= EOF_GRACE
        assert EOF_GRACE <= waited
        assert result.elapsed - result.first_answer > 0
        """,
    "a mark": """
        @pytest.mark.timeout(60)
        def test_x():
            assert run() == 0
        """,
    "an unrelated comparison": """
        assert len(tools) < 10
        assert time.sleep is not None
        """,
}


@pytest.mark.parametrize("case", sorted(FORBIDDEN))
def test_the_scan_finds_each_form_of_timed_assertion(case: str) -> None:
    assert timed_assertions(textwrap.dedent(FORBIDDEN[case])) != []


@pytest.mark.parametrize("case", sorted(ALLOWED))
def test_the_scan_allows_each_bound_on_a_wait(case: str) -> None:
    assert timed_assertions(textwrap.dedent(ALLOWED[case])) == []


def test_the_scan_reads_every_test_folder() -> None:
    folders = {path.relative_to(REPO / "tests").parts[0] for path in suite_files()}
    assert {"protocol", "cli", "syntax", "conftest.py", "processes.py"} <= folders
