"""From a definition to what its launch reaches: argv, cwd, envFile, env and PATH.

Texts are expanded with every variable the launch will expand except secrets (and VS
Code inputs, which never launch): a secret is known only at launch, where
`launch.resolve_launch` checks the resolved command line again. The definition's own
values stay as written in the fingerprint; only which files are pinned depends on the
environment.
"""

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from mcpctl.errors import ConfigError
from mcpctl.model import ServerSpec
from mcpctl.pinning.program import AT_LAUNCH, at_home, located
from mcpctl.syntax.env_file import read_env_file
from mcpctl.variables import Context, UnresolvedVariable, expand


class Reach(NamedTuple):
    """What a launch runs, as text after expansion; None where it is known only at launch."""

    argv: Sequence[str | None]
    cwd: str | None  # absolute; None: the root
    env_file: str | None
    env: Mapping[str, str | None]  # the server's own variables, the envFile's included
    path: str | None  # the PATH the child searches for argv[0]
    # False when an envFile is named but its variables cannot be known here (unset
    # variable, unreadable, not a regular file, past the bound): the launch may then
    # receive any variable, so nothing that depends on the variables can be narrowed.
    env_known: bool = True


def reach_of(spec: ServerSpec, root: Path, environ: Mapping[str, str],
             home: Path | None) -> Reach:
    context = Context(root, home or root, environ, lambda _name: AT_LAUNCH)

    def known(text: str) -> str | None:
        if "${" not in text:
            return text
        if home is None and "${userHome}" in text:
            return None
        try:
            return expand(text, context, server=spec.name, field="")
        except UnresolvedVariable:
            return None  # the launch refuses it too (unset variable, input, unknown)

    env_file = known(spec.env_file) if spec.env_file is not None else None
    env: dict[str, str | None] = {}
    env_known = spec.env_file is None
    if env_file is not None:
        values = _env_file_values(_absolute(env_file, root, home))
        env_known = values is not None
        env.update(values or {})
    env.update({key: known(text) for key, text in spec.env.items()})
    path = env["PATH"] if "PATH" in env else environ.get("PATH", os.defpath)
    cwd = known(spec.cwd) if spec.cwd is not None else None
    folder = _absolute(cwd, root, home) if cwd is not None else None
    return Reach(argv=[known(text) for text in spec.argv()],
                 cwd=str(folder) if folder is not None else None,
                 env_file=env_file, env=env, path=path, env_known=env_known)


def _absolute(text: str, root: Path, home: Path | None) -> Path | None:
    """Where the launch looks for it (`program.located`); None where that is not known
    here: a secret in the text, or the home it names unknown."""
    if AT_LAUNCH in text or (home is None and at_home(text)):
        return None
    return root / text if home is None else located(text, root, home)


def _env_file_values(path: Path | None) -> dict[str, str] | None:
    """Its variables; None when they cannot be known here (the launch reads it again,
    refusing what is not a bounded regular file, and its values are checked there)."""
    if path is None:
        return None
    try:
        return read_env_file(path)
    except (OSError, ValueError, ConfigError):
        return None


def env_file_variables(spec: ServerSpec, root: Path, environ: Mapping[str, str],
                       home: Path | None) -> dict[str, str] | None:
    """What the envFile sets, as the launch will read it (for the trust prompt); None
    when it cannot be read here."""
    if spec.env_file is None:
        return {}
    reach = reach_of(spec, root, environ, home)
    if reach.env_file is None:
        return None
    return _env_file_values(_absolute(reach.env_file, root, home))
