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

Hypothesis's own clock budgets (a deadline per example, the too_slow health check) are
off for the whole suite (tests/conftest.py); a `deadline=` other than None is found too.

Forbidden, and found by `timed_assertions` below: outside a loop, an `assert` (or an
`if` that raises or calls `pytest.fail`) whose comparison puts a clock reading, a value
computed from one, or a duration attribute (`.elapsed`, `.seconds`, ...) on the smaller
side (`elapsed < 10`, `10 > elapsed`, `elapsed == 5`). To show that work stays linear,
count it (`tests/work.py` counts Python calls) rather than time it.

A bound must also fit its test: a wait inside a test (`timeout=`, `within=`, also in a
function of the same file the test calls) longer than the test's own bound (its mark,
the module's `pytestmark`, or the default in pyproject.toml) is found by
`outlasting_waits`: the bound would kill the test first and hide the wait's message.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

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


def clock_budgets(source: str, name: str = "<test>") -> list[str]:
    """`name:line` of each Hypothesis deadline set to a duration: a time limit per
    example, which the suite's profile (tests/conftest.py) turns off."""
    return [f"{name}:{node.lineno}" for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Call)
            for keyword in node.keywords
            if keyword.arg == "deadline"
            and not (isinstance(keyword.value, ast.Constant) and keyword.value.value is None)]


def suite_files() -> list[Path]:
    """Every Python file of the suite; hidden folders (`.npm`, `.clients`) hold what
    .ci/run installs, not tests."""
    return sorted(path for path in (REPO / "tests").rglob("*.py")
                  if not any(part.startswith(".") for part in path.relative_to(REPO).parts))


def test_no_test_asserts_on_elapsed_wall_time() -> None:
    found = [hit for path in suite_files()
             for check in (timed_assertions, clock_budgets)
             for hit in check(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)))]
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
    "a hypothesis deadline": """
        @settings(max_examples=50, deadline=timedelta(milliseconds=500))
        def test_x(value):
            pass
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
    "no hypothesis deadline": """
        @settings(max_examples=300, deadline=None)
        def test_x(value):
            pass
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


def found(source: str) -> list[str]:
    return timed_assertions(source) + clock_budgets(source)


@pytest.mark.parametrize("case", sorted(FORBIDDEN))
def test_the_scan_finds_each_form_of_timed_assertion(case: str) -> None:
    assert found(textwrap.dedent(FORBIDDEN[case])) != []


@pytest.mark.parametrize("case", sorted(ALLOWED))
def test_the_scan_allows_each_bound_on_a_wait(case: str) -> None:
    assert found(textwrap.dedent(ALLOWED[case])) == []


def test_hypothesis_keeps_no_clock_budget() -> None:
    """The suite's profile is loaded for every test: no deadline, no too_slow check."""
    assert settings().deadline is None
    assert HealthCheck.too_slow in settings().suppress_health_check


def test_the_scan_reads_every_test_folder() -> None:
    folders = {path.relative_to(REPO / "tests").parts[0] for path in suite_files()}
    assert {"protocol", "cli", "syntax", "conftest.py", "processes.py"} <= folders


# --- each test's bound covers the waits inside it ---------------------------------------

# Calls that block until something ends, whose `timeout=` (or first argument, for
# `wait` and `join`) is how long the test is prepared to wait.
WAITS = frozenset({"run", "check_output", "check_call", "call", "communicate", "wait",
                   "join", "run_mcpctl", "read_until_closed"})


def default_timeout() -> float:
    for line in (REPO / "pyproject.toml").read_text(encoding="utf-8").splitlines():
        if line.startswith("timeout = "):
            return float(line.split("=")[1])
    raise AssertionError("pyproject.toml sets no default timeout")


def _number(node: ast.expr) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    return None


def _waits_in(function: ast.AST) -> list[float]:
    """The literal bounds of the blocking calls in `function`'s body."""
    found = []
    for node in ast.walk(function):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else (
            node.func.id if isinstance(node.func, ast.Name) else "")
        if name not in WAITS:
            continue
        bounds = [keyword.value for keyword in node.keywords
                  if keyword.arg in ("timeout", "within")]
        if name in ("wait", "join") and node.args:
            bounds.append(node.args[0])
        found += [value for bound in bounds if (value := _number(bound)) is not None]
    return found


def _mark_timeout(decorators: list[ast.expr]) -> float | None:
    for decorator in decorators:
        for node in ast.walk(decorator):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "timeout" and node.args):
                return _number(node.args[0])
    return None


def outlasting_waits(source: str, name: str, default: float) -> list[str]:
    """Tests in `source` with a wait (their own, or in a function of the same file they
    call) longer than the test's bound: the bound would kill the test first, and the
    wait's own message would never be seen (the fresh-clone test, issue 25)."""
    tree = ast.parse(source)
    module_bound = default
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == "pytestmark"
                for target in node.targets):
            module_bound = _mark_timeout([node.value]) or default
    helpers = {node.name: max(_waits_in(node), default=0.0) for node in ast.walk(tree)
               if isinstance(node, ast.FunctionDef)}
    found = []
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef) and node.name.startswith("test_")):
            continue
        bound = _mark_timeout(node.decorator_list) or module_bound
        called = {inner.func.id for inner in ast.walk(node)
                  if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)}
        longest = max([*_waits_in(node), *(helpers.get(helper, 0.0) for helper in called)],
                      default=0.0)
        if longest > bound:
            found.append(f"{name}::{node.name} waits up to {longest:g} s within a bound of "
                         f"{bound:g} s")
    return found


def test_every_wait_fits_inside_its_tests_bound() -> None:
    default = default_timeout()
    found = [hit for path in suite_files()
             for hit in outlasting_waits(path.read_text(encoding="utf-8"),
                                         str(path.relative_to(REPO)), default)]
    assert found == [], "give these @pytest.mark.timeout(N) above the wait: " + "; ".join(found)


def test_a_wait_longer_than_the_bound_is_found() -> None:
    source = textwrap.dedent("""
        import subprocess
        def clone(into):
            subprocess.run(["git", "clone"], timeout=200, check=True)
        def test_fresh_clone(tmp_path):
            clone(tmp_path)
            done = subprocess.run(["uv", "run", "pytest"], timeout=900, check=False)
        @pytest.mark.timeout(1000)
        def test_marked():
            subprocess.run(["uv", "run", "pytest"], timeout=900, check=False)
        def test_helper_only(tmp_path):
            clone(tmp_path)
        def test_short(process):
            process.wait(30)
        """)
    assert outlasting_waits(source, "t.py", 120) == [
        "t.py::test_fresh_clone waits up to 900 s within a bound of 120 s",
        "t.py::test_helper_only waits up to 200 s within a bound of 120 s"]
    marked = "pytestmark = pytest.mark.timeout(600)\n" + source
    assert outlasting_waits(marked, "t.py", 120) == [
        "t.py::test_fresh_clone waits up to 900 s within a bound of 600 s"]
