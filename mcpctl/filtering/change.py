"""A change the user asks of a policy (`mcpctl tools NAME --disable …`), applied (pure).

`--enable` and `--disable` of one word undo each other, so the later command wins.
Every change records which tools the server lists now (`known`), but a tool that was
new under an allow-list or a budget joins only when this change names it (`--enable`,
`--only`): changing something else does not switch on what the user has not seen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mcpctl.filtering.decide import matches, unmatched
from mcpctl.filtering.policy import ToolPolicy


@dataclass(frozen=True)
class PolicyChange:
    enable: tuple[str, ...] = ()
    disable: tuple[str, ...] = ()
    only: tuple[str, ...] | None = None
    budget: int | None = None
    no_budget: bool = False
    deny_destructive: bool | None = None
    deny_open_world: bool | None = None
    reset: bool = False

    @property
    def empty(self) -> bool:
        return self == PolicyChange()

    def patterns(self) -> list[str]:
        return [*self.enable, *self.disable, *(self.only or ())]


def unknown_patterns(change: PolicyChange, names: Sequence[str]) -> list[str]:
    """Words of the change that match no tool the server lists (validated before saving)."""
    return unmatched(dict.fromkeys(change.patterns()), names)


def applied(policy: ToolPolicy, change: PolicyChange, names: Sequence[str]) -> ToolPolicy:
    """`policy` with `change` made, `names` being the tools the server lists now."""
    if change.reset:
        policy = ToolPolicy()
    enabled = [p for p in policy.enabled if p not in change.disable]
    disabled = [p for p in policy.disabled if p not in change.enable]
    enabled += [p for p in change.enable if p not in enabled]
    disabled += [p for p in change.disable if p not in disabled]
    new = policy._replace(
        enabled=tuple(enabled), disabled=tuple(disabled),
        only=policy.only if change.only is None else change.only,
        budget=None if change.no_budget else (
            change.budget if change.budget is not None else policy.budget),
        deny_destructive=policy.deny_destructive if change.deny_destructive is None
        else change.deny_destructive,
        deny_open_world=policy.deny_open_world if change.deny_open_world is None
        else change.deny_open_world,
    )
    return new._replace(known=_known(policy, change, names))


def _known(before: ToolPolicy, change: PolicyChange, names: Sequence[str]) -> tuple[str, ...]:
    if before.known is None or not before.closed:
        return tuple(names)  # nothing was held back before this change
    named = (*change.enable, *(change.only or ()))
    return tuple(n for n in names if n in before.known or matches(n, named) is not None)
