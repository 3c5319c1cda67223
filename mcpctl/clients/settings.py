"""`[clients]` in config.toml: which clients `mcpctl sync` writes, and how (DESIGN §11).

```toml
[clients]
sync = ["claude-code", "cursor"]   # set by `mcpctl clients enable NAME`
command = "/home/me/.local/bin/mcpctl"   # set by `mcpctl clients command PATH`
```

Without `command`, exported entries run what `exported_command.default_command`
chooses: `mcpctl` or the running mcpctl's absolute path, and never, while another can
be found, one that a git work tree holds.

Edited like every change to config.toml (DESIGN §10, STYLE 5), through `edit_config`:
under the file's lock, through tomlkit (comments and order kept), re-read with tomllib
and saved atomically only if it means exactly what was intended.
"""

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from mcpctl.clients.table import CLIENT_IDS
from mcpctl.config.user_config_edit import ConfigChange, config_text, edit_config, parse_config
from mcpctl.errors import ConfigError

if TYPE_CHECKING:
    from mcpctl.clients.exported_command import ExportedCommand


class ClientSettings(NamedTuple):
    """The `[clients]` settings of config.toml: what `sync` writes and how entries start mcpctl."""

    sync: tuple[str, ...] = ()
    command: str | None = None  # None: `default_command()`

    @property
    def exported(self) -> "ExportedCommand":
        """The command exported entries run, with what to tell the user about it."""
        from mcpctl.clients.exported_command import (  # noqa: PLC0415 - not on list's path
            ExportedCommand,
            default_command,
        )

        return ExportedCommand(self.command) if self.command else default_command(sys.argv)

    @property
    def exported_command(self) -> str:
        return self.exported.command


def read_client_settings(path: Path) -> ClientSettings:
    """The `[clients]` table; ConfigError when it is invalid or names unknown clients."""
    return _settings(path, parse_config(path, config_text(path)))


def _settings(path: Path, data: dict[str, Any]) -> ClientSettings:
    table = data.get("clients", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: 'clients' must be a table ([clients])")
    sync = table.get("sync", [])
    if not isinstance(sync, list) or not all(isinstance(name, str) for name in sync):
        raise ConfigError(f"{path}: [clients] sync must be a list of client names")
    unknown = [name for name in sync if name not in CLIENT_IDS]
    if unknown:
        raise ConfigError(f"{path}: [clients] sync names unknown client {unknown[0]!r} "
                          f"(known: {', '.join(CLIENT_IDS)})")
    command = table.get("command")
    if command is not None and (not isinstance(command, str) or not command):
        raise ConfigError(f"{path}: [clients] command must be a non-empty string")
    return ClientSettings(tuple(dict.fromkeys(sync)), command)


def set_sync(path: Path, client_id: str, *, enabled: bool) -> bool:
    """Add `client_id` to (or remove it from) `[clients] sync`; False when it already
    was (or was not) there and nothing was written."""
    def edit(_: str, data: dict[str, Any]) -> tuple[bool, ConfigChange | None]:
        current = list(_settings(path, data).sync)
        if (client_id in current) == enabled:
            return False, None
        wanted = [*current, client_id] if enabled else [n for n in current if n != client_id]
        import copy  # noqa: PLC0415 - exports and edits only, not list's start

        expected = copy.deepcopy(data)
        expected.setdefault("clients", {})["sync"] = wanted
        return True, ConfigChange(
            expected, (lambda text: _with_sync(text, wanted),),
            f"{path}: the edited file would not mean what was intended; the file was not "
            "changed (please report this)")

    return edit_config(path, edit)


def set_command(path: Path, command: str | None) -> bool:
    """Set `[clients] command` (None removes it: the default applies again); False
    when it already was so and nothing was written."""
    if command is not None and not command.strip():
        from mcpctl.errors import UsageError  # noqa: PLC0415

        raise UsageError("the exported command must not be empty")

    def edit(_: str, data: dict[str, Any]) -> tuple[bool, ConfigChange | None]:
        if _settings(path, data).command == command:
            return False, None
        import copy  # noqa: PLC0415 - exports and edits only, not list's start

        expected = copy.deepcopy(data)
        table = expected.setdefault("clients", {})
        if command is None:
            table.pop("command", None)
            if not table:
                del expected["clients"]
        else:
            table["command"] = command
        return True, ConfigChange(
            expected, (lambda text: _with_command(text, command),),
            f"{path}: the edited file would not mean what was intended; the file was not "
            "changed (please report this)")

    return edit_config(path, edit)


def _with_command(text: str, command: str | None) -> str:
    import tomlkit  # noqa: PLC0415 - only edits need it

    document = tomlkit.parse(text)
    table = document.get("clients")
    if command is None:
        if table is not None and "command" in table:
            del table["command"]
            if not table:
                del document["clients"]
        return tomlkit.dumps(document)
    if table is None:
        table = tomlkit.table()
        document["clients"] = table
    table["command"] = command
    return tomlkit.dumps(document)


def _with_sync(text: str, names: list[str]) -> str:
    import tomlkit  # noqa: PLC0415 - only edits need it

    document = tomlkit.parse(text)
    table = document.get("clients")
    if table is None:
        table = tomlkit.table()
        document["clients"] = table
    array = tomlkit.array()
    array.extend(names)
    table["sync"] = array
    return tomlkit.dumps(document)
