"""The real `pre-commit` tool runs this repo's hook (`.pre-commit-hooks.yaml`) on a commit.

`pre-commit try-repo` clones HEAD of this checkout (plus uncommitted changes to tracked
files) and pip-installs it into a fresh virtualenv, so the hook is tested as a user
gets it. That install is the only network use: PyPI for the dependencies.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HOOKS = REPO / ".pre-commit-hooks.yaml"
TOKEN = "ghp_0123456789abcdefghijABCDEFGHIJexampl"
LEAKY = ('{\n  "mcpServers": {\n    "github": {\n      "command": "mcpctl",\n'
         '      "args": ["run", "github"],\n      "env": {"GITHUB_TOKEN": "' + TOKEN + '"}\n'
         "    }\n  }\n}\n")


def pre_commit_exe() -> str:
    found = shutil.which("pre-commit", path=str(Path(sys.executable).parent))
    assert found, "pre-commit is a dev dependency (uv sync)"
    return found


def git(project: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=project, env=env, text=True,
                          capture_output=True, check=False, timeout=600)


@pytest.fixture
def project(tmp_path: Path, request: pytest.FixtureRequest) -> tuple[Path, dict[str, str]]:
    tracked = subprocess.run(["git", "ls-files", "--error-unmatch", HOOKS.name], cwd=REPO,
                             capture_output=True, check=False)
    assert tracked.returncode == 0, "commit .pre-commit-hooks.yaml: try-repo sees only git"
    cache = getattr(request.config, "cache", None)
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.invalid",
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        # virtualenv must not fetch newer seed packages in the background.
        "VIRTUALENV_NO_PERIODIC_UPDATE": "1", "VIRTUALENV_NO_DOWNLOAD": "1",
    }
    env.pop("PYTHONPATH", None)  # the hook must run the package pip installed, not ours
    if cache is not None:  # a warm pip cache across runs keeps this test quick
        env["PIP_CACHE_DIR"] = str(cache.mkdir("pre-commit-pip"))
    folder = tmp_path / "project"
    folder.mkdir()
    assert git(folder, "init", "-q", env=env).returncode == 0
    hook = folder / ".git" / "hooks" / "pre-commit"
    hook.write_text(f'#!/bin/sh\nexec "{pre_commit_exe()}" try-repo "{REPO}" mcpctl-check\n')
    hook.chmod(0o755)
    return folder, env


# Two try-repo runs, each pip-installing mcpctl into a fresh virtualenv: minutes on a
# busy machine with a cold cache, far past the suite's 120 s default.
@pytest.mark.timeout(900)
def test_a_leaked_token_is_rejected_and_a_clean_commit_passes(
    project: tuple[Path, dict[str, str]],
) -> None:
    folder, env = project
    (folder / ".mcp.json").write_text(LEAKY)
    (folder / "README.md").write_text("demo\n")
    git(folder, "add", ".mcp.json", "README.md", env=env)
    rejected = git(folder, "commit", "-q", "-m", "add servers", env=env)
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode == 1, output
    assert re.search(r"mcpctl check \(MCP server config\)\.+Failed", output), output
    assert (".mcp.json:6:15: MCP010 error: mcpServers.github.env.GITHUB_TOKEN: literal "
            'GitHub token "ghp_***"') in output
    assert TOKEN not in output
    assert git(folder, "rev-parse", "--verify", "HEAD", env=env).returncode != 0

    (folder / ".mcp.json").write_text(LEAKY.replace(TOKEN, "${GITHUB_TOKEN}"))
    git(folder, "add", ".mcp.json", env=env)
    accepted = git(folder, "commit", "-q", "-m", "add servers", env=env)
    output = accepted.stdout + accepted.stderr
    assert accepted.returncode == 0, output
    assert re.search(r"mcpctl check \(MCP server config\)\.+Passed", output), output
    assert git(folder, "log", "--format=%s", env=env).stdout == "add servers\n"
