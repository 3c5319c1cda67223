"""One way down: no import, at module level or inside a function, goes up the layer table."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mcpctl.layers import LAYERS, layer_of

PACKAGE = Path(__file__).resolve().parent.parent / "mcpctl"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(tree: ast.AST, here: str) -> set[str]:
    """Every mcpctl module the code names in an import, wherever the import stands."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = resolve_from(node, here)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name == "mcpctl" or name.startswith("mcpctl.")}


def resolve_from(node: ast.ImportFrom, here: str) -> str:
    if not node.level:
        return node.module or ""
    base = here.split(".")[: -node.level]
    return ".".join([*base, *([node.module] if node.module else [])])


def top_of(module: str) -> str:
    """The first level below mcpctl: a package or a top-level module."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def graph() -> dict[str, set[str]]:
    modules = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        named = imported_modules(ast.parse(path.read_text(encoding="utf-8")), name)
        edges[name] = {target for target in named if target in modules and target != name}
    return edges


def upward_imports(edges: dict[str, set[str]]) -> list[str]:
    wrong = []
    for source, targets in edges.items():
        for target in targets:
            low, high = top_of(target), top_of(source)
            if low != high and layer_of(low) >= layer_of(high):
                wrong.append(f"{source} -> {target}")
    return sorted(wrong)


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Each strongly connected set of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(edges[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_every_package_and_top_level_module_has_a_layer() -> None:
    tops = {top_of(module_name(path)) for path in PACKAGE.rglob("*.py")}
    listed = {name for row in LAYERS for name in row}
    assert tops - listed == set()
    assert listed - tops == set()


def test_no_import_goes_up_or_sideways() -> None:
    assert upward_imports(graph()) == []


def test_no_module_imports_itself_round_a_cycle() -> None:
    assert cycles(graph()) == []


@pytest.mark.parametrize(("source", "code"), [
    ("mcpctl.syntax.x", "from mcpctl.cli.main import run\n"),
    ("mcpctl.syntax.x", "def f():\n    from mcpctl.trust import gate\n"),
    ("mcpctl.config.x", "import mcpctl.clients.table\n"),
    ("mcpctl.files.x", "from mcpctl import syntax\n"),
    ("mcpctl.trust.x", "from ..launch import resolve_launch\n"),
])
def test_a_planted_upward_import_is_found(source: str, code: str) -> None:
    named = imported_modules(ast.parse(code), source)
    edges = {source: {name for name in named if name.count(".") >= 1}}
    assert upward_imports(edges), code


def test_a_planted_cycle_is_found() -> None:
    edges = {"mcpctl.a": {"mcpctl.b"}, "mcpctl.b": {"mcpctl.c"}, "mcpctl.c": {"mcpctl.a"},
             "mcpctl.d": {"mcpctl.a"}}
    assert cycles(edges) == [["mcpctl.a", "mcpctl.b", "mcpctl.c"]]
