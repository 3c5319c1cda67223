"""Every way mcpctl can start a process passes the trust gate: proven by structure.

The behavioural tests (test_run, test_cost) show that `run`, `cost` and `doctor`
never start an untrusted or changed server. This test pins *where* a process can be
started at all, so a new code path that spawns cannot appear without being listed
here — and reviewed for the gate — first.

Names are resolved before they are matched: `import subprocess as sp`, `from os import
execve as ex`, `f = os.execve`, `getattr(os, "execve")`, `importlib.import_module("os")`
and `__import__("os")` all name the same thing. A name is flagged wherever it is
*referenced* (imported, called, passed or stored), not only where it is called, and a
spawning module reached by a name that cannot be read statically (`getattr(os, name)`,
`vars(os)`, `os.__dict__`, `from os import *`) is flagged as `<module>.?`.
"""

from __future__ import annotations

import ast

import pytest

from tests.conftest import REPO

PACKAGE = REPO / "mcpctl"

# What starts a process (or turns this one into another), by module; `loop` stands for
# any object's `subprocess_exec`/`subprocess_shell` (an asyncio event loop's).
SPAWNING: dict[str, frozenset[str]] = {
    "os": frozenset({
        "execv", "execve", "execvp", "execvpe", "execl", "execle", "execlp", "execlpe",
        "spawnv", "spawnve", "spawnvp", "spawnvpe", "spawnl", "spawnle", "system", "popen",
        "fork", "forkpty", "posix_spawn", "posix_spawnp", "startfile"}),
    "subprocess": frozenset({"Popen", "run", "call", "check_call", "check_output",
                             "getoutput", "getstatusoutput"}),
    "asyncio": frozenset({"create_subprocess_exec", "create_subprocess_shell"}),
    "asyncio.subprocess": frozenset({"create_subprocess_exec", "create_subprocess_shell"}),
    "loop": frozenset({"subprocess_exec", "subprocess_shell"}),
    "pty": frozenset({"fork", "spawn"}),
    "multiprocessing": frozenset({"Process", "Pool", "get_context", "set_start_method"}),
    "concurrent.futures": frozenset({"ProcessPoolExecutor"}),
    "webbrowser": frozenset({"open", "open_new", "open_new_tab", "get"}),
}
DYNAMIC = "?"
# The only places that may start a process, each reached only through an Admission.
ALLOWED = {
    ("mcpctl/cli/run_start.py", "os.execve"),  # after gate.admit + launch.resolve_launch
    ("mcpctl/protocol/process.py", "loop.subprocess_exec"),  # runs probing's LaunchPlans
    ("mcpctl/pinning/git.py", "os.posix_spawn"),  # git ls-files, config neutralised; no server
    # run's tool filter (issue 29): the program run_start resolved, called only from there.
    ("mcpctl/protocol/filter_relay.py", "os.posix_spawn"),
    # A copy of mcpctl itself, never an exec: a child that hashes half of a first pass,
    # and the writer of the digest cache (issue 24). Neither runs another program.
    ("mcpctl/pinning/workspace.py", "os.fork"),
}


