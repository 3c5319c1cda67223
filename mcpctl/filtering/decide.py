"""Which tools a policy leaves on, and why each other one is off (pure; issue 29).

The rule, in order, for each tool the server lists:

1. A tool named exactly in `disabled` is off; one matching a `disabled` pattern is off
   unless `enabled` names it exactly (the more specific word wins; between two
   patterns, off wins).
2. Under `only`, a tool that matches neither `only` nor `enabled` is off.
3. Under `only` or a budget, a tool the server did not list when the policy was last
   set (`known`) is off until the user enables it: a server cannot widen an allow-list
   by adding tools (a rug-pull), and cannot push an old tool out of a budget either.
4. `deny_destructive` switches off every tool whose `destructiveHint` is true, or absent
   while `readOnlyHint` is not true (the spec's defaults: readOnlyHint false,
   destructiveHint true); `deny_open_world` likewise for `openWorldHint` (default
   true). An annotation only ever switches a tool off; only a tool `enabled` names
   exactly stays on, since the user named that very tool.
5. The budget is spent on what is left: tools `enabled` names exactly first (always
   kept, their tokens counted), then the cheapest first, ties in the server's order,
   each kept while it fits. Cheapest-first keeps the most tools for the tokens.
"""

import re
from collections.abc import Iterable, Mapping, Sequence
from fnmatch import fnmatchcase, translate
from functools import lru_cache
from typing import Any, NamedTuple

from mcpctl.filtering.policy import ToolPolicy

_GLOB = frozenset("*?[")
NEW_REASON = "new since the policy was set"

Tool = Mapping[str, Any]


class ToolDecision(NamedTuple):
    name: str
    on: bool
    reason: str  # why it is off ("" when on)
    tokens: int | None = None
    new: bool = False  # not in the policy's `known` list


def is_pattern(word: str) -> bool:
    return not _GLOB.isdisjoint(word)


def matches(name: str, patterns: Iterable[str]) -> str | None:
    """The first of `patterns` that `name` matches (exactly or as a glob), else None."""
    patterns = tuple(patterns)
    if not patterns:
        return None
    exact, union = _compiled(patterns)
    if name not in exact and (union is None or union.match(name) is None):
        return None  # the common case, decided by one set lookup and one regex
    for pattern in patterns:
        if pattern == name or (is_pattern(pattern) and fnmatchcase(name, pattern)):
            return pattern
    return None


@lru_cache(maxsize=64)
def _compiled(patterns: tuple[str, ...]) -> tuple[frozenset[str], re.Pattern[str] | None]:
    """The exact names, and every glob as one regex: `run` judges each tool of each
    `tools/list` answer, so a pattern is compiled once, not matched one by one."""
    globs = [translate(p) for p in patterns if is_pattern(p)]
    return frozenset(patterns), re.compile("|".join(globs)) if globs else None


def unmatched(patterns: Iterable[str], names: Iterable[str]) -> list[str]:
    """The patterns that match none of `names` (a typo, or a tool the server lacks)."""
    listed = list(names)
    return [p for p in patterns if not any(matches(n, (p,)) for n in listed)]


def tool_name(tool: Tool) -> str:
    name = tool.get("name")
    return name if isinstance(name, str) else ""


def _hints(tool: Tool) -> Mapping[str, Any]:
    annotations = tool.get("annotations")
    return annotations if isinstance(annotations, Mapping) else {}


def is_destructive(tool: Tool) -> bool:
    hints = _hints(tool)
    destructive = hints.get("destructiveHint")
    if destructive is True:
        return True
    # A value that is not a boolean says nothing, so the default applies.
    return not isinstance(destructive, bool) and hints.get("readOnlyHint") is not True


def is_open_world(tool: Tool) -> bool:
    return _hints(tool).get("openWorldHint") is not False


class Judge:
    """Rules 1 to 4 of one policy, with its words compiled once (`run` judges every tool
    of every `tools/list` answer): sets for exact names, one regex per list of globs."""

    def __init__(self, policy: ToolPolicy):
        self.policy = policy
        self.named_on = frozenset(policy.enabled)
        self.known = None if policy.known is None else frozenset(policy.known)
        self.closed = policy.closed

    def verdict(self, tool: Tool) -> str:
        """Why this tool is off, or "" when the budget may keep it."""
        policy = self.policy
        name = tool_name(tool)
        named_on = name in self.named_on
        off_by = matches(name, policy.disabled) if policy.disabled else None
        if off_by is not None and (off_by == name or not named_on):
            return "disabled" if off_by == name else f"disabled ({off_by})"
        enabled_by = matches(name, policy.enabled) if policy.enabled else None
        if policy.only is not None and enabled_by is None and \
                matches(name, policy.only) is None:
            return "not in only"
        if self.closed and self.known is not None and name not in self.known \
                and enabled_by is None:
            return NEW_REASON
        if named_on:
            return ""
        if policy.deny_destructive and is_destructive(tool):
            return "destructive"
        if policy.deny_open_world and is_open_world(tool):
            return "open world"
        return ""


def rule_verdict(tool: Tool, policy: ToolPolicy) -> str:
    """Rules 1 to 4 for one tool (a `Judge` judges many faster)."""
    return Judge(policy).verdict(tool)


def decide(tools: Sequence[Tool], tokens: Sequence[int] | None, policy: ToolPolicy
           ) -> tuple[ToolDecision, ...]:
    """One decision per tool, in the server's order. Without `tokens` a budget keeps only
    the tools `enabled` names exactly (fail closed: nothing to measure the rest by)."""
    counts: Sequence[int | None] = tokens if tokens is not None else [None] * len(tools)
    known = None if policy.known is None else frozenset(policy.known)
    judge = Judge(policy)
    verdicts = [judge.verdict(tool) for tool in tools]
    kept = _within_budget(tools, counts, verdicts, policy)
    decisions = []
    for index, tool in enumerate(tools):
        name = tool_name(tool)
        reason = verdicts[index] or ("" if kept is None or index in kept
                                     else _over_budget(policy, counts[index]))
        decisions.append(ToolDecision(name, not reason, reason, counts[index],
                                      _is_new_in(name, known)))
    return tuple(decisions)


def _is_new_in(name: str, known: frozenset[str] | None) -> bool:
    return known is not None and name not in known


def _over_budget(policy: ToolPolicy, tokens: int | None) -> str:
    if tokens is None:
        return "over the budget (no token counts yet)"
    return f"over the budget of {policy.budget:,} tokens"


def _within_budget(tools: Sequence[Tool], counts: Sequence[int | None], verdicts: list[str],
                   policy: ToolPolicy) -> set[int] | None:
    """Indexes the budget keeps (rule 5); None when there is no budget."""
    if policy.budget is None:
        return None
    candidates = [i for i, verdict in enumerate(verdicts) if not verdict]
    named_on = frozenset(policy.enabled)
    first = [i for i in candidates if tool_name(tools[i]) in named_on]
    kept = set(first)
    left = policy.budget - sum(counts[i] or 0 for i in first)
    rest = sorted((i for i in candidates if i not in kept and counts[i] is not None),
                  key=lambda i: (counts[i], i))
    for index in rest:
        cost = counts[index] or 0
        if cost <= left:
            kept.add(index)
            left -= cost
    return kept


def on_names(decisions: Iterable[ToolDecision]) -> list[str]:
    return [d.name for d in decisions if d.on]


def off_names(decisions: Iterable[ToolDecision]) -> list[str]:
    return [d.name for d in decisions if not d.on]
