"""The narrower pin set: a version-pinned registry package run by a known runner.

Only where the code provably comes from outside the workspace (issue 11, item 1) may
an approval cover less than the whole workspace: `npx [-y] NAME@X.Y.Z` and
`uvx NAME==X.Y.Z` (or `NAME@X.Y.Z`), started at the workspace root, with no variable
of the server's own that changes how the runner or the interpreter loads code, and
every directory of `PATH` absolute. What the runner still reads from the workspace is
enumerated below and pinned, present or absent (creating `.npmrc` after approval is
a change); `tests/pinning/test_runner_inputs.py` attacks each. Anything else — another
runner, a range, a `--package`/`--from` option, a `cwd` — pins the whole workspace.

Pure: takes the definition's argv and env as the launch expands them.
"""

import os
import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

_VERSION = r"\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?"
_NPM_PACKAGE = re.compile(rf"(?P<name>(?:@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*)@{_VERSION}")
_PY_PACKAGE = re.compile(rf"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?:==|@){_VERSION}")
_QUIET = frozenset({"-y", "--yes", "-q", "--quiet", "--no-install"})
# Variables that make a runner or an interpreter load other code, by name or prefix.
_LOADING = re.compile(r"(?i)(NODE_|NPM_CONFIG_|UV_|PIP_|PYTHON|LD_|DYLD_|BASH_ENV$|ENV$"
                      r"|PATH$|VIRTUAL_ENV$|CONDA_)")

NPX_INPUTS = (".npmrc", "package.json", "package-lock.json", "npm-shrinkwrap.json",
              "node_modules/.package-lock.json", "node_modules/.bin")
UVX_INPUTS = ("uv.toml", "pyproject.toml", ".python-version", ".python-versions", ".venv",
              "uv.lock")


class RunnerInputs(NamedTuple):
    """The workspace paths a package runner reads for one pinned package."""

    runner: str  # "npx" or "uvx": which enumerated set applies
    package: str  # NAME@VERSION as written
    paths: tuple[str, ...]  # workspace-relative paths the runner reads (files or folders)


def runner_inputs(argv: Sequence[str | None], env: Mapping[str, str | None],
                  environ_path: str | None, has_cwd: bool) -> RunnerInputs | None:
    """The runner's workspace inputs, or None when the whole workspace must be pinned."""
    if has_cwd or not argv or argv[0] is None or any(_LOADING.match(key) for key in env):
        return None
    if environ_path is None or not all(os.path.isabs(d) for d in environ_path.split(os.pathsep)):
        return None  # `.` or an empty entry in PATH finds the repo's own `node`
    runner = os.path.basename(argv[0])
    first = next((arg for arg in argv[1:] if arg is None or arg not in _QUIET), None)
    if first is None:
        return None
    if runner == "npx" and (match := _NPM_PACKAGE.fullmatch(first)):
        name = match["name"]
        return RunnerInputs("npx", first, (*NPX_INPUTS, f"node_modules/{name}"))
    if runner == "uvx" and (match := _PY_PACKAGE.fullmatch(first)):
        return RunnerInputs("uvx", first, UVX_INPUTS)
    return None