class Resolver(ast.NodeVisitor):
    """Dotted names of what a module's expressions refer to, aliases followed."""

    def __init__(self) -> None:
        self.aliases: dict[str, str] = {}
        self.found: set[str] = set()

    def resolve(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            if node.attr == "__dict__":
                base = self.resolve(node.value)
                return None if base is None else f"{base}.{DYNAMIC}"
            # What an unreadable value holds is unknown; its attribute still counts
            # (`get_running_loop().subprocess_exec`).
            return f"{self.resolve(node.value) or '<value>'}.{node.attr}"
        if isinstance(node, ast.Call):
            return self._resolve_call(node)
        if isinstance(node, ast.Subscript):
            return self.resolve(node.value)
        return None

    def _resolve_call(self, node: ast.Call) -> str | None:
        func = self.resolve(node.func)
        args = node.args
        literal = (args[0].value if args and isinstance(args[0], ast.Constant)
                   and isinstance(args[0].value, str) else None)
        if func in ("importlib.import_module", "__import__") and args:
            return literal if literal is not None else DYNAMIC
        if func in ("getattr", "vars") and args:
            base = self.resolve(args[0])
            if base is None:
                return None
            if func == "getattr" and len(args) > 1:
                name = args[1]
                if isinstance(name, ast.Constant) and isinstance(name.value, str):
                    return f"{base}.{name.value}"
            return f"{base}.{DYNAMIC}"
        return None

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                self.aliases[alias.asname] = alias.name
            else:
                top = alias.name.split(".")[0]
                self.aliases.setdefault(top, top)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        for alias in node.names:
            full = f"{module}.{DYNAMIC}" if alias.name == "*" else f"{module}.{alias.name}"
            self.aliases[alias.asname or alias.name] = full
            self.found.add(full)

    def visit_Assign(self, node: ast.Assign) -> None:
        target = self.resolve(node.value)
        for name in node.targets:
            if isinstance(name, ast.Name) and target is not None:
                self.aliases[name.id] = target
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        self._note(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self._note(node)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        self._note(node)
        self.generic_visit(node)

    def _note(self, node: ast.AST) -> None:
        name = self.resolve(node)
        if name is not None:
            self.found.add(name)


def spawning_references(source: str) -> set[str]:
    """Every spawning name the source refers to, as `module.name`."""
    tree = ast.parse(source)
    resolver = Resolver()
    # Two passes: an alias may be bound below its first use (in a function body).
    resolver.visit(tree)
    resolver.found.clear()
    resolver.visit(tree)
    return {hit for name in resolver.found if (hit := _spawning(name)) is not None}


def _spawning(name: str) -> str | None:
    module, _, attr = name.rpartition(".")
    if not module:
        return None
    if attr in SPAWNING.get(module, ()) or (attr == DYNAMIC and module in SPAWNING):
        return name
    if attr in SPAWNING["loop"]:
        return f"loop.{attr}"  # any object's subprocess_exec: an event loop's
    return None


def test_only_the_two_gated_places_start_processes() -> None:
    found = {(str(path.relative_to(REPO)), name)
             for path in PACKAGE.rglob("*.py")
             for name in spawning_references(path.read_text(encoding="utf-8"))}
    assert found == ALLOWED


@pytest.mark.parametrize(("planted", "expected"), [
    ("import subprocess as sp\nsp.run(['x'])\n", {"subprocess.run"}),
    ("from os import execve as ex\nex('/bin/x', ['x'], {})\n", {"os.execve"}),
    ("import os\ngetattr(os, 'execve')('/bin/x', ['x'], {})\n", {"os.execve"}),
    ("import os\nname = 'system'\ngetattr(os, name)('x')\n", {"os.?"}),
    ("import os\nrun = os.system\nrun('x')\n", {"os.system"}),
    ("import os as o\ndef f():\n    return o.posix_spawn\n", {"os.posix_spawn"}),
    ("import importlib\nimportlib.import_module('subprocess').Popen(['x'])\n",
     {"subprocess.Popen"}),
    ("__import__('os').system('x')\n", {"os.system"}),
    ("from subprocess import *\nPopen(['x'])\n", {"subprocess.?"}),
    ("import os\nos.__dict__['system']('x')\n", {"os.?"}),
    ("import os\nvars(os)['execv']('x', [])\n", {"os.?"}),
    ("import asyncio.subprocess as aio\naio.create_subprocess_exec('x')\n",
     {"asyncio.subprocess.create_subprocess_exec"}),
    ("import asyncio\nasync def f():\n    await asyncio.get_running_loop().subprocess_exec(p)\n",
     {"loop.subprocess_exec"}),
    ("import concurrent.futures as cf\ncf.ProcessPoolExecutor()\n",
     {"concurrent.futures.ProcessPoolExecutor"}),
    ("from multiprocessing import Process as P\nP(target=f).start()\n",
     {"multiprocessing.Process"}),
    ("def later():\n    return sp.check_output(['x'])\nimport subprocess as sp\n",
     {"subprocess.check_output"}),
])
def test_a_planted_evasion_is_found(planted: str, expected: set[str]) -> None:
    assert spawning_references(planted) == expected


def test_innocent_names_are_not_flagged() -> None:
    source = ("import os\nimport subprocess\nos.environ.get('X')\n"
              "subprocess.DEVNULL\nos.path.join('a', 'b')\nrun = print\nrun('x')\n")
    assert spawning_references(source) == set()


def test_launch_plans_and_resolved_launches_come_only_from_admissions() -> None:
    """LaunchPlan is built only in probing, from a Launch; a Launch only from an
    Admission (resolve_launch's first parameter); an Admission only in the gate."""
    builders: dict[str, set[str]] = {"LaunchPlan": set(), "resolve_launch": set(),
                                     "Admission": set(), "relay_process": set()}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in builders:
                builders[node.func.id].add(str(path.relative_to(REPO)))
    assert builders == {
        "LaunchPlan": {"mcpctl/probing/servers.py"},
        "resolve_launch": {"mcpctl/probing/servers.py", "mcpctl/cli/run_start.py"},
        "Admission": {"mcpctl/trust/gate.py"},
        "relay_process": {"mcpctl/cli/run_start.py"},  # with the Launch it resolved
    }
