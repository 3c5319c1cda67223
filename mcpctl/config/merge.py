"""The merged view: one winner per server name, losers kept as shadowed (DESIGN §2).

Pure. The user tier wins over the workspace; among workspace files the order of the
format table decides; `Source.precedence` carries that order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from mcpctl.model import Definition


@dataclass(frozen=True)
class MergedServer:
    name: str
    winner: Definition
    shadowed: tuple[Definition, ...] = ()

    @property
    def definitions(self) -> tuple[Definition, ...]:
        return (self.winner, *self.shadowed)


def merge(definitions: Iterable[Definition]) -> list[MergedServer]:
    """Group by name; within a name order by precedence (stable). Sorted by name."""
    by_name: dict[str, list[Definition]] = {}
    for definition in definitions:
        by_name.setdefault(definition.name, []).append(definition)
    merged = []
    for name in sorted(by_name):
        ranked = sorted(by_name[name], key=lambda d: d.source.precedence)
        merged.append(MergedServer(name, ranked[0], tuple(ranked[1:])))
    return merged


def find(merged: Iterable[MergedServer], name: str) -> MergedServer | None:
    return next((server for server in merged if server.name == name), None)
