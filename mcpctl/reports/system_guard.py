"""What `mcpctl guard --system` reports: the managed files, printed or written."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpctl.errors import ConfigError, ExitCode
from mcpctl.reports.report import Report

if TYPE_CHECKING:
    from mcpctl.machine import Machine

SCHEMA_VERSION = 2  # 2: `key`, the texts show the guard key as ***; Codex and `limits`


def system_guard_report(machine: Machine, *, root: Path, command: str | None,
                        write: bool) -> Report[dict[str, Any]]:
    """The managed files from the user tier's servers; with `write`, written under
    `root` (atomically, mode 0644: every user's client reads them), with the machine's
    guard key, made there on first need (every user's mcpctl reads it). The key is
    never in the report: the files' texts show it as `***`."""
    from mcpctl.clients.guard_key import HIDDEN, ensure_key, system_key_path  # noqa: PLC0415
    from mcpctl.clients.settings import read_client_settings  # noqa: PLC0415
    from mcpctl.clients.system_guard import (  # noqa: PLC0415
        GEMINI_SYSTEM_VARIABLE,
        LIMITS,
        NOT_WRITTEN,
        system_files,
    )
    from mcpctl.clients.write.export import user_servers  # noqa: PLC0415
    from mcpctl.files.atomic import atomic_write_text  # noqa: PLC0415

    chosen = command or read_client_settings(machine.config_file).exported_command
    names = sorted(user_servers(machine.config_file))
    gemini = machine.environ.get(GEMINI_SYSTEM_VARIABLE)
    existing: dict[str, Any] = {}
    files = system_files({}, chosen, names, HIDDEN, os_key=machine.os_key,
                         gemini_path=gemini)
    for file in files:
        existing[file.path] = _read(_under(root, file.path))
    shown = system_files(existing, chosen, names, HIDDEN, os_key=machine.os_key,
                         gemini_path=gemini)
    key_path = _under(root, str(system_key_path(machine.os_key)))
    made = write and not key_path.exists()
    if write:
        key = ensure_key(key_path, mode=0o644)
        files = system_files(existing, chosen, names, key, os_key=machine.os_key,
                             gemini_path=gemini)
        for file in files:
            target = _under(root, file.path)
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise ConfigError(f"{target.parent}: cannot create the folder "
                                  f"({error.strerror}); nothing more was written") from None
            atomic_write_text(target, file.text, mode=0o644)
    body = {"written": write, "command": chosen,
            "files": [{"client": f.client, "path": str(_under(root, f.path)),
                       "text": f.text} for f in shown],
            "key": {"path": str(key_path), "made": made},
            "not_written": dict(NOT_WRITTEN), "limits": dict(LIMITS)}
    return Report("guard", body, body, ExitCode.OK, version=SCHEMA_VERSION)


def _under(root: Path, path: str) -> Path:
    return root / path.lstrip("/") if root != Path("/") else Path(path)


def _read(path: Path) -> Any:
    """The file's JSON object (a TOML file: its text, once it parses), None when there is
    none; ConfigError otherwise (a managed file mcpctl cannot read is never overwritten)."""
    import json  # noqa: PLC0415

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot be read ({error}); nothing was written") from None
    if path.suffix == ".toml":
        return _toml_text(path, text)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(f"{path}:{error.lineno}:{error.colno}: not JSON ({error.msg}); "
                          "nothing was written") from None
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: the top level is not an object; nothing was written")
    return value


def _toml_text(path: Path, text: str) -> str:
    from mcpctl.syntax.toml_loads import load_toml  # noqa: PLC0415

    try:
        load_toml(text)
    except ValueError as error:
        raise ConfigError(f"{path}: not TOML ({error}); nothing was written") from None
    return text
