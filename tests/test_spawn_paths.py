"""Every way mcpctl can start a process passes the trust gate: proven by structure.

The behavioural tests (test_run, test_cost_cli) show that `run`, `cost` and `doctor`
never start an untrusted or changed server. This test pins *where* a process can be
started at all, so a new code path that spawns cannot appear without being listed
here — and reviewed for the gate — first.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO

PACKAGE = REPO / "mcpctl"

# Calls that start a process (or turn this one into another), by the module they
# come from; `loop` is an asyncio event loop.
SPAWNING = {
    "os": {"execv", "execve", "execvp", "execvpe", "execl", "execle", "execlp", "execlpe",
           "spawnv", "spawnve", "spawnvp", "spawnvpe", "spawnl", "spawnle", "system",
           "popen", "fork", "forkpty", "posix_spawn", "posix_spawnp", "startfile"},
    "subprocess": {"Popen", "run", "call", "check_call", "check_output", "getoutput",
                   "getstatusoutput"},
    "asyncio": {"create_subprocess_exec", "create_subprocess_shell"},
    "loop": {"subprocess_exec", "subprocess_shell"},
    "pty": {"fork", "spawn"},
}
# The only places that may call them, each reached only through an Admission.
ALLOWED = {
    ("mcpctl/cli/run_start.py", "os.execve"),  # after gate.admit + launch.resolve_launch
    ("mcpctl/protocol/process.py", "loop.subprocess_exec"),  # runs probing.py's LaunchPlans
}


def calls(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    imported = {alias.asname or alias.name: node.module
                for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                for alias in node.names if node.module in SPAWNING}
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            module, name = func.value.id, func.attr
        elif isinstance(func, ast.Name) and func.id in imported:
            module, name = imported[func.id], func.id
        else:
            continue
        if name in SPAWNING.get(module, set()):
            found.add(f"{module}.{name}")
    return found


def test_only_the_two_gated_places_start_processes() -> None:
    found = {(str(path.relative_to(REPO)), name)
             for path in PACKAGE.rglob("*.py") for name in calls(path)}
    assert found == ALLOWED


def test_launch_plans_and_resolved_launches_come_only_from_admissions() -> None:
    """LaunchPlan is built only in probing.py, from a Launch; a Launch only from an
    Admission (resolve_launch's first parameter); an Admission only in gate.py."""
    builders: dict[str, set[str]] = {"LaunchPlan": set(), "resolve_launch": set(),
                                     "Admission": set()}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in builders:
                builders[node.func.id].add(str(path.relative_to(REPO)))
    assert builders == {
        "LaunchPlan": {"mcpctl/probing/servers.py"},
        "resolve_launch": {"mcpctl/probing/servers.py", "mcpctl/cli/run_start.py"},
        "Admission": {"mcpctl/trust/gate.py"},
    }
