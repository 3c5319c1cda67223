"""`mcpctl tools NAME` as a real process against real servers: listing, switching tools
off and on in config.toml, validation, and a tool the server adds later."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path
from typing import Any

from tests.conftest import Result, run_mcpctl
from tests.protocol.conftest import require_npm_server

TOOLS_SERVER = Path(__file__).resolve().parent.parent / "servers" / "tools_server.py"


def tools_file(path: Path, names: list[str]) -> Path:
    path.write_text(json.dumps([{"name": n, "description": f"{n} things",
                                 "inputSchema": {"type": "object"},
                                 "annotations": {"readOnlyHint": n.startswith("read")}}
                                for n in names]))
    return path


def configure(user_config: Path, tools: Path) -> None:
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(f'# my servers\n[servers.fs]\ncommand = "{sys.executable}"\n'
                           f'args = ["{TOOLS_SERVER}", "--tools", "{tools}"]\n')


def tools(tmp_path: Path, *args: str) -> Result:
    return run_mcpctl(["tools", *args], cwd=tmp_path)


def document(result: Result) -> dict[str, Any]:
    assert result.code == 0, result.err
    data: dict[str, Any] = json.loads(result.out)
    return data


def states(result: Result) -> dict[str, str]:
    return {t["name"]: ("on" if t["on"] else t["reason"]) for t in document(result)["tools"]}


def test_lists_the_everything_servers_tools_with_cost_and_annotations(
        tmp_path: Path, user_config: Path) -> None:
    entry = require_npm_server("server-everything")
    user_config.parent.mkdir(parents=True)
    user_config.write_text(f'[servers.everything]\ncommand = "node"\nargs = ["{entry}"]\n')
    got = document(tools(tmp_path, "everything", "--json"))
    by_name = {t["name"]: t for t in got["tools"]}
    assert got["tool_count"] == got["tools_on"] == len(by_name) >= 10
    assert by_name["echo"]["annotations"] == {"readOnlyHint": True, "destructiveHint": False,
                                              "openWorldHint": False}
    assert got["total_tokens"] == sum(t["tokens"] for t in got["tools"]) > 500
    assert got["policy"] == {}
    text = tools(tmp_path, "everything")
    assert text.code == 0
    assert text.out.startswith("TOOL ")
    assert f"everything: {len(by_name)} of {len(by_name)} tools on" in text.out


def test_disable_enable_only_and_budget_are_stored_beside_the_server(
        tmp_path: Path, user_config: Path) -> None:
    configure(user_config, tools_file(tmp_path / "tools.json", ["read_a", "read_b", "write_c"]))
    assert states(tools(tmp_path, "fs", "--disable", "read_*", "--json")) == {
        "read_a": "disabled (read_*)", "read_b": "disabled (read_*)", "write_c": "on"}
    assert states(tools(tmp_path, "fs", "--enable", "read_b", "--json"))["read_b"] == "on"
    text = user_config.read_text()
    assert text.startswith("# my servers\n[servers.fs]\n")  # the rest is as it was
    data = tomllib.loads(text)
    assert data["tools"]["fs"] == {"enabled": ["read_b"], "disabled": ["read_*"],
                                   "known": ["read_a", "read_b", "write_c"]}
    got = document(tools(tmp_path, "fs", "--deny-destructive", "--json"))
    assert [t["name"] for t in got["tools"] if t["on"]] == ["read_b"]
    assert got["policy"]["deny_destructive"] is True
    got = document(tools(tmp_path, "fs", "--reset", "--budget", "0", "--json"))
    assert (got["tools_on"], got["budget"]) == (0, 0)
    assert tools(tmp_path, "fs", "--no-budget", "--json").code == 0
    assert tomllib.loads(user_config.read_text())["tools"]["fs"] == {
        "known": ["read_a", "read_b", "write_c"]}


def test_a_pattern_that_matches_no_tool_is_refused_and_nothing_is_written(
        tmp_path: Path, user_config: Path) -> None:
    configure(user_config, tools_file(tmp_path / "tools.json", ["read_a", "write_c"]))
    before = user_config.read_text()
    result = tools(tmp_path, "fs", "--disable", "write_c,wrte_*")
    assert (result.code, result.out) == (2, "")
    assert result.err == ("mcpctl: error: server 'fs' lists no tool matching 'wrte_*' "
                          "(its tools: read_a, write_c)\n")
    assert user_config.read_text() == before
    result = tools(tmp_path, "fs", "--enable", "read_a", "--disable", "read_a")
    assert result.code == 2
    assert "'read_a' is both enabled and disabled" in result.err


def test_a_tool_the_server_adds_later_is_off_under_only_and_reported(
        tmp_path: Path, user_config: Path) -> None:
    listed = tools_file(tmp_path / "tools.json", ["read_a", "read_b"])
    configure(user_config, listed)
    assert states(tools(tmp_path, "fs", "--only", "read_*", "--json")) == {
        "read_a": "on", "read_b": "on"}
    tools_file(listed, ["read_a", "read_b", "read_evil"])  # matches the pattern, too
    result = tools(tmp_path, "fs", "--refresh", "--json")
    assert states(result)["read_evil"] == "new since the policy was set"
    assert result.err == ("warning: fs: tool 'read_evil' appeared since the policy was set "
                          "and is off; switch it on with: mcpctl tools fs --enable read_evil\n")
    # Changing something else does not let it in; naming it does.
    assert states(tools(tmp_path, "fs", "--disable", "read_a", "--json"))["read_evil"] == \
        "new since the policy was set"
    assert states(tools(tmp_path, "fs", "--enable", "read_evil", "--json"))["read_evil"] == "on"


def test_cost_shows_before_and_after_the_filter_and_list_the_tools_on(
        tmp_path: Path, user_config: Path) -> None:
    listed = tools_file(tmp_path / "tools.json", ["read_a", "read_b", "write_c"])
    configure(user_config, listed)
    before = document(tools(tmp_path, "fs", "--json"))
    tokens = {t["name"]: t["tokens"] for t in before["tools"]}
    plain = run_mcpctl(["cost"], cwd=tmp_path)
    assert " ON " not in plain.out.splitlines()[0]  # no filter, no column
    assert tools(tmp_path, "fs", "--only", "read_*").code == 0
    cost = run_mcpctl(["cost", "--json"], cwd=tmp_path)
    assert cost.code == 0, cost.err
    server = json.loads(cost.out)["servers"][0]
    assert (server["tool_count"], server["total_tokens"]) == (3, sum(tokens.values()))
    assert (server["tools_on"], server["tokens_on"]) == (2, tokens["read_a"] + tokens["read_b"])
    assert server["tools_off"] == [{"name": "write_c", "reason": "not in only"}]
    text = run_mcpctl(["cost"], cwd=tmp_path).out
    assert text.splitlines()[0].split()[:6] == ["SERVER", "STATE", "PROTOCOL", "TOOLS",
                                                "TOKENS", "ON"]
    assert f"after the tool filters 2 tools, {tokens['read_a'] + tokens['read_b']:,} tokens" \
        in text
    rows = json.loads(run_mcpctl(["list", "--json"], cwd=tmp_path).out)["servers"]
    assert (rows[0]["last_probe"]["tools"], rows[0]["last_probe"]["tools_on"]) == (3, 2)
    assert ", 2 on (" in run_mcpctl(["list"], cwd=tmp_path).out
    # A tool added later is reported by cost --refresh too, and is off.
    tools_file(listed, ["read_a", "read_b", "write_c", "read_more"])
    refreshed = run_mcpctl(["cost", "--refresh", "--json"], cwd=tmp_path)
    assert json.loads(refreshed.out)["servers"][0]["tools_on"] == 2
    assert "warning: fs: tool 'read_more' appeared since the policy was set and is off" \
        in refreshed.err


def test_a_global_budget_is_split_into_each_servers_own(tmp_path: Path,
                                                        user_config: Path) -> None:
    configure(user_config, tools_file(tmp_path / "a.json", ["read_a", "read_b", "write_c"]))
    other = tools_file(tmp_path / "b.json", ["ping", "pong"])
    with user_config.open("a") as config:
        config.write(f'\n[servers.net]\ncommand = "{sys.executable}"\n'
                     f'args = ["{TOOLS_SERVER}", "--tools", "{other}"]\n')
    costs = {t["name"]: t["tokens"] for name in ("fs", "net")
             for t in document(tools(tmp_path, name, "--json"))["tools"]}
    cheapest = sorted(costs.values())
    total = sum(cheapest[:3])  # room for the three cheapest tools of both servers
    split = document(tools(tmp_path, "--global-budget", str(total), "--json"))
    assert split["spent"] <= total
    kept = [n for s in split["servers"] for n in s["kept"]]
    assert len(kept) >= 3
    assert sorted(costs[n] for n in kept) == cheapest[:len(kept)]
    # Each share is now that server's own budget, and keeps exactly those tools.
    for share in split["servers"]:
        own = document(tools(tmp_path, share["name"], "--json"))
        assert own["budget"] == share["budget"]
        assert [t["name"] for t in own["tools"] if t["on"]] == share["kept"]
    assert tools(tmp_path, "fs", "--global-budget", "5").code == 2
    assert tools(tmp_path).code == 2


def add_server(user_config: Path, name: str, listed: Path) -> None:
    with user_config.open("a") as config:
        config.write(f'\n[servers.{name}]\ncommand = "{sys.executable}"\n'
                     f'args = ["{TOOLS_SERVER}", "--tools", "{listed}"]\n')


def test_a_global_budget_stays_and_takes_in_a_server_added_later(
        tmp_path: Path, user_config: Path) -> None:
    """Before, the split was an action: a server added after it had no budget at all."""
    configure(user_config, tools_file(tmp_path / "a.json", ["read_a", "read_b"]))
    split = document(tools(tmp_path, "--global-budget", "100000", "--json"))
    assert [share["name"] for share in split["servers"]] == ["fs"]
    assert tomllib.loads(user_config.read_text())["tools"]["*"] == {
        "budget": 100000, "servers": ["fs"]}
    add_server(user_config, "net", tools_file(tmp_path / "b.json", ["ping", "pong"]))
    listed = tools(tmp_path, "net", "--json")
    net = document(listed)
    assert net["budget"] == net["tokens_on"] == net["total_tokens"] > 0
    assert f"note: global budget of 100,000 tokens: server 'net' now gets " \
           f"{net['budget']:,}\n" in listed.err
    add_server(user_config, "web", tools_file(tmp_path / "c.json", ["fetch"]))
    cost = run_mcpctl(["cost", "--json"], cwd=tmp_path)
    assert cost.code == 0, cost.err
    tables = tomllib.loads(user_config.read_text())["tools"]
    assert tables["*"] == {"budget": 100000, "servers": ["fs", "net", "web"]}
    assert all(tables[name]["budget"] > 0 for name in ("fs", "net", "web"))
    assert sum(tables[name]["budget"] for name in ("fs", "net", "web")) <= 100000
    refused = tools(tmp_path, "fs", "--budget", "5")
    assert refused.code == 2
    assert "--no-global-budget" in refused.err
    dropped = document(tools(tmp_path, "--no-global-budget", "--json"))
    assert (dropped["total"], dropped["dropped"]) == (100000, ["fs", "net", "web"])
    tables = tomllib.loads(user_config.read_text())["tools"]
    assert "*" not in tables
    assert not [name for name, table in tables.items() if "budget" in table]
    assert document(tools(tmp_path, "--no-global-budget", "--json"))["dropped"] == []


def test_a_tight_global_budget_is_split_again_when_a_server_comes(
        tmp_path: Path, user_config: Path) -> None:
    """All of fs fits at first; once net is measured its cheaper tool takes fs's place."""
    configure(user_config, tools_file(tmp_path / "a.json", ["read_a_long_named_tool_x"]))
    fs_cost = document(tools(tmp_path, "fs", "--json"))["total_tokens"]
    assert document(tools(tmp_path, "--global-budget", str(fs_cost), "--json"))["spent"] \
        == fs_cost
    add_server(user_config, "net", tools_file(tmp_path / "b.json", ["p"]))
    net = document(tools(tmp_path, "net", "--json"))
    assert net["tools_on"] == 1
    assert net["total_tokens"] < fs_cost
    fs = document(tools(tmp_path, "fs", "--json"))
    assert (fs["budget"], fs["tools_on"]) == (0, 0)


def test_sync_splits_the_global_budget_again(tmp_path: Path, user_config: Path) -> None:
    """The total edited in config.toml by hand is what `sync` splits and writes."""
    configure(user_config, tools_file(tmp_path / "a.json", ["read_a", "read_b"]))
    assert run_mcpctl(["clients", "enable", "claude-code"]).code == 0
    assert tools(tmp_path, "--global-budget", "100000").code == 0
    assert tomllib.loads(user_config.read_text())["tools"]["fs"]["budget"] > 0
    user_config.write_text(user_config.read_text().replace("budget = 100000", "budget = 0"))
    checked = run_mcpctl(["sync", "--check"])  # a check writes nothing
    assert checked.code == 1  # fs is not in Claude Code's file yet
    assert tomllib.loads(user_config.read_text())["tools"]["fs"]["budget"] > 0
    synced = run_mcpctl(["sync"])
    assert synced.code == 0, synced.err
    assert tomllib.loads(user_config.read_text())["tools"]["fs"]["budget"] == 0
