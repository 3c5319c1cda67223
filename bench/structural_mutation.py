"""Structural mutation testing of the security core (issue 30; by hand, not in CI).

`bench/mutation.py` swaps operators (`<` for `<=`) in a dozen modules and runs a few
chosen test files per mutant. Real bugs are rarely an operator: a check left out, a
class of files skipped, a bound made wider, a prefix compared where the whole value
should be, a context argument dropped, the wrong environment passed. This tool makes
those mutants from each module's syntax tree and runs every one against the whole
suite, in copies of the checkout (never the real tree), several copies side by side.

Operators (each mutant changes one place):
  drop-if        an `if` without `else` removed, with its body: a check left out
  if-true        an `if`'s test made `True`: the branch always taken
  if-false       an `if`'s test made `False`: its `else` always taken (an `if` without
                 `else` has only drop-if, which is the same mutant)
  drop-raise     a `raise` statement replaced by `pass`
  drop-call      a call made as a statement (`check(x)`) replaced by `pass`
  return-early   `return` first in a function that returns nothing: it does nothing
  skip-loop      `continue` first in a loop's body: a class of items skipped
  widen-bound    an UPPER_CASE number constant multiplied by 16
  prefix-eq      `a == b` / `a != b` on two strings compares their first 8 characters
  prefix-starts  `x.startswith(y)` with a string `y` drops its last character
  drop-keyword   one keyword argument of a call left out (its default used instead)
  os-environ     an `environ`/`env` argument replaced by `os.environ`

Each copy has its own environment (`uv sync`), as a fresh clone would. With a
coverage map of the current sources (`--map` makes one: `bench/coverage_map.py`), each
mutant first runs the tests that executed one of its lines; a mutant they do not kill
runs `pytest -x` over the whole suite, the tests of the module's own folder first. A
mutant is killed when a run fails (or hangs past the timeout), survived when the whole
suite passes. `--reaching-only` stops after the first run and counts a mutant it left
alive as an unconfirmed survivor, so the score it prints is a lower bound.
Results are kept in a committed file keyed by the module's content and the mutant, so a run
stopped half-way resumes where it was, and a later commit re-runs only what changed: a
module that changed, or a survivor whose reaching tests did (its verdict is kept with a
digest of their files). The equivalents judged by hand (`structural_equivalents.py`)
are not run, nor the few mutants that would harm the machine if planted (`UNSAFE`
there: each counts as a survivor).

Most mutants die at the first test that fails, and that test is usually one that
killed a mutant a few lines away. So the test that killed each mutant is kept too
(`bench/structural-killers.json`, a hint, never a verdict), and a mutant's run starts
with the few tests that killed its module's nearest mutants (those that reach it first:
the map cannot see a `run` that execs its server or is ended by a signal, so a test it
does not list may still kill), then the other reaching tests, quickest first (the map
times each test), in one `pytest -x`: a killed mutant then costs the start of one
process and the tests up to its killer.

    uv run python bench/structural_mutation.py --list               # count, run nothing
    uv run python bench/structural_mutation.py                      # every module (hours)
    uv run python bench/structural_mutation.py pinning/git.py paths.py --jobs 2
    uv run python bench/structural_mutation.py --map                # map, then every module
    uv run python bench/structural_mutation.py --reaching-only      # quick lower bound
    uv run python bench/structural_mutation.py --map --sample 150   # an estimate, in an hour

Exit status: 0 when no unrecorded survivor is left, 1 when one is, 2 on bad arguments or
when the suite fails before any mutation (the score would mean nothing).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import dataclasses
import hashlib
import json
import os
import py_compile
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import coverage_contexts, coverage_map
from bench.mutation import copy_checkout
from bench.structural_equivalents import COST, EQUIVALENT, EQUIVALENT_ANYWHERE, UNSAFE

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "mcpctl"
# The modules issue 30 names: folders stand for every module in them.
SCOPE = ("pinning", "trust", "launch.py", "cli/hand_parse.py", "cli/run_start.py",
         "cli/list_start.py", "clients/guarded.py", "clients/write", "credentials",
         "protocol", "sha256.py", "paths.py")
# Both files are committed: the whole scope takes longer than any one sitting, so each
# run adds to the verdicts of the runs before it, on any later checkout.
RESULTS = REPO / "bench" / "structural-verdicts.json"
# Which test killed which mutant: module → [line, node id]. Only the order tests run in
# comes from it, so a stale one costs time, never a verdict.
KILLERS = REPO / "bench" / "structural-killers.json"
FIRST_TRIES = 4  # the nearest mutants' killers, run first
MUTANT_TIMEOUT = 900.0
MAP_TIMEOUT = 7200.0  # the whole suite under coverage, once
UNCONFIRMED = "unconfirmed"  # alive under the tests that reach it; the rest not run
PREFIX = 8
# The helpers the prefix operators call, put after the module's docstring and
# `__future__` imports: strings compared by their first characters only, and a
# `startswith` argument without its last character (`"/ws/"` → `"/ws"`).
HELPER = ("def _mutant_prefix_eq(a, b):\n"
          "    if isinstance(a, str) and isinstance(b, str):\n"
          f"        return a[:{PREFIX}] == b[:{PREFIX}]\n"
          "    return a == b\n\n"
          "def _mutant_shorter(a):\n"
          "    return a[:-1] if isinstance(a, str) and a else a\n")
HELPED = ("prefix-eq", "prefix-starts")


@dataclass(frozen=True)
class Mutant:
    module: str  # relative to the repository, e.g. mcpctl/pinning/git.py
    operator: str
    line: int
    index: int  # the n-th place this operator applies in the module (stable per content)
    source: str  # the original line, stripped
    # The lines one of which must run for the mutant to change anything (its tests are
    # those the coverage map says ran one of them); not part of its identity.
    reach: tuple[int, ...] = dataclasses.field(default=(), compare=False)
    # Of the module's mutants of this operator on a line of this text, which one (0 for
    # the first): an equivalent is recorded by the text, " #2" after it for the second.
    twin: int = dataclasses.field(default=0, compare=False)

    @property
    def key(self) -> str:
        return f"{self.module}:{self.operator}:{self.index}"


def _recorded_source(mutant: Mutant) -> str:
    return mutant.source if not mutant.twin else f"{mutant.source} #{mutant.twin + 1}"


def equivalent(mutant: Mutant) -> str | None:
    """Why the mutant behaves as the original does, if it is recorded as such."""
    return EQUIVALENT.get((mutant.module, mutant.operator, _recorded_source(mutant))) \
        or EQUIVALENT_ANYWHERE.get((mutant.operator, mutant.source.split("  #")[0]))


def unsafe(mutant: Mutant) -> str | None:
    """Why the mutant is never planted, if it would harm the machine the run is on."""
    return UNSAFE.get((mutant.module, mutant.operator, _recorded_source(mutant)))


# --- making mutants -------------------------------------------------------------------


def _is_str_constant(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _returns_nothing(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for node in ast.walk(function):
        if isinstance(node, ast.Return) and node.value is not None:
            return False
        if isinstance(node, ast.Yield | ast.YieldFrom):
            return False
    return function.returns is None or (
        isinstance(function.returns, ast.Constant) and function.returns.value is None)


def _docstring_only(body: list[ast.stmt]) -> bool:
    return len(body) == 1 and isinstance(body[0], ast.Expr) and _is_str_constant(body[0].value)


def sites(tree: ast.Module) -> Iterator[tuple[str, ast.AST, Callable[[ast.AST], object]]]:
    """(operator, node, change) for every place an operator applies, in source order.
    `change(node)` edits the node in place (the tree is a copy per mutant)."""
    for node in ast.walk(tree):
        yield from _sites_of(node)


def _sites_of(node: ast.AST) -> Iterator[tuple[str, ast.AST, Callable[[ast.AST], object]]]:
    if isinstance(node, ast.If):
        yield "if-true", node, lambda n: setattr(n, "test", ast.Constant(True))
        if node.orelse:
            yield "if-false", node, lambda n: setattr(n, "test", ast.Constant(False))
        else:  # `if False:` with no `else` is the if removed: one mutant, not two
            yield "drop-if", node, _drop_if
    elif isinstance(node, ast.Raise):
        yield "drop-raise", node, _to_pass
    elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        yield "drop-call", node, _to_pass
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        if _returns_nothing(node) and not _docstring_only(node.body) \
                and node.name != "__init__":
            yield "return-early", node, _return_early
    elif isinstance(node, ast.For | ast.AsyncFor | ast.While):
        yield "skip-loop", node, _skip_loop
    elif isinstance(node, ast.Assign) and _is_bound(node):
        yield "widen-bound", node, _widen
    elif isinstance(node, ast.Compare) and len(node.ops) == 1 \
            and isinstance(node.ops[0], ast.Eq | ast.NotEq) and _may_be_strings(node) \
            and not _short_constant(node):
        yield "prefix-eq", node, _prefix_eq
    elif isinstance(node, ast.Call):
        yield from _call_sites(node)


def _call_sites(node: ast.Call) -> Iterator[tuple[str, ast.AST, Callable[[ast.AST], object]]]:
    function = node.func
    if isinstance(function, ast.Attribute) and function.attr in ("startswith", "endswith") \
            and len(node.args) == 1 and not isinstance(node.args[0], ast.Tuple):
        yield "prefix-starts", node, _shorter_argument
    for index, keyword in enumerate(node.keywords):
        if keyword.arg is not None:
            yield "drop-keyword", keyword, _dropper(node, index)
        if isinstance(keyword.value, ast.Name) and keyword.value.id in ("environ", "env"):
            yield "os-environ", keyword, _environ_in_keyword
    for index, argument in enumerate(node.args):
        if isinstance(argument, ast.Name) and argument.id in ("environ", "env"):
            yield "os-environ", argument, _environ_in_argument(node, index)


def _is_bound(node: ast.Assign) -> bool:
    """`NAME = 64 * 1024` at any level, the name upper case, the value a number."""
    if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
        return False
    name = node.targets[0].id
    if not name.lstrip("_").isupper():
        return False
    try:
        value = ast.literal_eval(ast.unparse(node.value))
    except (ValueError, SyntaxError, TypeError):
        return _arithmetic(node.value)
    return isinstance(value, int | float) and not isinstance(value, bool) and value != 0


def _arithmetic(node: ast.expr) -> bool:
    if isinstance(node, ast.BinOp):
        return _arithmetic(node.left) and _arithmetic(node.right)
    return isinstance(node, ast.Constant) and isinstance(node.value, int | float)


def _may_be_strings(node: ast.Compare) -> bool:
    """Not when either side is a number, None, a bool, a collection or a length."""
    for side in (node.left, node.comparators[0]):
        if isinstance(side, ast.Constant) and not isinstance(side.value, str):
            return False
        if isinstance(side, ast.List | ast.Tuple | ast.Set | ast.Dict | ast.ListComp
                      | ast.SetComp | ast.DictComp | ast.BinOp | ast.UnaryOp):
            return False
        if isinstance(side, ast.Call) and isinstance(side.func, ast.Name) \
                and side.func.id in ("len", "int", "float", "type", "id", "sum"):
            return False
    return True


def _short_constant(node: ast.Compare) -> bool:
    """A side that is a string of at most PREFIX characters: then `a[:PREFIX] ==
    b[:PREFIX]` holds only when `a == b`, and the mutant is equivalent by construction."""
    return any(_is_str_constant(side) and len(side.value) <= PREFIX  # type: ignore[attr-defined]
               for side in (node.left, node.comparators[0]))


def _drop_if(node: ast.AST) -> None:
    assert isinstance(node, ast.If)
    node.test, node.body = ast.Constant(False), [ast.Pass()]


def _to_pass(node: ast.AST) -> ast.AST:
    return ast.copy_location(ast.Pass(), node)


def _return_early(node: ast.AST) -> None:
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    first = 1 if node.body and isinstance(node.body[0], ast.Expr) \
        and _is_str_constant(node.body[0].value) else 0
    node.body.insert(first, ast.Return(None))


def _skip_loop(node: ast.AST) -> None:
    assert isinstance(node, ast.For | ast.AsyncFor | ast.While)
    node.body.insert(0, ast.Continue())


def _widen(node: ast.AST) -> None:
    assert isinstance(node, ast.Assign)
    node.value = ast.BinOp(node.value, ast.Mult(), ast.Constant(16))


def _prefix_eq(node: ast.AST) -> ast.AST:
    assert isinstance(node, ast.Compare)
    call: ast.expr = ast.Call(ast.Name("_mutant_prefix_eq", ast.Load()),
                              [node.left, node.comparators[0]], [])
    if isinstance(node.ops[0], ast.NotEq):
        call = ast.UnaryOp(ast.Not(), call)
    return ast.copy_location(call, node)


def _shorter_argument(node: ast.AST) -> None:
    assert isinstance(node, ast.Call)
    node.args[0] = ast.Call(ast.Name("_mutant_shorter", ast.Load()), [node.args[0]], [])


def _dropper(call: ast.Call, index: int) -> Callable[[ast.AST], None]:
    def drop(_: ast.AST) -> None:
        del call.keywords[index]

    return drop


def _environ_in_keyword(node: ast.AST) -> None:
    assert isinstance(node, ast.keyword)
    node.value = _os_environ()


def _environ_in_argument(call: ast.Call, index: int) -> Callable[[ast.AST], None]:
    def swap(_: ast.AST) -> None:
        call.args[index] = _os_environ()

    return swap


def _os_environ() -> ast.expr:
    return ast.parse("__import__('os').environ", mode="eval").body


def mutants_of(module: str, text: str) -> list[Mutant]:
    tree = ast.parse(text)
    lines = text.splitlines()
    statements = _statements_of(tree)
    counts: dict[str, int] = {}
    found = []
    for operator, node, _ in sites(tree):
        index = counts[operator] = counts.get(operator, -1) + 1
        line = getattr(node, "lineno", 0)
        found.append(Mutant(module, operator, line, index,
                            lines[line - 1].strip() if line else "",
                            reach_of(node, tree, statements)))
    found.sort(key=lambda m: (m.line, m.operator, m.index))
    seen: dict[tuple[str, str], int] = {}
    for position, mutant in enumerate(found):
        same = (mutant.operator, mutant.source)
        twin = seen[same] = seen.get(same, -1) + 1
        if twin:
            found[position] = dataclasses.replace(mutant, twin=twin)
    return found


def _statements_of(tree: ast.Module) -> dict[int, ast.stmt]:
    """Each node's innermost enclosing statement, by the node's id."""
    enclosing: dict[int, ast.stmt] = {}

    def visit(node: ast.AST, statement: ast.stmt | None) -> None:
        if isinstance(node, ast.stmt):
            statement = node
        if statement is not None:
            enclosing[id(node)] = statement
        for child in ast.iter_child_nodes(node):
            visit(child, statement)

    visit(tree, None)
    return enclosing


def reach_of(node: ast.AST, tree: ast.Module, statements: dict[int, ast.stmt]
             ) -> tuple[int, ...]:
    """The lines whose execution the mutant needs to matter. Coverage records a line
    when a statement starting there (or a line of a multi-line one) runs, so an
    expression counts from its statement's first line."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        body = [s for s in node.body
                if not (isinstance(s, ast.Expr) and _is_str_constant(s.value))]
        return _span(body[0]) if body else ()  # run on every call; the def at import
    if isinstance(node, ast.For | ast.AsyncFor | ast.While):
        return _span(node.body[0])  # the body runs once at least
    if isinstance(node, ast.If):
        return _span(node.test)
    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
        name = node.targets[0].id  # a bound: where the module reads it
        used = {n.lineno for n in ast.walk(tree)
                if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)}
        # Read only by other modules (`from .x import NAME`): the tests that load this
        # one, which run the assignment at import.
        return tuple(sorted(used)) or _span(node)
    statement = statements.get(id(node))
    first = getattr(node, "lineno", 0)
    if statement is not None:  # a decorator's lines come before its `def` or `class`
        first = min(first, statement.lineno) if first else statement.lineno
    return tuple(range(first, (getattr(node, "end_lineno", None) or first) + 1))


