"""A server's tool policy as the user wrote it (`[tools.NAME]` in config.toml), validated.

Pure: it takes the parsed TOML table and returns a `ToolPolicy`, or raises `PolicyError`
naming the key. The table is outside `[servers.NAME]` on purpose: the server's
fingerprint (and so its approval and its cached probe) does not change when the user
switches a tool off, and a workspace server can have a policy of the user's too.
"""

from collections.abc import Mapping
from typing import Any, NamedTuple

# Written by the user (or `mcpctl tools`): patterns, a budget and annotation rules.
USER_KEYS = ("only", "enabled", "disabled", "budget", "deny_destructive", "deny_open_world")
# Written by `mcpctl tools` only: the tool names the server listed when the policy was
# last set, so a tool that appears later is recognised as new.
KNOWN_KEY = "known"
MAX_BUDGET = 10_000_000


class PolicyError(ValueError):
    """A `[tools.NAME]` table that does not mean a policy."""


class ToolPolicy(NamedTuple):
    """What the user said about one server's tools. Patterns use `*`, `?` and `[…]`.
    (A NamedTuple: `run` reads it, and dataclasses costs it an import of inspect.)"""

    only: tuple[str, ...] | None = None  # None: every tool may be on
    enabled: tuple[str, ...] = ()
    disabled: tuple[str, ...] = ()
    budget: int | None = None  # tokens
    deny_destructive: bool = False
    deny_open_world: bool = False
    known: tuple[str, ...] | None = None  # None: never recorded

    @property
    def closed(self) -> bool:
        """Does a tool the server adds later start off? (an allow-list or a budget)"""
        return self.only is not None or self.budget is not None

    @property
    def restricts(self) -> bool:
        """Can anything be off at all? A policy that cannot needs no filter."""
        return bool(self.closed or self.disabled or self.deny_destructive
                    or self.deny_open_world)


def policy_from_table(server: str, table: Any) -> ToolPolicy:
    if not isinstance(table, Mapping):
        raise PolicyError(f"[tools.{server}] must be a table")
    unknown = sorted(set(table) - {*USER_KEYS, KNOWN_KEY})
    if unknown:
        raise PolicyError(f"[tools.{server}]: unknown key {unknown[0]!r} (known: "
                          f"{', '.join((*USER_KEYS, KNOWN_KEY))})")
    budget = table.get("budget")
    if budget is not None and (not isinstance(budget, int) or isinstance(budget, bool)
                               or not 0 <= budget <= MAX_BUDGET):
        raise PolicyError(f"[tools.{server}] budget must be a whole number of tokens from 0 "
                          f"to {MAX_BUDGET:,}")
    only = table.get("only")
    known = table.get(KNOWN_KEY)
    return ToolPolicy(
        None if only is None else _names(server, "only", only),
        _names(server, "enabled", table.get("enabled", [])),
        _names(server, "disabled", table.get("disabled", [])),
        budget, _flag(server, "deny_destructive", table), _flag(server, "deny_open_world", table),
        None if known is None else _names(server, KNOWN_KEY, known),
    )


def table_of(policy: ToolPolicy) -> dict[str, Any]:
    """The `[tools.NAME]` table that reads back as `policy` (keys at their defaults left out)."""
    table: dict[str, Any] = {}
    if policy.only is not None:
        table["only"] = list(policy.only)
    for key, values in (("enabled", policy.enabled), ("disabled", policy.disabled)):
        if values:
            table[key] = list(values)
    if policy.budget is not None:
        table["budget"] = policy.budget
    for key, flag in (("deny_destructive", policy.deny_destructive),
                      ("deny_open_world", policy.deny_open_world)):
        if flag:
            table[key] = True
    if policy.known is not None:
        table[KNOWN_KEY] = list(policy.known)
    return table


def _names(server: str, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise PolicyError(f"[tools.{server}] {key} must be a list of tool names or patterns")
    return tuple(dict.fromkeys(value))


def _flag(server: str, key: str, table: Mapping[str, Any]) -> bool:
    value = table.get(key, False)
    if not isinstance(value, bool):
        raise PolicyError(f"[tools.{server}] {key} must be true or false")
    return value
