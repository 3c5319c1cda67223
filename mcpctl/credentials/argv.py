"""Secrets that would be expanded into a server's argv (issue 14, pure).

Any local user can read every process's arguments (`ps`, `/proc/PID/cmdline`); a
process's environment is readable only by its owner and root. So a `${secret:…}` in
`command` or `args` is worth a warning from `add`, `doctor` and `check`, with env as
the fix (most servers read their token from an env var).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mcpctl.variables import Kind, references


def secrets_in_argv(entry: Mapping[str, Any]) -> list[str]:
    """The secret names referenced in an entry's `command` and `args`, in order."""
    texts: list[Any] = [entry.get("command"), *_list(entry.get("args"))]
    names: list[str] = []
    for text in texts:
        if isinstance(text, str):
            names += [r.name for r in references(text) if r.kind is Kind.SECRET]
    return list(dict.fromkeys(names))


def secrets_in_spec(command: str | None, args: Sequence[str]) -> list[str]:
    return secrets_in_argv({"command": command, "args": list(args)})


def argv_exposure(server: object, secret: str) -> str:
    """Why a secret in argv is a risk, and the fix (one sentence, no value in it)."""
    return (f"server {str(server)!r} passes ${{secret:{secret}}} in its arguments, which "
            "every local user can read in the process list; pass it in env instead if the "
            "server can read it from there")


def argv_warning(server: str, secret: str) -> str:
    return (f"warning: {argv_exposure(server, secret)} (--env KEY=${{secret:{secret}}})")


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def option_before(args: list[Any], index: int) -> str | None:
    """The option that names `args[index]` (`--token VALUE`), if any. `--key=v -v`: the
    `-v` is an option of its own, and `--key=v` already holds its value."""
    before = args[index - 1] if index else None
    arg = args[index]
    if not isinstance(before, str) or not before.startswith("-") or "=" in before:
        return None
    return None if isinstance(arg, str) and arg.startswith("-") else before
