"""The merged view: one winner per server name, losers kept as shadowed (DESIGN §2).

Pure. The user tier wins over the workspace; among workspace files the order of the
format table decides; `Source.precedence` carries that order.
"""

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from mcpctl.errors import ConfigError, UsageError
from mcpctl.model import Definition, Problem

# Suggestions are bounded: a repo's file may hold any number of names of any length.
# 64 is the longest name `add` accepts; 1,000 candidates are more than any real config.
_SUGGEST_UP_TO = 64
_CANDIDATES = 1_000


class MergedServer(NamedTuple):
    """One server name: the definition that wins and the ones it shadows."""

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


def named(merged: Sequence[MergedServer], name: str, problems: Sequence[Problem] = ()
          ) -> MergedServer:
    """The server called `name`, or the one "no server named" error, with the closest
    name as a suggestion. Config problems may be what hides it: then exit 3, not 2."""
    server = find(merged, name)
    if server is not None:
        return server
    message = f"no server named {name!r} here"
    suggestion = closest(name, [s.name for s in merged])
    if suggestion is not None:
        message += f" (did you mean {suggestion!r}?)"
    if problems:
        raise HiddenByProblems(f"{message}, and {len(problems)} config file problem(s) may "
                               "hide it (see above)", problems)
    raise UsageError(f"{message} (see: mcpctl list)")


class HiddenByProblems(ConfigError):
    """A name not found while config files have problems: they may be why. The handler
    lists `problems` before the message."""

    def __init__(self, message: str, problems: Sequence[Problem]) -> None:
        super().__init__(message)
        self.problems = tuple(problems)


def closest(name: str, names: Sequence[str]) -> str | None:
    """The name fewest edits away (insert, delete, replace a character), if that is at
    most a third of `name`'s length (1 to 3); the first of equals wins."""
    if len(name) > _SUGGEST_UP_TO:
        return None
    limit = min(3, max(1, len(name) // 3))
    best: tuple[int, str] | None = None
    for candidate in [n for n in names if len(n) <= _SUGGEST_UP_TO][:_CANDIDATES]:
        distance = _edits(name, candidate, limit)
        if distance is not None and (best is None or distance < best[0]):
            best = (distance, candidate)
    return best[1] if best is not None and best[0] > 0 else None


def _edits(a: str, b: str, limit: int) -> int | None:
    """Levenshtein distance of `a` and `b` if at most `limit`, else None. Only the band
    of width 2·limit+1 around the diagonal is computed: time len(a)·limit."""
    if abs(len(a) - len(b)) > limit:
        return None
    far = limit + 1
    previous = [j if j <= limit else far for j in range(len(b) + 1)]
    for i in range(1, len(a) + 1):
        current = [far] * (len(b) + 1)
        current[0] = i if i <= limit else far
        for j in range(max(1, i - limit), min(len(b), i + limit) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(far, previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if min(current) > limit:
            return None
        previous = current
    return previous[len(b)] if previous[len(b)] <= limit else None
