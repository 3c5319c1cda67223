"""The machine's guard key: a word in every command line mcpctl lets Claude Code start
(issue 22, docs/design.md "Threat model").

Claude Code's allowlist matches `[command, ...args]` and never `env`, so an allowed
line such as `mcpctl run --guard` could be reused by a fresh clone's `.mcp.json`
entry of a new name with `LD_PRELOAD` or `PYTHONPATH` in its env: the loader runs the
repo's code before mcpctl's gate does anything. A random key in the argument list of
every entry mcpctl writes for Claude Code, and of every allowlist line, makes the
allowed lines ones no repo author can write.

The key is a file, never an environment variable (Claude Code expands `${VAR}` on both
sides of the allowlist match, so a variable holding it would hand it to any entry),
and never printed: entries and lines are shown with `--key ***`. A managed machine has
one root-owned key every user's mcpctl reads (`SYSTEM_KEY`, written by `mcpctl guard
--system --write`), so the users' entries match the managed allowlist; otherwise each
user has one in mcpctl's data folder, created (0600) on first need.

`mcpctl run` accepts `--key` and does not check it: a check in `run` would come after
the loader and interpreter already ran whatever an entry's env asked for. The refusal
that counts is Claude Code's, before it starts anything.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpctl.errors import ConfigError

if TYPE_CHECKING:
    from mcpctl.paths import Paths

KEY_OPTION = "--key"
HIDDEN = "***"
KEY_FILE = "guard.key"
# Where a managed machine keeps the key (root-owned, 0644), beside nothing a user owns.
SYSTEM_KEY = {"linux": "/etc/mcpctl/guard.key",
              "macos": "/Library/Application Support/mcpctl/guard.key",
              "windows": "C:/ProgramData/mcpctl/guard.key"}
_SHAPE = r"[0-9a-f]{32,128}"  # compiled on first read: `run` imports this module too


def keyed(args: Sequence[str], key: str) -> list[str]:
    """`args` with the key after them: `run NAME --key K`, `run --guard --key K`."""
    return [*args, KEY_OPTION, key]


def key_in(args: Any) -> str | None:
    """The key an argument list ends with, if it ends with one."""
    if not isinstance(args, list | tuple) or len(args) < 2 or args[-2] != KEY_OPTION:
        return None
    value = args[-1]
    return value if isinstance(value, str) and value else None


def without_key(args: Sequence[str]) -> list[str]:
    """`args` with a trailing `--key K` taken off."""
    return list(args[:-2]) if key_in(args) is not None else list(args)


def hidden(args: Sequence[str]) -> list[str]:
    """`args` as they may be shown: the key's value replaced by `***`."""
    return keyed(without_key(args), HIDDEN) if key_in(args) is not None else list(args)


def hide_in(text: str, key: str | None) -> str:
    """`text` with every occurrence of `key` replaced by `***` (a diff, an error)."""
    return text.replace(key, HIDDEN) if key else text


def system_key_path(os_key: str) -> Path:
    return Path(SYSTEM_KEY.get(os_key, SYSTEM_KEY["linux"]))


def machine_key(paths: Paths, os_key: str, *, create: bool) -> str | None:
    """The key this machine's entries carry: the system one when there is one, else
    the user's own, created on first need with `create` (else None when there is none).
    A key file that cannot be read, or that holds no key, is a ConfigError naming it."""
    system = read_key(system_key_path(os_key))
    if system is not None:
        return system
    own = paths.data_dir / KEY_FILE
    found = read_key(own)
    if found is not None or not create:
        return found
    return ensure_key(own, mode=0o600)


def read_key(path: Path) -> str | None:
    """The key in `path`; None when there is no such file."""
    try:
        text = path.read_text(encoding="ascii")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or "not a key file"
        raise ConfigError(f"{path}: cannot read mcpctl's guard key ({reason}); nothing was "
                          "changed") from None
    key = text.strip()
    if re.fullmatch(_SHAPE, key) is None:
        raise ConfigError(f"{path}: does not hold an mcpctl guard key (remove it and run "
                          "`mcpctl sync` to make a new one); nothing was changed")
    return key


def ensure_key(path: Path, *, mode: int) -> str:
    """The key in `path`, made (atomically, under the file's lock, `mode`) when there is
    none yet, so two mcpctls starting at once agree on one key."""
    import secrets  # noqa: PLC0415 - only the first sync on a machine makes a key

    from mcpctl.files.atomic import atomic_write_text, file_lock  # noqa: PLC0415

    with file_lock(path):
        found = read_key(path)
        if found is not None:
            return found
        key = secrets.token_hex(16)
        atomic_write_text(path, key + "\n", mode=mode)
        return key
