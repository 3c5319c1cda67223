"""`[tools.NAME]` in config.toml: the user's policy for each server's tools (issue 29).

Read side for `run`, `cost`, `list`, `export` and `sync`; the write side is
`set_policy`, through the one read-modify-write of config.toml (`edit_config`), so the
rest of the file stays as the user wrote it. The tables live outside `[servers.NAME]`:
switching a tool off must not change the server's fingerprint, its approval or its
cached probe, and a workspace server's tools are the user's to limit too.

`[tools."*"]` is the budget for every server together (`mcpctl tools --global-budget`):
`budget`, and `servers`, the servers whose own budget its last split set. No server
can be called `*`, so the table cannot be a server's policy.
"""

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from mcpctl.config.tier_load import read_config_text
from mcpctl.errors import ConfigError
from mcpctl.filtering.policy import (
    MAX_BUDGET,
    PolicyError,
    ToolPolicy,
    policy_from_table,
    table_of,
)
from mcpctl.model import Problem
from mcpctl.syntax.toml_loads import load_toml

SECTION = "tools"
ALL = "*"  # [tools."*"]: the budget of every server together


class GlobalBudget(NamedTuple):
    total: int
    servers: tuple[str, ...] = ()  # whose own budget the last split set


def read_policies(config_file: Path) -> dict[str, ToolPolicy]:
    """Every server's policy; ConfigError for a table that is not one (a policy read
    wrongly could switch on what the user switched off, so nothing is guessed)."""
    data = _data(config_file)
    return {} if data is None else policies_of(config_file, data)


def read_global_budget(config_file: Path) -> GlobalBudget | None:
    data = _data(config_file)
    return None if data is None else global_budget_of(config_file, data)


def _data(config_file: Path) -> dict[str, Any] | None:
    if not config_file.exists():
        return None
    text = read_config_text(config_file)
    if isinstance(text, Problem):
        raise ConfigError(str(text))
    if SECTION not in text:  # no table can be there: skip the parse (`run` starts here)
        return None
    try:
        return load_toml(text)
    except ValueError as error:
        raise ConfigError(f"{config_file}: {error}") from None


def _tables(config_file: Path, data: dict[str, Any]) -> dict[str, Any]:
    tables = data.get(SECTION, {})
    if not isinstance(tables, dict):
        raise ConfigError(f"{config_file}: '{SECTION}' must be a table of [tools.NAME] tables")
    return tables


def policies_of(config_file: Path, data: dict[str, Any]) -> dict[str, ToolPolicy]:
    tables = _tables(config_file, data)
    try:
        return {name: policy_from_table(name, table) for name, table in tables.items()
                if name != ALL}
    except PolicyError as error:
        raise ConfigError(f"{config_file}: {error}") from None


def global_budget_of(config_file: Path, data: dict[str, Any]) -> GlobalBudget | None:
    table = _tables(config_file, data).get(ALL)
    if table is None:
        return None
    where = f'{config_file}: [tools."{ALL}"]'
    if not isinstance(table, dict) or set(table) - {"budget", "servers"}:
        raise ConfigError(f"{where} takes only `budget` and `servers`")
    total, servers = table.get("budget"), table.get("servers", [])
    if not isinstance(total, int) or isinstance(total, bool) or not 0 <= total <= MAX_BUDGET:
        raise ConfigError(f"{where} budget must be a whole number of tokens from 0 to "
                          f"{MAX_BUDGET:,}")
    if not isinstance(servers, list) or not all(isinstance(n, str) for n in servers):
        raise ConfigError(f"{where} servers must be a list of server names")
    return GlobalBudget(total, tuple(servers))


def set_global_budget(config_file: Path, setting: GlobalBudget | None) -> bool:
    """Write `[tools."*"]` (None removes it); False when it already said that."""
    table = None if setting is None else {"budget": setting.total,
                                          "servers": list(setting.servers)}
    return _set_table(config_file, ALL, table,
                      lambda data: global_budget_of(config_file, data) == setting)


def policy_for(config_file: Path, name: str) -> ToolPolicy | None:
    return read_policies(config_file).get(name)


def set_policy(config_file: Path, name: str, policy: ToolPolicy | None) -> bool:
    """Write `[tools.NAME]` (None removes it); False when it already said that."""
    return _set_table(config_file, name, None if policy is None else table_of(policy),
                      lambda data: policies_of(config_file, data).get(name) == policy)


def _set_table(config_file: Path, name: str, table: dict[str, Any] | None,
               same: Callable[[dict[str, Any]], bool]) -> bool:
    import copy  # noqa: PLC0415 - edits only

    from mcpctl.config.user_config_edit import ConfigChange, edit_config  # noqa: PLC0415
    from mcpctl.syntax.toml_tables import rewrite_tables, splice_table  # noqa: PLC0415

    def edit(_: str, data: dict[str, Any]) -> tuple[bool, ConfigChange | None]:
        if same(data):
            return False, None
        expected = copy.deepcopy(data)
        tables = expected.setdefault(SECTION, {})
        if table is None:
            tables.pop(name, None)
            if not tables:
                del expected[SECTION]
        else:
            tables[name] = table
        return True, ConfigChange(
            expected, (lambda text: splice_table(text, SECTION, name, table),
                       lambda text: rewrite_tables(text, SECTION, {name: table})),
            f"{config_file}: mcpctl cannot change [tools.{name}] without changing what the "
            "rest of the file means (write it as its own table); the file was not changed")

    return edit_config(config_file, edit)
