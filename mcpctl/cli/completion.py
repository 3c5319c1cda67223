"""Shell completion (bash, zsh, fish) of commands, server names and client names.

typer's `--install-completion`/`--show-completion` install a small script that calls
`mcpctl` again with `_MCPCTL_COMPLETE` set. Only then does `attach` give the commands'
arguments their completers, in one place instead of one per command, so an ordinary
command line pays nothing for completion. Completers read what `list` reads (both
tiers; `--workspace`/`--config` if already typed) and never fail: a broken config
completes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

COMPLETE_VAR = "_MCPCTL_COMPLETE"
# (command path, parameter name) → what the parameter names.
SERVER_PARAMS = {("show", "name"), ("remove", "name"), ("run", "name"), ("trust", "names"),
                 ("revoke", "names"), ("cost", "names"), ("doctor", "names"),
                 ("export", "names"), ("tools", "name")}
CLIENT_PARAMS = {("import", "source"), ("export", "target"), ("clients enable", "client"),
                 ("clients disable", "client")}
SECRET_PARAMS = {("secret get", "name"), ("secret rm", "name")}


SHELLS = ("bash", "zsh", "fish")
_NAMED_SHELL = "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION"  # typer's own switch


def requested() -> bool:
    return COMPLETE_VAR in os.environ


def honour_named_shell(args: list[str]) -> None:
    """`--show-completion bash`, `--install-completion zsh`: use the shell named. typer
    otherwise treats both options as flags, detects the shell from the parent process
    and ignores the name, so from a script with no shell above it they fail ("Shell
    not supported"). Its switch makes the options take the name; set before the app
    is built, and only when a shell is named."""
    for index, arg in enumerate(args[:-1]):
        if arg in ("--show-completion", "--install-completion") and args[index + 1] in SHELLS:
            os.environ[_NAMED_SHELL] = "1"
            return


def attach(group: Any) -> None:
    """Give the known parameters of `group`'s commands (a click group) their completers."""
    for path, command in _walk(group, ""):
        for param in command.params:
            key = (path, param.name)
            if key in SERVER_PARAMS:
                param._custom_shell_complete = _completer(server_names)
            elif key in CLIENT_PARAMS:
                param._custom_shell_complete = _completer(client_names)
            elif key in SECRET_PARAMS:
                param._custom_shell_complete = _completer(secret_names)


def _walk(command: Any, path: str) -> list[tuple[str, Any]]:
    found = [(path, command)] if path else []
    for name, sub in getattr(command, "commands", {}).items():
        found += _walk(sub, f"{path} {name}".strip())
    return found


def _completer(names: Callable[[dict[str, Any]], list[str]]) -> Callable[..., list[str]]:
    def complete(ctx: Any, _param: Any, incomplete: str) -> list[str]:
        try:
            candidates = names(ctx.params)
        except Exception:  # noqa: BLE001 - a completion must never print a traceback
            return []
        return [name for name in candidates if name.startswith(incomplete)]
    return complete


def server_names(params: dict[str, Any]) -> list[str]:
    from mcpctl.cli.context import context  # noqa: PLC0415
    from mcpctl.config.view import view_here  # noqa: PLC0415

    ctx = context(_path(params.get("workspace")), _path(params.get("config")),
                  creates_config=True, home_required=False)  # completion never fails
    # The names `list` shows here (from a subfolder, its own files' too: issue 22).
    return sorted({server.name for server in view_here(ctx).servers})


def client_names(_params: dict[str, Any]) -> list[str]:
    from mcpctl.clients.table import CLIENT_IDS  # noqa: PLC0415

    return list(CLIENT_IDS)


def secret_names(_params: dict[str, Any]) -> list[str]:
    from mcpctl.credentials.keyring_store import indexed_names  # noqa: PLC0415
    from mcpctl.paths import Paths  # noqa: PLC0415

    return indexed_names(Paths.from_environment(os.environ).secrets_index)


def _path(value: object) -> Path | None:
    return Path(value) if isinstance(value, (str, Path)) else None
