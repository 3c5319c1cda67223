"""The merge: a pure function, property-tested (DESIGN §2 precedence)."""

from __future__ import annotations

import copy
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from mcpctl.config.formats import WORKSPACE_FORMATS
from mcpctl.config.merge import MergedServer, find, merge
from mcpctl.model import Definition, ServerSpec, Source, Tier, Transport

FILES = ["config.toml", *(f.relative_path for f in WORKSPACE_FORMATS)]


def definition(name: str, precedence: int, line: int) -> Definition:
    tier = Tier.USER if precedence == 0 else Tier.WORKSPACE
    return Definition(ServerSpec(name, Transport.STDIO, command=f"cmd-{line}"),
                      Source(tier, Path(FILES[precedence]), line, precedence))


@st.composite
def definition_lists(draw: st.DrawFn) -> list[Definition]:
    items = draw(st.lists(st.tuples(st.sampled_from("abcde"), st.integers(0, 4)), max_size=25))
    # The line makes every definition distinct, so "exactly once" is checkable.
    return [definition(name, precedence, line) for line, (name, precedence) in
            enumerate(items, start=1)]


@given(definition_lists())
def test_merge_is_pure(definitions: list[Definition]) -> None:
    before = copy.deepcopy(definitions)
    first = merge(definitions)
    assert definitions == before
    assert merge(iter(definitions)) == first
    assert merge(list(definitions)) == first


@given(definition_lists())
def test_every_definition_appears_exactly_once(definitions: list[Definition]) -> None:
    merged = [d for server in merge(definitions) for d in server.definitions]
    assert sorted(merged, key=lambda d: d.source.line) == definitions


@given(definition_lists())
def test_winner_has_the_minimal_precedence(definitions: list[Definition]) -> None:
    for server in merge(definitions):
        assert all(d.name == server.name for d in server.definitions)
        assert server.winner.source.precedence == min(
            d.source.precedence for d in definitions if d.name == server.name)
        precedences = [d.source.precedence for d in server.shadowed]
        assert all(server.winner.source.precedence <= p for p in precedences)
        assert precedences == sorted(precedences)


@given(definition_lists())
def test_output_is_sorted_by_name_one_entry_per_name(definitions: list[Definition]) -> None:
    names = [server.name for server in merge(definitions)]
    assert names == sorted({d.name for d in definitions})


@given(definition_lists())
def test_stable_for_equal_precedence(definitions: list[Definition]) -> None:
    for server in merge(definitions):
        for precedence in range(5):
            same = [d for d in server.definitions if d.source.precedence == precedence]
            in_input = [d for d in definitions
                        if d.name == server.name and d.source.precedence == precedence]
            assert same == in_input


def test_full_precedence_order() -> None:
    order = [definition("x", p, line=10 + p) for p in (4, 2, 0, 3, 1)]
    [server] = merge(order)
    assert [d.source.path.as_posix() for d in server.definitions] == [
        "config.toml", ".mcp.json", "mcp.json", ".vscode/mcp.json", ".cursor/mcp.json"]


def test_find() -> None:
    merged = merge([definition("a", 1, 1), definition("b", 2, 2)])
    assert find(merged, "b") == MergedServer("b", definition("b", 2, 2))
    assert find(merged, "c") is None
    assert merge([]) == []
