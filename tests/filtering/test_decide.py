"""The policy rules, the budget and their interaction, on plain values."""

from __future__ import annotations

from typing import Any

import pytest

from mcpctl.filtering.change import PolicyChange, applied, unknown_patterns
from mcpctl.filtering.decide import decide, is_destructive, is_open_world
from mcpctl.filtering.policy import PolicyError, ToolPolicy, policy_from_table, table_of
from mcpctl.filtering.split import Server, split_budget


def tool(name: str, **hints: Any) -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object"}, "annotations": hints}


TOOLS = [tool("read_file", readOnlyHint=True), tool("write_file", destructiveHint=True),
         tool("delete_file"), tool("search_web", readOnlyHint=True, openWorldHint=True),
         tool("list_dir", readOnlyHint=True, openWorldHint=False)]
TOKENS = [100, 300, 50, 200, 80]


def verdicts(policy: ToolPolicy, tokens: list[int] | None = TOKENS) -> dict[str, str]:
    return {d.name: d.reason or "on" for d in decide(TOOLS, tokens, policy)}


def test_no_policy_leaves_every_tool_on() -> None:
    assert set(verdicts(ToolPolicy()).values()) == {"on"}
    assert not ToolPolicy().restricts


def test_disabled_by_name_and_by_pattern() -> None:
    assert verdicts(ToolPolicy(disabled=("*_file",))) == {
        "read_file": "disabled (*_file)", "write_file": "disabled (*_file)",
        "delete_file": "disabled (*_file)", "search_web": "on", "list_dir": "on"}


def test_an_exact_enable_beats_a_disabling_pattern_but_not_an_exact_disable() -> None:
    policy = ToolPolicy(enabled=("read_file", "list_*"), disabled=("*_file", "list_dir"))
    got = verdicts(policy)
    assert got["read_file"] == "on"  # the more specific word wins
    assert got["list_dir"] == "disabled"  # exact off beats an enabling pattern
    assert got["write_file"] == "disabled (*_file)"


def test_only_is_an_allow_list_that_enable_widens() -> None:
    got = verdicts(ToolPolicy(only=("read_*",), enabled=("list_dir",)))
    assert got == {"read_file": "on", "write_file": "not in only", "delete_file": "not in only",
                   "search_web": "not in only", "list_dir": "on"}


def test_destructive_follows_the_spec_defaults() -> None:
    # destructiveHint defaults to true, and means something only when readOnlyHint is false.
    assert [is_destructive(t) for t in TOOLS] == [False, True, True, False, False]
    assert is_destructive({"name": "x"})  # no annotations at all
    assert is_destructive(tool("x", readOnlyHint=True, destructiveHint=True))
    assert is_destructive(tool("x", destructiveHint="no"))  # not a boolean: the default
    assert not is_destructive(tool("x", destructiveHint=False))
    # openWorldHint defaults to true.
    assert [is_open_world(t) for t in TOOLS] == [True, True, True, True, False]


def test_deny_destructive_only_shrinks_the_set() -> None:
    got = verdicts(ToolPolicy(deny_destructive=True))
    assert got == {"read_file": "on", "write_file": "destructive", "delete_file": "destructive",
                   "search_web": "on", "list_dir": "on"}
    # A tool the user disabled stays off whatever its annotations say.
    assert verdicts(ToolPolicy(disabled=("read_file",), deny_destructive=True))["read_file"] \
        == "disabled"
    # Only the user's exact name brings a destructive tool back.
    assert verdicts(ToolPolicy(deny_destructive=True, enabled=("delete_file",)))[
        "delete_file"] == "on"
    assert verdicts(ToolPolicy(deny_destructive=True, enabled=("delete_*",)))[
        "delete_file"] == "destructive"


def test_deny_open_world() -> None:
    got = verdicts(ToolPolicy(deny_open_world=True))
    assert [name for name, why in got.items() if why == "on"] == ["list_dir"]


def test_the_budget_keeps_enabled_tools_first_then_the_cheapest() -> None:
    # 400 tokens: delete_file (50), list_dir (80), read_file (100) fit; then 170 left.
    got = verdicts(ToolPolicy(budget=400))
    assert got == {"read_file": "on", "write_file": "over the budget of 400 tokens",
                   "delete_file": "on", "search_web": "over the budget of 400 tokens",
                   "list_dir": "on"}
    # write_file named: its 300 come first, then 100 left: delete_file and list_dir.
    got = verdicts(ToolPolicy(budget=400, enabled=("write_file",)))
    assert [n for n, why in got.items() if why == "on"] == ["write_file", "delete_file"]
    # The budget is spent after the rules: a destructive tool does not take its share.
    got = verdicts(ToolPolicy(budget=300, deny_destructive=True))
    assert [n for n, why in got.items() if why == "on"] == ["read_file", "list_dir"]


