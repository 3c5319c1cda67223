"""The merged view: one winner per server name, losers kept as shadowed (DESIGN §2).

Pure. The user tier wins over the workspace; among workspace files the order of the
format table decides; `Source.precedence` carries that order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from mcpctl.errors import ConfigError, UsageError
from mcpctl.model import Definition, Problem

# Names longer than this are never suggested: comparing two names costs the product of
# their lengths, and a repo's file may hold a name of any length.
_SUGGEST_UP_TO = 128


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
    """The most similar of `names` (difflib's ratio, at least 0.6), if any."""
    import difflib  # noqa: PLC0415 - only when a name was mistyped

    if len(name) > _SUGGEST_UP_TO:
        return None
    short = [n for n in names if len(n) <= _SUGGEST_UP_TO]
    found = difflib.get_close_matches(name, short, n=1)
    return found[0] if found else None
