"""Which rules run: `--select`/`--ignore` over a repo's own settings.

A repo keeps its choice in `.mcpctl.toml` (`[check]`) or, failing that, in
`pyproject.toml` (`[tool.mcpctl.check]`), with the keys `select` and `ignore`: lists
of rule codes or code prefixes (`MCP02` is MCP020-MCP029; `ALL` is every rule). On the
command line `--select` replaces the repo's settings (what is asked for by name is not
hidden by them) and `--ignore` adds to them.
"""

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from mcpctl.errors import ConfigError, UsageError
from mcpctl.lint.rules import RULES

_KEYS = frozenset({"select", "ignore"})


class Selection(NamedTuple):
    """The rule codes `check` runs: selected and not ignored."""

    select: tuple[str, ...] = ("ALL",)
    ignore: tuple[str, ...] = ()

    def enabled(self, code: str) -> bool:
        return _matches(code, self.select) and not _matches(code, self.ignore)


def _matches(code: str, selectors: Iterable[str]) -> bool:
    return any(selector == "ALL" or code.startswith(selector) for selector in selectors)


def load_selection(
    root: Path, cli_select: Sequence[str], cli_ignore: Sequence[str]
) -> Selection:
    """The repo's settings under `root`, overridden by the command line's."""
    select = _codes(cli_select, "--select", UsageError)
    ignore = _codes(cli_ignore, "--ignore", UsageError)
    if select:  # asked for by name: the repo's choices do not hide it
        return Selection(select, ignore)
    from_file = read_repo_settings(root)
    return Selection(from_file.select, from_file.ignore + ignore)


def read_repo_settings(root: Path) -> Selection:
    own = root / ".mcpctl.toml"
    if own.is_file():
        return settings_from_table(_read_toml(own).get("check", {}), f"{own} [check]")
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        table: Any = _read_toml(pyproject)
        for key in ("tool", "mcpctl", "check"):
            table = table.get(key, {}) if isinstance(table, Mapping) else {}
        return settings_from_table(table, f"{pyproject} [tool.mcpctl.check]")
    return Selection()


def settings_from_table(table: Any, source: str) -> Selection:
    """Pure: validate one settings table; unknown keys and codes are errors, not silence."""
    if not isinstance(table, Mapping):
        raise ConfigError(f"{source}: must be a table")
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ConfigError(f"{source}: unknown key {unknown[0]!r} (known: ignore, select)")
    lists = {}
    for key in ("select", "ignore"):
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ConfigError(f"{source}: {key!r} must be a list of rule codes")
        lists[key] = _codes(value, f"{source} {key}", ConfigError)
    return Selection(lists["select"] or ("ALL",), lists["ignore"])


def _codes(
    values: Iterable[str], where: str, error: type[UsageError] | type[ConfigError]
) -> tuple[str, ...]:
    """`["MCP010,MCP02", "mcp030"]` → ("MCP010", "MCP02", "MCP030"), each checked."""
    codes = tuple(part.strip().upper() for value in values for part in value.split(",")
                  if part.strip())
    for code in codes:
        if code != "ALL" and not any(known.startswith(code) for known in RULES):
            raise error(f"{where}: {code!r} is not a rule code or prefix "
                        "(see mcpctl check --list-rules)")
    return codes


def _read_toml(path: Path) -> dict[str, Any]:
    from mcpctl.syntax.toml_keys import MAX_KEY_PARTS, KeyTooLong, key_positions  # noqa: PLC0415
    from mcpctl.syntax.toml_loads import load_toml  # noqa: PLC0415 - only with a settings file

    try:
        text = path.read_bytes().decode("utf-8")
        key_positions(text, max_parts=MAX_KEY_PARTS)  # a key that would exhaust tomllib
        return load_toml(text)
    except KeyTooLong as error:
        raise ConfigError(f"{path}: invalid TOML: {error} (at line {error.line})") from None
    except UnicodeDecodeError as error:  # a ValueError too: before the next clause
        raise ConfigError(f"{path}: not UTF-8 text (byte {error.start})") from None
    except ValueError as error:  # tomllib's own, or a limit `load_toml` words as it does
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
