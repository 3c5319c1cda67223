"""`[clients]` in config.toml: which clients `mcpctl sync` writes, and how (DESIGN §11).

```toml
[clients]
sync = ["claude-code", "cursor"]   # set by `mcpctl clients enable NAME`
command = "/home/me/.local/bin/mcpctl"   # optional: the command exported entries run
```

Edited like every change to config.toml (DESIGN §10, STYLE 5): under the file's lock,
through tomlkit (comments and order kept), re-read with tomllib and saved atomically
only if it means exactly what was intended.
"""

from __future__ import annotations

import copy
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpctl.atomic import atomic_write_text, file_lock
from mcpctl.clients import CLIENT_IDS
from mcpctl.errors import ConfigError
from mcpctl.model import Problem
from mcpctl.tier_load import read_config_text

DEFAULT_COMMAND = "mcpctl"


@dataclass(frozen=True)
class ClientSettings:
    sync: tuple[str, ...] = ()
    command: str = DEFAULT_COMMAND


def read_client_settings(path: Path) -> ClientSettings:
    """The `[clients]` table; ConfigError when it is invalid or names unknown clients."""
    return _settings(path, _parse(path, _text(path)))


def _text(path: Path) -> str:
    if not path.exists() and not path.is_symlink():
        return ""
    text = read_config_text(path)
    if isinstance(text, Problem):
        raise ConfigError(f"{text}; the file was not changed")
    return text


def _parse(path: Path, text: str) -> dict[str, Any]:
    from mcpctl.user_config import toml_problem  # noqa: PLC0415

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{toml_problem(path, error, text)}; the file was not changed") from None


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
    command = table.get("command", DEFAULT_COMMAND)
    if not isinstance(command, str) or not command:
        raise ConfigError(f"{path}: [clients] command must be a non-empty string")
    return ClientSettings(tuple(dict.fromkeys(sync)), command)


def set_sync(path: Path, client_id: str, *, enabled: bool) -> bool:
    """Add `client_id` to (or remove it from) `[clients] sync`; False when it already
    was (or was not) there and nothing was written."""
    with file_lock(path):
        text = _text(path)
        data = _parse(path, text)
        current = list(_settings(path, data).sync)
        if (client_id in current) == enabled:
            return False
        wanted = [*current, client_id] if enabled else [n for n in current if n != client_id]
        expected = copy.deepcopy(data)
        expected.setdefault("clients", {})["sync"] = wanted
        new_text = _with_sync(text, wanted)
        try:
            means = tomllib.loads(new_text) == expected
        except tomllib.TOMLDecodeError:
            means = False
        if not means:
            raise ConfigError(f"{path}: the edited file would not mean what was intended; "
                              "the file was not changed (please report this)")
        atomic_write_text(path, new_text)
        return True


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
