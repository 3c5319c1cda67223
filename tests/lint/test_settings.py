"""Rule selection: codes and prefixes, from the repo's settings and the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpctl.errors import ConfigError, UsageError
from mcpctl.lint.settings import Selection, load_selection, settings_from_table


def test_prefixes_select_and_ignore_wins() -> None:
    selection = Selection(select=("MCP01", "MCP020"), ignore=("MCP011",))
    assert [c for c in ("MCP010", "MCP011", "MCP020", "MCP021") if selection.enabled(c)] == [
        "MCP010", "MCP020"]
    assert Selection().enabled("MCP060")


def test_a_table_is_validated() -> None:
    assert settings_from_table({"ignore": ["mcp022"]}, "x") == Selection(("ALL",), ("MCP022",))
    assert settings_from_table({}, "x") == Selection()
    with pytest.raises(ConfigError, match=r"^x: must be a table$"):
        settings_from_table(["MCP001"], "x")


def test_command_line_over_repo_settings(tmp_path: Path) -> None:
    (tmp_path / ".mcpctl.toml").write_text('[check]\nselect = ["MCP0"]\nignore = ["MCP022"]\n')
    assert load_selection(tmp_path, [], ["MCP011"]) == Selection(("MCP0",), ("MCP022", "MCP011"))
    assert load_selection(tmp_path, ["MCP022"], []) == Selection(("MCP022",), ())
    with pytest.raises(UsageError, match="'NOPE' is not a rule code"):
        load_selection(tmp_path, [], ["nope"])


def test_mcpctl_toml_is_preferred_to_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.mcpctl.check]\nignore = ["MCP020"]\n')
    assert load_selection(tmp_path, [], []) == Selection(("ALL",), ("MCP020",))
    (tmp_path / ".mcpctl.toml").write_text("# nothing to change\n")
    assert load_selection(tmp_path, [], []) == Selection()
