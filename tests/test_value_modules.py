"""The modules that define NamedTuples evaluate their annotations (see mcpctl/model.py):
with `from __future__ import annotations`, typing compiles each field's annotation at
every start."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "mcpctl"


def defines_a_named_tuple(tree: ast.Module) -> bool:
    return any(isinstance(node, ast.ClassDef)
               and any(ast.unparse(base) in ("NamedTuple", "typing.NamedTuple")
                       for base in node.bases)
               for node in ast.walk(tree))


def postpones_annotations(tree: ast.Module) -> bool:
    return any(isinstance(node, ast.ImportFrom) and node.module == "__future__"
               and any(alias.name == "annotations" for alias in node.names)
               for node in tree.body)


def test_no_module_with_a_named_tuple_postpones_its_annotations() -> None:
    trees = {path.relative_to(PACKAGE.parent).as_posix(): ast.parse(path.read_text("utf-8"))
             for path in sorted(PACKAGE.rglob("*.py"))}
    valued = [name for name, tree in trees.items() if defines_a_named_tuple(tree)]
    assert "mcpctl/model.py" in valued
    assert [name for name in valued if postpones_annotations(trees[name])] == []