def test_a_budget_without_counts_keeps_only_exact_enables() -> None:
    got = verdicts(ToolPolicy(budget=10_000, enabled=("list_dir",)), tokens=None)
    assert [n for n, why in got.items() if why == "on"] == ["list_dir"]
    assert got["read_file"] == "over the budget (no token counts yet)"


def test_a_new_tool_is_off_under_only_or_a_budget_until_enabled() -> None:
    names = [t["name"] for t in TOOLS]
    known = tuple(n for n in names if n != "delete_file")
    for policy in (ToolPolicy(only=("*",), known=known), ToolPolicy(budget=10_000, known=known)):
        decisions = {d.name: d for d in decide(TOOLS, TOKENS, policy)}
        assert decisions["delete_file"].reason == "new since the policy was set"
        assert decisions["delete_file"].new
        assert sum(d.on for d in decisions.values()) == 4
        # Saying otherwise: enabling it by name.
        later = applied(policy, PolicyChange(enable=("delete_file",)), names)
        assert all(d.on for d in decide(TOOLS, TOKENS, later))
    # Under a plain deny-list a new tool is on: the user listed what to switch off.
    assert verdicts(ToolPolicy(disabled=("x",), known=known))["delete_file"] == "on"


def test_another_change_does_not_let_a_new_tool_in() -> None:
    names = [t["name"] for t in TOOLS]
    policy = ToolPolicy(only=("*",), known=("read_file",))
    later = applied(policy, PolicyChange(disable=("write_file",)), names)
    assert later.known == ("read_file",)
    assert later.disabled == ("write_file",)
    # A new --only names them, so they join.
    later = applied(policy, PolicyChange(only=("*_file",)), names)
    assert later.known == ("read_file", "write_file", "delete_file")


def test_enable_and_disable_undo_each_other() -> None:
    names = [t["name"] for t in TOOLS]
    policy = applied(ToolPolicy(), PolicyChange(disable=("read_file",)), names)
    assert (policy.enabled, policy.disabled) == ((), ("read_file",))
    policy = applied(policy, PolicyChange(enable=("read_file",)), names)
    assert (policy.enabled, policy.disabled) == (("read_file",), ())
    assert applied(policy, PolicyChange(reset=True), names) == ToolPolicy(known=tuple(names))


def test_patterns_are_validated_against_the_listed_tools() -> None:
    names = [t["name"] for t in TOOLS]
    change = PolicyChange(disable=("*_file", "reed_file"), only=("nothing*",))
    assert unknown_patterns(change, names) == ["reed_file", "nothing*"]


def test_the_table_round_trips_and_bad_tables_are_refused() -> None:
    policy = ToolPolicy(only=("a*",), enabled=("b",), disabled=("c",), budget=5,
                        deny_destructive=True, deny_open_world=True, known=("a1", "b"))
    assert policy_from_table("s", table_of(policy)) == policy
    for table, message in (
        ({"budget": -1}, "budget must be a whole number"),
        ({"budget": True}, "budget must be a whole number"),
        ({"disabled": "x"}, "disabled must be a list"),
        ({"only": [""]}, "only must be a list"),
        ({"deny_destructive": "yes"}, "deny_destructive must be true or false"),
        ({"disable": ["x"]}, "unknown key 'disable'"),
    ):
        with pytest.raises(PolicyError, match=message):
            policy_from_table("s", table)


def test_a_budget_for_all_servers_is_split_into_shares_each_budget_keeps_exactly() -> None:
    other = [tool("ping", readOnlyHint=True), tool("huge", readOnlyHint=True)]
    servers = {"fs": Server(TOOLS, TOKENS, ToolPolicy(disabled=("write_file",))),
               "net": Server(other, [60, 900], ToolPolicy(enabled=("huge",)))}
    shares = split_budget(servers, 1200)
    # huge (900, enabled) first; then 50, 60, 80, 100 fit (1190); search_web (200) does not.
    assert shares["net"] == (960, ("ping", "huge"), ())
    assert shares["fs"] == (230, ("read_file", "delete_file", "list_dir"), ("search_web",))
    for name, (tools, tokens, policy) in servers.items():
        own = decide(tools, tokens, policy._replace(budget=shares[name].budget))
        assert tuple(d.name for d in own if d.on) == shares[name].kept