def _span(node: ast.AST) -> tuple[int, ...]:
    first = getattr(node, "lineno", 0)
    return tuple(range(first, (getattr(node, "end_lineno", None) or first) + 1))


def mutated_source(text: str, mutant: Mutant) -> str:
    """The module's source with `mutant` applied (formatting is ast.unparse's)."""
    tree = ast.parse(text)
    seen = -1
    for operator, node, change in sites(tree):
        if operator != mutant.operator:
            continue
        seen += 1
        if seen == mutant.index:
            _apply(tree, node, change)
            break
    else:
        raise LookupError(f"no such mutant: {mutant.key}")
    ast.fix_missing_locations(tree)
    body = ast.unparse(tree)
    return _with_helper(body) if mutant.operator in HELPED else body


def _apply(tree: ast.Module, node: ast.AST, change: Callable[[ast.AST], object]) -> None:
    replacement = change(node)
    if replacement is None or replacement is node:
        return
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if isinstance(value, list) and node in value:
                value[value.index(node)] = replacement
                return
            if value is node:
                setattr(parent, field, replacement)
                return
    raise LookupError("the mutated node has no parent")


def _with_helper(body: str) -> str:
    tree = ast.parse(body)
    at = 0
    for index, statement in enumerate(tree.body):
        docstring = index == 0 and isinstance(statement, ast.Expr) \
            and _is_str_constant(statement.value)
        future = isinstance(statement, ast.ImportFrom) and statement.module == "__future__"
        if docstring or future:
            at = index + 1
    lines = [ast.unparse(statement) for statement in tree.body]
    return "\n".join([*lines[:at], HELPER, *lines[at:]]) + "\n"


