"""The narrower pin set: a version-pinned registry package run by a known runner.

Only where the code provably comes from outside the workspace (issue 11, item 1) may
an approval cover less than the whole workspace: `npx [-y] NAME@X.Y.Z` and
`uvx NAME==X.Y.Z` (or `NAME@X.Y.Z`), started at the workspace root, every directory of
`PATH` absolute, and every variable of the server's own — from `env` and from
`envFile` alike, as the launch receives them — on an allow-list of names known to be
data the server reads, never configuration a runner or interpreter loads code by
(issue 23: `HOME`, `XDG_*` or a proxy would move the runner's configuration or cache
into the repo; an unknown name is not known to be harmless).

What the runner still reads from the workspace is enumerated below and pinned,
present or absent (creating `.npmrc` after approval is a change);
`tests/pinning/test_runner_inputs.py` attacks each. The workspace must neither ship
the package (`node_modules/NAME`, a `.bin` entry, a `package.json` that is NAME, a
`.venv`) nor configure the runner (`.npmrc`, `uv.toml`, `[tool.uv]`,
`.python-version`): then the package and what it loads come from the workspace
(`supplied_by_workspace`), and the whole workspace is pinned. Anything else — another
runner, a range, a `--package`/`--from` option, a `cwd` — pins the whole workspace.

`runner_inputs` is pure (the definition's argv and env as the launch expands them);
`supplied_by_workspace` looks at the workspace.
"""

import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

_VERSION = r"\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?"
_NPM_PACKAGE = re.compile(rf"(?P<name>(?:@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*)@{_VERSION}")
_PY_PACKAGE = re.compile(rf"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?:==|@){_VERSION}")
_QUIET = frozenset({"-y", "--yes", "-q", "--quiet", "--no-install"})
# Names known to be data for the server (credentials, endpoints, identifiers, levels):
# upper case, ending in one of these words. Matched whole, case-sensitively: npm reads
# `npm_config_*` in any case, so a lower-case name is never data here.
_DATA_ONLY = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:TOKEN|API_KEY|APIKEY|KEY|SECRET|"
                        r"PASSWORD|PAT|ID|URL|HOST|PORT|REGION|ORG|PROJECT|USER|USERNAME|"
                        r"EMAIL|LEVEL|TIMEOUT|MODEL)")
# ... unless the name is a runner's, an interpreter's or the network stack's own
# (`UV_INDEX_URL`, `PIP_INDEX_URL`, `NPM_CONFIG_REGISTRY`, `HTTPS_PROXY_…`).
_TOOLING = re.compile(r"(?:NODE|NPM|NPX|UV|UVX|PIP|PIPX|PYTHON|LD|DYLD|CONDA|COREPACK|YARN|"
                      r"PNPM|BUN|DENO|HTTP|HTTPS|ALL|NO|FTP|SSL|REQUESTS|CURL|XDG|GIT|SSH|"
                      r"HOME|TMP|TEMP|PREFIX|APPDATA|USERPROFILE|ELECTRON|PUPPETEER|"
                      r"PLAYWRIGHT|SHARP|PRISMA|NVM|VOLTA|ASDF|MISE|PYENV|VIRTUAL)_")

NPX_INPUTS = (".npmrc", "package.json", "package-lock.json", "npm-shrinkwrap.json",
              "node_modules/.package-lock.json", "node_modules/.bin")
UVX_INPUTS = ("uv.toml", "pyproject.toml", ".python-version", ".python-versions", ".venv",
              "uv.lock")
# Present at all, each means the workspace ships the package or configures the runner.
_NPX_SUPPLIES = (".npmrc", "node_modules/.bin")
_UVX_SUPPLIES = ("uv.toml", ".python-version", ".python-versions", ".venv")
_MAX_MANIFEST = 1024 * 1024  # a bigger package.json or pyproject.toml supplies, unread


class RunnerInputs(NamedTuple):
    """The workspace paths a package runner reads for one pinned package."""

    runner: str  # "npx" or "uvx": which enumerated set applies
    package: str  # NAME@VERSION as written
    paths: tuple[str, ...]  # workspace-relative paths the runner reads (files or folders)
    name: str = ""  # the package's name


def data_only(name: str) -> bool:
    """Whether a variable of this name is known to be data the server reads."""
    return _DATA_ONLY.fullmatch(name) is not None and _TOOLING.match(name) is None


def runner_inputs(argv: Sequence[str | None], env: Mapping[str, str | None],
                  environ_path: str | None, has_cwd: bool) -> RunnerInputs | None:
    """The runner's workspace inputs, or None when the whole workspace must be pinned.
    `env`: every variable of the server's own the launch sets (`env` and `envFile`)."""
    if has_cwd or not argv or argv[0] is None or not all(data_only(key) for key in env):
        return None
    if environ_path is None or not all(os.path.isabs(d) for d in environ_path.split(os.pathsep)):
        return None  # `.` or an empty entry in PATH finds the repo's own `node`
    runner = os.path.basename(argv[0])
    first = next((arg for arg in argv[1:] if arg is None or arg not in _QUIET), None)
    if first is None:
        return None
    if runner == "npx" and (match := _NPM_PACKAGE.fullmatch(first)):
        name = match["name"]
        return RunnerInputs("npx", first, (*NPX_INPUTS, f"node_modules/{name}"), name)
    if runner == "uvx" and (match := _PY_PACKAGE.fullmatch(first)):
        return RunnerInputs("uvx", first, UVX_INPUTS, match["name"])
    return None


def supplied_by_workspace(inputs: RunnerInputs, real_root: Path) -> str | None:
    """Why the package (or the runner's configuration) comes from the workspace, if it
    does: then the narrow set does not apply."""
    if inputs.runner == "npx":
        for relative in (*_NPX_SUPPLIES, f"node_modules/{inputs.name}"):
            if os.path.lexists(real_root / relative):
                return f"the workspace has {relative}"
        manifest = _small_text(real_root / "package.json")
        if manifest is not None and _package_name(manifest) in (inputs.name, None):
            return f"the workspace's package.json is {inputs.name} (or unreadable)"
        return None
    for relative in _UVX_SUPPLIES:
        if os.path.lexists(real_root / relative):
            return f"the workspace has {relative}"
    project = _small_text(real_root / "pyproject.toml")
    if project is not None and (project == "" or "tool.uv" in project.replace(" ", "")):
        return "the workspace's pyproject.toml configures uv (or is unreadable)"
    return None


def _small_text(path: Path) -> str | None:
    """A manifest's text; None when absent; "" when it cannot be read within bounds."""
    if not os.path.lexists(path):
        return None
    try:
        if not path.is_file() or path.stat().st_size > _MAX_MANIFEST:
            return ""
        return path.read_text(encoding="utf-8") or " "
    except (OSError, UnicodeDecodeError):
        return ""


def _package_name(text: str) -> str | None:
    """The `name` a package.json gives; None when it cannot be told."""
    if not text.strip():
        return None
    try:
        document = json.loads(text)
    except ValueError:
        return None
    name = document.get("name", "") if isinstance(document, dict) else None
    return name if isinstance(name, str) else None


def narrow_inputs(argv: Sequence[str | None], env: Mapping[str, str | None],
                  environ_path: str | None, *, has_cwd: bool, env_known: bool,
                  real_root: Path) -> RunnerInputs | None:
    """`runner_inputs`, when every variable is known and the workspace supplies nothing."""
    inputs = runner_inputs(argv, env, environ_path, has_cwd) if env_known else None
    if inputs is None or supplied_by_workspace(inputs, real_root) is not None:
        return None
    return inputs
