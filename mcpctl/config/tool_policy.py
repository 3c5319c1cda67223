"""`[tools.NAME]` in config.toml: the user's policy for each server's tools (issue 29).

Read side for `run`, `cost`, `list`, `export` and `sync`; the write side is
`set_policy`, through the one read-modify-write of config.toml (`edit_config`), so the
rest of the file stays as the user wrote it. The tables live outside `[servers.NAME]`:
switching a tool off must not change the server's fingerprint, its approval or its
cached probe, and a workspace server's tools are the user's to limit too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcpctl.config.tier_load import read_config_text
from mcpctl.errors import ConfigError
from mcpctl.filtering.policy import PolicyError, ToolPolicy, policy_from_table, table_of
from mcpctl.model import Problem
from mcpctl.syntax.toml_loads import load_toml

SECTION = "tools"


def read_policies(config_file: Path) -> dict[str, ToolPolicy]:
    """Every server's policy; ConfigError for a table that is not one (a policy read
    wrongly could switch on what the user switched off, so nothing is guessed)."""
    if not config_file.exists():
        return {}
    text = read_config_text(config_file)
    if isinstance(text, Problem):
        raise ConfigError(str(text))
    if SECTION not in text:  # no table can be there: skip the parse (`run` starts here)
        return {}
    try:
        data = load_toml(text)
    except ValueError as error:
        raise ConfigError(f"{config_file}: {error}") from None
    return policies_of(config_file, data)


def policies_of(config_file: Path, data: dict[str, Any]) -> dict[str, ToolPolicy]:
    tables = data.get(SECTION, {})
    if not isinstance(tables, dict):
        raise ConfigError(f"{config_file}: '{SECTION}' must be a table of [tools.NAME] tables")
    try:
        return {name: policy_from_table(name, table) for name, table in tables.items()}
    except PolicyError as error:
        raise ConfigError(f"{config_file}: {error}") from None


def policy_for(config_file: Path, name: str) -> ToolPolicy | None:
    return read_policies(config_file).get(name)


def set_policy(config_file: Path, name: str, policy: ToolPolicy | None) -> bool:
    """Write `[tools.NAME]` (None removes it); False when it already said that."""
    import copy  # noqa: PLC0415 - edits only

    from mcpctl.config.user_config_edit import ConfigChange, edit_config  # noqa: PLC0415
    from mcpctl.syntax.toml_tables import rewrite_tables, splice_table  # noqa: PLC0415

    def edit(_: str, data: dict[str, Any]) -> tuple[bool, ConfigChange | None]:
        current = policies_of(config_file, data).get(name)
        if current == policy:
            return False, None
        expected = copy.deepcopy(data)
        tables = expected.setdefault(SECTION, {})
        table = None if policy is None else table_of(policy)
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