# --- running them ---------------------------------------------------------------------


def modules_in_scope(names: list[str]) -> list[str]:
    chosen = names or list(SCOPE)
    modules: list[str] = []
    for name in chosen:
        path = PACKAGE / name
        if path.is_dir():
            modules += sorted(str(p.relative_to(REPO)) for p in path.rglob("*.py"))
        elif path.is_file():
            modules.append(str(path.relative_to(REPO)))
        else:
            raise SystemExit(f"structural_mutation: no module or folder mcpctl/{name}")
    return list(dict.fromkeys(modules))


def first_tests(module: str) -> list[str]:
    """The tests mirroring the module's folder, then the whole suite."""
    parts = Path(module).relative_to("mcpctl").parts
    mirror = REPO / "tests" / Path(*parts[:-1]) if len(parts) > 1 \
        else REPO / "tests" / f"test_{Path(parts[0]).stem}.py"  # mcpctl/x.py: tests/test_x.py
    first = [str(mirror.relative_to(REPO))] if mirror.exists() else []
    return [*first, "tests"]


def prepare(root: Path) -> None:
    """A checkout of its own: the files (committed in a repository of the copy's own),
    the npm servers and clients as `.ci/run` puts them, and an environment (`uv sync`)
    whose console script and editable install are the copy's, so a test that starts
    `mcpctl` or judges where it lies sees the copy."""
    root.mkdir()
    copy_checkout(root)
    # A work tree of its own, as a clone is (the pre-commit hook's test commits in it).
    git = {**os.environ, "GIT_AUTHOR_NAME": "m", "GIT_AUTHOR_EMAIL": "m@example.test",
           "GIT_COMMITTER_NAME": "m", "GIT_COMMITTER_EMAIL": "m@example.test"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "the checkout"]):
        subprocess.run(["git", *args], cwd=root, env=git, check=True, timeout=300,
                       stdout=subprocess.DEVNULL)
    clients = REPO / "tests" / ".clients"
    if clients.is_dir():
        (root / "tests" / ".clients").symlink_to(clients)
    uv = shutil.which("uv") or "uv"
    subprocess.run([uv, "sync", "--locked", "--quiet"], cwd=root, check=True, timeout=900,
                   env={k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"})
    subprocess.run([str(root / ".venv" / "bin" / "python"), "-m", "compileall", "-q",
                    "mcpctl"], cwd=root, check=True, timeout=300)


def copy_environment(copy_root: Path) -> dict[str, str]:
    """The environment a copy's own tests run in."""
    venv = copy_root / ".venv"
    # No bytecode is written: a mutant's would outlive it. The pristine modules were
    # compiled once; a mutated one no longer matches its bytecode and is read as source.
    # This checkout's own environment (`uv run` put it on PATH) is not the copy's.
    path = [entry for entry in os.environ.get("PATH", "").split(os.pathsep)
            if entry and not Path(entry).is_relative_to(REPO)]
    env = {**os.environ, "PATH": os.pathsep.join([str(venv / "bin"), *path]),
           "VIRTUAL_ENV": str(venv), "PYTHONDONTWRITEBYTECODE": "1",
           "CI": os.environ.get("CI", "true")}
    env.pop("PYTHONPATH", None)
    return env


# pytest's exit codes that mean a test failed or the suite could not be run through:
# failures (1), an interruption such as an import error at collection (2), an internal
# error (3). A usage error (4) or no test run (5) says nothing about the mutant.
FAILED_RUN = frozenset({1, 2, 3})
# ...except the usage error pytest reports for a conftest that cannot be imported: a
# mutant that makes a module fail at import (a dataclass field without its default
# before one with it) fails every test, before any is collected.
_CONFTEST_BROKEN = "ImportError while loading conftest"


def run_suite(copy_root: Path, tests: list[str], timeout: float) -> tuple[str, str]:
    """"killed", "survived" or "undecided", and the first failing test's node id as
    pytest names it ("" if none is named; the baseline prints a failing run's tail)."""
    env = copy_environment(copy_root)
    command = [str(copy_root / ".venv" / "bin" / "python"), "-m", "pytest", "-x", "-q",
               "-p", "no:cacheprovider", *tests]
    try:
        done = _in_own_group(command, copy_root, env, timeout)
    except subprocess.TimeoutExpired:
        return "killed", ""  # a hang is caught by the suite's own bounds, or by this one
    if done.returncode != 0 and tests == ["tests"]:
        print(done.stdout[-4000:], file=sys.stderr)
    if done.returncode in FAILED_RUN:
        return "killed", first_failure(done.stdout)
    if done.returncode == 4 and _CONFTEST_BROKEN in done.stdout + done.stderr:
        return "killed", ""  # the mutant broke a module the suite's conftest imports
    if done.returncode != 0:
        print(f"structural_mutation: pytest ended {done.returncode} (not a verdict): "
              f"{done.stdout[-300:]}{done.stderr[-300:]}", file=sys.stderr)
        return "undecided", ""
    return "survived", ""


def _in_own_group(command: list[str], cwd: Path, env: dict[str, str],
                  timeout: float) -> subprocess.CompletedProcess[str]:
    """`command` run in a process group of its own, which is killed when it ends: a
    mutant that leaves a process spinning (a lock wait without its bound, started by a
    test that then timed out) would otherwise take a core from every later mutant. The
    output goes to files, so a process left behind holding them cannot delay the end."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=err,
                                   text=True, start_new_session=True)
        try:
            process.wait(timeout=timeout)
        finally:
            with contextlib.suppress(ProcessLookupError):  # none left behind
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(command, process.returncode, out.read(), err.read())


def first_failure(output: str) -> str:
    """The node id of the first test pytest's summary names as failed or in error."""
    for line in output.splitlines():
        for tag in ("FAILED ", "ERROR "):
            if line.startswith(tag):
                return line[len(tag):].split(" - ", 1)[0]
    return ""


def digest_of(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def load_results(path: Path) -> dict[str, Any]:
    """A JSON object kept by `save_results` (the verdicts, the killers), or {}."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_results(path: Path, results: Mapping[str, object]) -> None:
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(results, indent=1, sort_keys=True))
    os.replace(temporary, path)


def run_selected(copy_root: Path, tests: list[str], timeout: float = MUTANT_TIMEOUT
                 ) -> tuple[str, str]:
    """The tests the coverage map chose, in one process (a few tests gain nothing from
    workers, whose start costs seconds): their files collected, the tests kept and
    ordered as `tests` lists them by the plugin, from a file (they can be thousands)."""
    listing = copy_root / ".mutant-tests"
    listing.write_text("".join(f"{test}\n" for test in tests), encoding="utf-8")
    files = sorted({test.split("::", 1)[0] for test in tests})
    return run_suite(copy_root, ["-n", "0", "-p", "bench.coverage_contexts",
                                 f"--mutant-tests={listing}", *files], timeout)


def outcome_of(copy_root: Path, mutant: Mutant, chosen: list[str] | None, *,
               first: Sequence[str] = (), reaching_only: bool = False,
               budget: Callable[[Sequence[str]], float] = lambda _: MUTANT_TIMEOUT,
               ) -> tuple[str, str]:
    """Killed by the tests that reach the mutant (`first` of them first), else
    judged by the whole suite; with `reaching_only`, "unconfirmed" instead (counted as
    a survivor: the score is then a lower bound, which a later run without it can only
    raise). With the verdict, the test that killed it as the map names it, if known."""
    tests = [*first, *(test for test in chosen or () if test not in first)]
    if tests:
        verdict, failed = run_selected(copy_root, tests, budget(tests))
        if verdict == "killed":
            return verdict, _named(coverage_contexts.portable(failed, str(copy_root)), tests)
    if reaching_only and chosen is not None:
        return UNCONFIRMED, ""
    return run_suite(copy_root, first_tests(mutant.module), MUTANT_TIMEOUT)[0], ""


def _named(failed: str, tests: Sequence[str]) -> str:
    """Of `tests` (node ids, some without parameters), the one `failed` is."""
    if failed in tests:
        return failed
    unparametrized = failed.split("[", 1)[0]
    return unparametrized if unparametrized in tests else ""


def likely_killers(killers: dict[str, list[list[object]]], mutant: Mutant,
                   chosen: list[str]) -> list[str]:
    """Up to FIRST_TRIES tests that killed the module's mutants nearest to this one,
    nearest first: those that killed a mutant of this very line, then those that reach
    it, then the others. The map cannot see every process a test starts (a `run` that
    execs its server, or one ended by a signal, leaves no coverage), nor every line an
    in-process probe runs (it listed no test for the DELETE that ends an HTTP session,
    which a test asserts), so a test it says does not reach a line may still kill
    there."""
    reaching = set(chosen)
    rows = sorted(killers.get(mutant.module, []),
                  key=lambda row: abs(int(str(row[0])) - mutant.line))
    here = [test for line, test in rows
            if isinstance(test, str) and int(str(line)) == mutant.line]
    near = list(dict.fromkeys(test for _, test in rows if isinstance(test, str)))
    return list(dict.fromkeys([*here, *(test for test in near if test in reaching),
                               *(test for test in near if test not in reaching)]))[
        :FIRST_TRIES]


class Budget:
    """How long a mutant's chosen tests may run: four times what they took in the map's
    run, plus two minutes for the start and the collection, never past MUTANT_TIMEOUT.
    A mutant that hangs where no test's own bound can interrupt it (a `waitpid` for a
    process it never killed, repeated in a `finally`) is then ended at a few times its
    tests' time, not after the fixed 15 minutes; a hang is a kill either way."""

    UNTIMED = 30.0  # a test the map has no time for (a killer it does not list)

    def __init__(self, coverage_map: dict[str, object] | None) -> None:
        seconds = coverage_map.get("seconds") if coverage_map else None
        self.seconds: dict[str, float] = {}
        if isinstance(seconds, dict):
            # A name without parameters runs all of them: the sum of their times.
            for name, value in seconds.items():
                if "[" in name:
                    base = name.split("[", 1)[0]
                    self.seconds[base] = self.seconds.get(base, 0.0) + value
            self.seconds.update((k, v) for k, v in seconds.items() if k not in self.seconds)

    def of(self, tests: Sequence[str]) -> float:
        taken = sum(self.seconds.get(test, self.UNTIMED) for test in dict.fromkeys(tests))
        return min(MUTANT_TIMEOUT, 120.0 + 4.0 * taken)


class TestsNaming:
    """The tests that name a bound a mutant widens (`assert TIMEOUT == 30.0`, a test that
    lowers it). The map cannot list them: the bound's module is imported while pytest
    collects, before any test runs, and a default argument (`timeout=TIMEOUT`) is read
    at import too. They are run first, as a killer would be; with them a bound a test
    pins is killed in seconds, not left unconfirmed after every reaching test."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._found: dict[tuple[str, str], list[str]] = {}

    def of(self, mutant: Mutant) -> list[str]:
        name = mutant.source.partition("=")[0].strip()
        if mutant.operator != "widen-bound" or not name.isidentifier():
            return []
        key = (mutant.module, name)
        if key not in self._found:
            self._found[key] = self._search(mutant.module.removesuffix(".py")
                                            .replace("/", "."), name)
        return self._found[key]

    def _search(self, dotted: str, name: str) -> list[str]:
        found = []
        package, _, stem = dotted.rpartition(".")
        for path in sorted((self.root / "tests").rglob("test_*.py")):
            text = path.read_text(encoding="utf-8")
            if name not in text or (dotted not in text
                                    and f"from {package} import {stem}" not in text):
                continue
            relative = path.relative_to(self.root).as_posix()
            for node, prefix in _test_functions(ast.parse(text)):
                if any((isinstance(n, ast.Name) and n.id == name)
                       or (isinstance(n, ast.Attribute) and n.attr == name)
                       for n in ast.walk(node)):
                    found.append(f"{relative}::{prefix}{node.name}")
        return found[:FIRST_TRIES]


def _test_functions(tree: ast.Module) -> Iterator[tuple[ast.FunctionDef, str]]:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            yield node, ""
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for method in node.body:
                if isinstance(method, ast.FunctionDef) and method.name.startswith("test"):
                    yield method, f"{node.name}::"


class TestFiles:
    """Digests of the test files a verdict depended on. A survivor's verdict is kept with
    the digest of the files of the tests that reach it, and of every helper and
    conftest, so a test added or changed there runs it again; a kill stands. Of the
    tests in `root`: a copy's, which the mutant ran against, or this checkout's."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.helpers = sorted(str(path.relative_to(root))
                              for path in (root / "tests").rglob("*.py")
                              if not path.name.startswith("test_") and not any(
                                  part.startswith(".") for part in path.relative_to(root).parts))
        self._digests: dict[str, bytes] = {}

    def _digest(self, name: str) -> bytes:
        if name not in self._digests:
            try:
                self._digests[name] = hashlib.sha256((self.root / name).read_bytes()).digest()
            except OSError:
                self._digests[name] = b"-"
        return self._digests[name]

    def of(self, chosen: list[str]) -> str:
        files = sorted({test.split("::", 1)[0] for test in chosen})
        digest = hashlib.sha256()
        for name in [*self.helpers, *files]:
            digest.update(name.encode() + b"\0" + self._digest(name))
        return digest.hexdigest()[:16]


def stored_verdicts(mutants: list[Mutant], texts: dict[str, str], results: dict[str, str],
                    chosen_by: dict[str, object] | None, reaching_only: bool
                    ) -> tuple[dict[Mutant, str], list[Mutant]]:
    """The verdicts that still hold, and the mutants to run. A survivor's holds while the
    tests that reach it are as they were (`TestFiles`): never without a map."""
    outcomes: dict[Mutant, str] = {}
    pending: list[Mutant] = []
    files = TestFiles(REPO)
    for mutant in mutants:
        stored = results.get(f"{digest_of(texts[mutant.module])}:{mutant.key}", "")
        verdict, _, tests = stored.partition(":")
        alive = verdict == "survived" or (reaching_only and verdict == UNCONFIRMED)
        if verdict == "killed" or (alive and chosen_by is not None and tests == files.of(
                coverage_map.tests_reaching(chosen_by, mutant.module, mutant.reach))):
            outcomes[mutant] = verdict
        elif equivalent(mutant) is not None:
            outcomes[mutant] = "survived"  # not run: the report says why it is equivalent
        elif unsafe(mutant) is not None:
            outcomes[mutant] = "survived"  # not run: the report says why, and counts it
        else:
            pending.append(mutant)
    return outcomes, pending


def run_all(mutants: list[Mutant], texts: dict[str, str], jobs: int, results_file: Path,
            *, make_map: bool = False, reaching_only: bool = False) -> dict[Mutant, str]:
    results = load_results(results_file)
    outcomes, pending = stored_verdicts(mutants, texts, results, coverage_map.load(REPO),
                                        reaching_only)
    print(f"{len(mutants)} mutants, {len(outcomes)} already judged or equivalent, "
          f"{len(pending)} to run with {jobs} copies side by side", flush=True)
    with tempfile.TemporaryDirectory(prefix="mcpctl-structural-") as scratch:
        copies = [Path(scratch) / f"copy{n}" for n in range(jobs)]
        for root in copies:
            prepare(root)
        if make_map:
            started = time.monotonic()
            coverage_map.save(REPO, coverage_map.build(
                copies[0], copy_environment(copies[0]), jobs, MAP_TIMEOUT))
            print(f"coverage map made in {time.monotonic() - started:.0f} s", flush=True)
        chosen_by = coverage_map.load(REPO) if pending else None
        if chosen_by is not None:  # a new map may keep more survivors' verdicts
            outcomes, pending = stored_verdicts(mutants, texts, results, chosen_by,
                                                reaching_only)
        if pending and chosen_by is None:
            print("no coverage map of these sources (--map makes one): every mutant runs "
                  "against the whole suite", flush=True)
        if pending and run_suite(copies[0], ["tests"], MUTANT_TIMEOUT * 2)[0] != "survived":
            raise SystemExit("structural_mutation: the suite fails unmutated; fix it first")
        free = list(copies)
        killers: dict[str, list[list[object]]] = load_results(KILLERS)
        files = TestFiles(copies[0])  # the tests every copy runs
        naming = TestsNaming(copies[0])
        budget = Budget(chosen_by)

        def one(mutant: Mutant) -> tuple[Mutant, str, str, float]:
            started = time.monotonic()
            root = free.pop()
            target = root / mutant.module
            try:
                target.write_text(mutated_source(texts[mutant.module], mutant))
                chosen = None if chosen_by is None else coverage_map.tests_reaching(
                    chosen_by, mutant.module, mutant.reach)
                first = [*naming.of(mutant),
                         *likely_killers(killers, mutant, chosen or [])]
                outcome, killer = outcome_of(root, mutant, chosen, first=first,
                                             reaching_only=reaching_only, budget=budget.of)
                if outcome != "killed" and chosen is not None:
                    outcome = f"{outcome}:{files.of(chosen)}"
            finally:
                target.write_text(texts[mutant.module])
                py_compile.compile(str(target), doraise=True)  # pristine bytecode again
                free.append(root)
            return mutant, outcome, killer, time.monotonic() - started

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for mutant, stored, killer, seconds in pool.map(one, pending):
                outcome = stored.partition(":")[0]
                outcomes[mutant] = outcome
                results[f"{digest_of(texts[mutant.module])}:{mutant.key}"] = stored
                save_results(results_file, results)
                if killer:
                    killers.setdefault(mutant.module, []).append([mutant.line, killer])
                    save_results(KILLERS, killers)
                # Every verdict with its time: where a run's hours go.
                print(f"  {'killed' if outcome == 'killed' else 'SURVIVED':8} "
                      f"{seconds:4.0f} s {mutant.module}:{mutant.line} {mutant.operator}: "
                      f"{mutant.source}", flush=True)
    return outcomes


def wilson(killed: int, scored: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % interval of a killed share estimated from a random sample."""
    if not scored:
        return 0.0, 100.0
    share = killed / scored
    centre = (share + z * z / (2 * scored)) / (1 + z * z / scored)
    spread = z * ((share * (1 - share) + z * z / (4 * scored)) / scored) ** 0.5 \
        / (1 + z * z / scored)
    return 100 * max(0.0, centre - spread), 100 * min(1.0, centre + spread)


def equivalents_listing(mutants: Sequence[Mutant]) -> str:
    """Every mutant recorded as equivalent or cost only, by module and then by reason
    (`line operator, ...: why`), as the markdown list docs/design.md holds."""
    import textwrap  # noqa: PLC0415 - only for this listing

    by_module: dict[str, dict[str, list[str]]] = {}
    for mutant in mutants:
        why = equivalent(mutant)
        if why is not None:
            places = by_module.setdefault(mutant.module, {}).setdefault(why, [])
            places.append(f"{mutant.line} {mutant.operator}")
    lines = []
    for module, reasons in by_module.items():
        lines.append(f"- `{module.removeprefix('mcpctl/')}`")
        for why, places in reasons.items():
            lines.extend(textwrap.wrap(f"{', '.join(places)}: {why}", width=88,
                                       initial_indent="  - ", subsequent_indent="    ",
                                       break_on_hyphens=False))
    return "\n".join(lines)


def report(outcomes: dict[Mutant, str], population: int | None = None) -> int:
    by_module: dict[str, list[tuple[Mutant, str]]] = {}
    for mutant, outcome in outcomes.items():
        by_module.setdefault(mutant.module, []).append((mutant, outcome))
    killed = survived = equivalents = costly = 0
    unconfirmed = sum(outcome == UNCONFIRMED for outcome in outcomes.values())
    for module, rows in sorted(by_module.items()):
        dead = sum(outcome == "killed" for _, outcome in rows)
        print(f"{module}: {dead}/{len(rows)} killed")
        for mutant, outcome in sorted(rows, key=lambda row: row[0].line):
            if outcome == "killed":
                continue
            why = equivalent(mutant)
            cost = why is not None and why.startswith(COST)
            harm = unsafe(mutant)
            tag = (why if cost else f"equivalent: {why}") if why else \
                f"SURVIVOR (never planted: {harm})" if harm else \
                "SURVIVOR" if outcome == "survived" else f"SURVIVOR ({outcome})"
            print(f"  {tag}\n    line {mutant.line} {mutant.operator}: {mutant.source}")
            equivalents += why is not None and not cost
            costly += cost
            survived += why is None
        killed += dead
    scored = killed + survived + costly
    score = 100 * killed / scored if scored else 100.0
    if costly:
        print(f"\n{costly} recorded survivors cost only time or a resource: without them "
              f"{killed}/{killed + survived} killed "
              f"({100 * killed / max(1, killed + survived):.1f} %)")
    print(f"\nscore: {killed}/{scored} non-equivalent mutants killed ({score:.1f} %); "
          f"{equivalents} equivalent, {survived} unrecorded survivors"
          + (f" ({unconfirmed} unconfirmed: the whole suite was not run on them, so the "
             "score is a lower bound)" if unconfirmed else ""))
    if population is not None:
        low, high = wilson(killed, scored)
        print(f"a random sample of {len(outcomes)} of {population} mutants: the scope's score "
              f"is within {low:.1f} % to {high:.1f} % (95 % interval)")
    return 1 if survived else 0


def _compiles(mutant: Mutant, text: str) -> bool:
    """A mutant that is not valid Python tests nothing: left out (and said)."""
    try:
        compile(mutated_source(text, mutant), mutant.module, "exec")
    except SyntaxError as error:
        print(f"  left out (does not compile: {error.msg}): {mutant.key}", file=sys.stderr)
        return False
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*",
                        help="modules or folders under mcpctl/ (default: issue 30's scope)")
    parser.add_argument("--jobs", type=int, default=2, help="copies run side by side")
    parser.add_argument("--list", action="store_true", help="count the mutants; run none")
    parser.add_argument("--operator", action="append", default=[],
                        help="only this operator (repeatable)")
    parser.add_argument("--results", type=Path, default=RESULTS, help="the results file")
    parser.add_argument("--map", action="store_true",
                        help="first run the suite once under coverage to learn which tests "
                             "reach which lines (bench/.coverage-map.json)")
    parser.add_argument("--sample", type=int, metavar="N",
                        help="run N mutants drawn at random from the scope (the same N for "
                             "the same --seed and sources): the score is then an estimate, "
                             "printed with its 95 %% interval")
    parser.add_argument("--seed", type=int, default=30, help="the draw's seed (default 30)")
    parser.add_argument("--report", action="store_true",
                        help="run nothing: the report of the verdicts kept so far (a "
                             "survivor whose reaching tests changed since counts as not run)")
    parser.add_argument("--equivalents", action="store_true",
                        help="run nothing: every mutant recorded as equivalent or cost "
                             "only, with its reason, as the markdown list in docs/design.md")
    parser.add_argument("--reaching-only", action="store_true",
                        help="run only the tests that reach each mutant (needs a map): a "
                             "mutant they do not kill counts as a survivor, unconfirmed")
    options = parser.parse_args()
    modules = modules_in_scope(options.modules)
    texts = {module: (REPO / module).read_text(encoding="utf-8") for module in modules}
    mutants = [m for module in modules for m in mutants_of(module, texts[module])
               if not options.operator or m.operator in options.operator]
    if options.list:
        counts: dict[str, int] = {}
        for mutant in mutants:
            counts[mutant.operator] = counts.get(mutant.operator, 0) + 1
        for module in modules:
            print(f"{module}: {sum(m.module == module for m in mutants)}")
        print("by operator: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
        print(f"{len(mutants)} mutants in {len(modules)} modules")
        return 0
    if options.equivalents:
        print(equivalents_listing(mutants))
        return 0
    mutants = [m for m in mutants if _compiles(m, texts[m.module])]
    population = len(mutants)
    if options.sample is not None and options.sample < population:
        import random  # noqa: PLC0415

        draw = random.Random(options.seed)  # noqa: S311 - a repeatable draw, not a secret
        mutants = sorted(draw.sample(mutants, options.sample),
                         key=mutants.index)
        print(f"a sample of {len(mutants)} of {population} mutants (seed {options.seed})",
              flush=True)
    if options.report:
        outcomes, pending = stored_verdicts(mutants, texts, load_results(options.results),
                                            coverage_map.load(REPO, stale=True), True)
        code = report(outcomes)
        print(f"{len(outcomes)} of {len(mutants)} mutants judged; {len(pending)} not run "
              "with the tests as they are now")
        return code
    started = time.monotonic()
    outcomes = run_all(mutants, texts, max(1, options.jobs), options.results,
                       make_map=options.map, reaching_only=options.reaching_only)
    code = report(outcomes, population if len(mutants) < population else None)
    print(f"time: {time.monotonic() - started:.0f} s")
    return code


if __name__ == "__main__":
    sys.exit(main())
