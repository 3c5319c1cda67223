"""Every path text a launch could load code from, before any is looked up.

- the command when it holds a `/`, each argument, an option's value (`--require=./hook.js`,
  `-r./hook.js`), each token of an env value (`NODE_OPTIONS=--require ./hook.js`,
  `BASH_ENV=./evil.sh`; split at whitespace, `=` and `:`), `envFile` and the values
  it sets;
- the program or `-m` module of an interpreter, also behind a wrapper
  (`uv run python -m x`, `env A=1 node .`).

Pure: takes a `Reach`, returns texts; `pin_paths` finds which are workspace files.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from mcpctl.pinning.interpreters import interpreter_named, program_of
from mcpctl.pinning.reach import Reach

FILE = "file"  # a candidate named directly (an interpreter's are PROGRAM or MODULE)
_ENV_SEPARATORS = r"[\s=:]+"  # compiled on first use


def candidates(reach: Reach) -> Iterator[tuple[str, str]]:
    """(path text, FILE/PROGRAM/MODULE) for everything the launch could load code from."""
    command, *args = reach.argv or [None]
    if command and "/" in command:  # else exec looks for it on PATH only: see on_path
        yield command, FILE
    for arg in args:
        if arg:
            yield from ((text, FILE) for text in _option_paths(arg) if text)
    for value in reach.env.values():
        if value:
            yield value, FILE
            for token in re.split(_ENV_SEPARATORS, value):
                yield from ((text, FILE) for text in _option_paths(token) if text)
    if reach.env_file:
        yield reach.env_file, FILE
    # The interpreter may come after a wrapper: `uv run python -m x`, `env A=1 node .`.
    for index, word in enumerate(reach.argv):
        cli = interpreter_named(os.path.basename(word or ""))
        if cli is not None:
            yield from program_of(reach.argv[index + 1:], cli)
            return


def _option_paths(arg: str) -> Iterator[str]:
    """An argument is a path; an option's value may be one (`--x=PATH`, `-xPATH`)."""
    if not arg.startswith("-"):
        yield arg
        return
    _, equals, value = arg.partition("=")
    if equals:
        yield value
    elif not arg.startswith("--") and len(arg) > 2:
        yield arg[2:]
