"""The invocation's one `Machine` (paths, workspace root, user-tier file, environ, home,
OS), built without typer.

Built here so a fast path (`run`, `check`) can have it without importing typer; the
typer options in `options.py` build it through the same function.
"""

from __future__ import annotations

import os
from pathlib import Path

from mcpctl.machine import Machine
from mcpctl.paths import Paths


def context(workspace: Path | None, config: Path | None, *,
            creates_config: bool = False, home_required: bool = True) -> Machine:
    """The invocation's `Machine`: built here once, then passed down. A `--config` file
    that does not exist is a usage error for a command that only reads it (a typo there
    would otherwise list "no servers", issue 26); `creates_config`: the command may
    create it (`add`, `import`, `clients enable`). HOME unset, empty or relative is a
    usage error too (mcpctl would otherwise write under the account's home unasked),
    except where `home_required` is False: `run`, which a client starts with whatever
    environment it has."""
    from mcpctl.config.workspace import find_workspace_root  # noqa: PLC0415

    if home_required:
        _check_home(os.environ.get("HOME"))
    if config is not None and not creates_config and not os.path.lexists(config):
        from mcpctl.errors import UsageError  # noqa: PLC0415

        raise UsageError(f"--config {config}: no such file (mcpctl add --config {config} "
                         "... creates it)")
    paths = Paths.from_environment(os.environ)
    root = workspace.resolve() if workspace is not None else find_workspace_root(Path.cwd())
    return Machine.current(paths, config.absolute() if config is not None else paths.config_file,
                           root, root_given=workspace is not None)


def _check_home(home: str | None) -> None:
    if os.name != "posix" or (home is not None and os.path.isabs(home)):
        return  # Windows finds the home folder without HOME
    from mcpctl.errors import UsageError  # noqa: PLC0415

    state = "not set" if home is None else "empty" if not home else f"not absolute ({home!r})"
    raise UsageError(f"HOME is {state}: mcpctl keeps its files and finds the clients' files "
                     "in the home folder; set HOME to that folder")
