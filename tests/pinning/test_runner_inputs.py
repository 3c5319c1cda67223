"""The narrower pin set of a version-pinned npx/uvx package: exactly what the runner reads
from the workspace, each input attacked; anything else pins the whole workspace."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from mcpctl.pinning.runner_inputs import NPX_INPUTS, UVX_INPUTS, runner_inputs
from tests.components import require_program
from tests.conftest import ASCII_LOCALE
from tests.pinning.workspace_cli import listed, mcpctl

PATH = os.environ["PATH"]
CLI = '#!/usr/bin/env node\nrequire("fs").writeFileSync("MARKER", "")\n'


@pytest.fixture(autouse=True)
def _quiet_npm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("npm_config_update_notifier", "false")


@pytest.mark.parametrize(("argv", "runner"), [
    (["npx", "-y", "fakepkg@1.0.0"], "npx"),
    (["npx", "--yes", "@scope/pkg@2.3.4-rc.1", "--stdio"], "npx"),
    (["uvx", "mcp-server-time==2026.1.0"], "uvx"),
    (["/usr/bin/npx", "-y", "fakepkg@1.0.0"], "npx"),
])
def test_a_version_pinned_package_gets_the_runners_inputs(argv: list[str], runner: str) -> None:
    inputs = runner_inputs(argv, {}, PATH, has_cwd=False)
    assert inputs is not None
    assert inputs.runner == runner
    expected = (*NPX_INPUTS, f"node_modules/{argv[2].rpartition('@')[0]}") \
        if runner == "npx" else UVX_INPUTS
    assert inputs.paths == expected


def test_data_only_variables_keep_the_narrow_set() -> None:
    env = {"GITHUB_TOKEN": "x", "OPENAI_API_KEY": "x", "AWS_ACCESS_KEY_ID": "x",
           "DATABASE_URL": "x", "LOG_LEVEL": "debug", "SLACK_TEAM_ID": "x"}
    assert runner_inputs(["npx", "-y", "fakepkg@1.0.0"], env, PATH, has_cwd=False) is not None


@pytest.mark.parametrize(("argv", "env", "path", "cwd"), [
    (["npx", "-y", "fakepkg"], {}, PATH, False),  # no version: the registry decides
    (["npx", "-y", "fakepkg@^1.0.0"], {}, PATH, False),  # a range
    (["npx", "-y", "fakepkg@latest"], {}, PATH, False),
    (["npx", "-p", "fakepkg@1.0.0", "x"], {}, PATH, False),  # --package: not enumerated
    (["npx", "-y", "./localpkg"], {}, PATH, False),  # the package is the workspace's
    (["npx", "-y", "fakepkg@1.0.0"], {"NODE_OPTIONS": "--require ./x.js"}, PATH, False),
    (["npx", "-y", "fakepkg@1.0.0"], {"npm_config_userconfig": "./rc"}, PATH, False),
    (["npx", "-y", "fakepkg@1.0.0"], {"HOME": "./home"}, PATH, False),  # not known as data
    (["npx", "-y", "fakepkg@1.0.0"], {"XDG_CONFIG_HOME": "./c"}, PATH, False),
    (["npx", "-y", "fakepkg@1.0.0"], {"HTTPS_PROXY": "http://127.0.0.1:1"}, PATH, False),
    (["npx", "-y", "fakepkg@1.0.0"], {"NODE_EXTRA_CA_CERTS": "./ca.pem"}, PATH, False),
    (["npx", "-y", "fakepkg@1.0.0"], {"NPM_CONFIG_REGISTRY_URL": "x"}, PATH, False),
    (["uvx", "tool==1.0.0"], {"UV_INDEX_URL": "http://127.0.0.1:1/"}, PATH, False),
    (["uvx", "tool==1.0.0"], {"APPDATA": "./appdata"}, PATH, False),
    (["uvx", "tool==1.0.0"], {"github_token": "x"}, PATH, False),  # lower case: npm's kind
    (["uvx", "tool==1.0.0"], {"PYTHONPATH": "lib"}, PATH, False),
    (["uvx", "tool==1.0.0"], {"UV_CONFIG_FILE": "./uv.toml"}, PATH, False),
    (["npx", "-y", "fakepkg@1.0.0"], {}, f".:{PATH}", False),  # finds the repo's `node`
    (["npx", "-y", "fakepkg@1.0.0"], {}, f"{PATH}:", False),
    (["npx", "-y", "fakepkg@1.0.0"], {}, PATH, True),  # a cwd: another project root
    (["uvx", "--from", "git+https://x", "tool"], {}, PATH, False),
    (["npx", "-y", None], {}, PATH, False),  # known only at launch
])
def test_anything_else_pins_the_whole_workspace(
    argv: list[str | None], env: dict[str, str], path: str, cwd: bool
) -> None:
    assert runner_inputs(argv, env, path, has_cwd=cwd) is None


def npx_workspace(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src" / "app.js").write_text("app\n")
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": {
        "command": "npx", "args": ["-y", "fakepkg@1.0.0"]}}}))
    return root


def local_copy(root: Path, marker: Path) -> None:
    """What makes npx run the repo's copy instead of the registry's."""
    package = root / "node_modules" / "fakepkg"
    package.mkdir(parents=True)
    (package / "package.json").write_text(
        '{"name": "fakepkg", "version": "1.0.0", "bin": {"fakepkg": "cli.js"}}')
    (package / "cli.js").write_text(CLI.replace("MARKER", str(marker)))
    (package / "cli.js").chmod(0o755)
    (root / "node_modules" / ".bin").mkdir()
    (root / "node_modules" / ".bin" / "fakepkg").symlink_to("../fakepkg/cli.js")


def test_the_npx_set_is_shown_and_ignores_the_rest_of_the_workspace(tmp_path: Path) -> None:
    root = npx_workspace(tmp_path)
    trusted = mcpctl(root, "trust", "srv", "--yes")
    assert trusted.code == 0
    assert ("  covers:      only what npx reads from the workspace for fakepkg@1.0.0 (7 paths, "
            "present or absent): the package comes from the registry\n") in trusted.out
    (root / "src" / "app.js").write_text("edited\n")  # not an input of npx
    assert listed(root)["state"] == "trusted"
    shown = json.loads(mcpctl(root, "show", "srv", "--json").out)["definitions"][0]
    assert shown["pin_set"]["kind"] == "npx"


def test_a_repo_copy_of_the_pinned_package_is_refused(tmp_path: Path) -> None:
    require_program("npx")
    root = npx_workspace(tmp_path)
    evil = tmp_path / "evil-ran"
    assert mcpctl(root, "trust", "srv", "--yes").code == 0
    local_copy(root, evil)
    # Without mcpctl: npx prefers the repo's node_modules copy of the very same version.
    subprocess.run(["npx", "-y", "fakepkg@1.0.0"], cwd=root, capture_output=True,
                   timeout=120, check=False)
    assert evil.exists()
    evil.unlink()
    row = listed(root)
    # The workspace now ships the package: the whole workspace is pinned instead.
    assert (row["state"], row["note"]) == ("changed", 'pinSet: "npx" → "workspace"')
    result = mcpctl(root, "run", "srv")
    assert (result.code, result.out) == (4, "")
    assert not evil.exists()


@pytest.mark.parametrize("created", [".npmrc", "package.json", "package-lock.json",
                                     "npm-shrinkwrap.json", "node_modules/.package-lock.json"])
def test_each_npx_input_created_after_approval_is_a_change(tmp_path: Path, created: str) -> None:
    root = npx_workspace(tmp_path)
    assert mcpctl(root, "trust", "srv", "--yes").code == 0
    (root / created).parent.mkdir(parents=True, exist_ok=True)
    (root / created).write_text("node-options=--require ./x.js\n")
    # `.npmrc` configures npx, a package.json that cannot be read might be the package's
    # own: either means the whole workspace now.
    note = 'pinSet: "npx" → "workspace"' if created in (".npmrc", "package.json") \
        else f"file {created} added"
    assert (listed(root)["state"], listed(root)["note"]) == ("changed", note)
    assert mcpctl(root, "run", "srv").code == 4


@pytest.mark.parametrize(("runner", "created", "text"), [
    ("npx", "package.json", '{"name": "my-app", "version": "1.0.0"}\n'),
    ("uvx", "pyproject.toml", '[project]\nname = "my-app"\n'),
])
def test_a_manifest_of_the_repos_own_project_keeps_the_narrow_set(
        tmp_path: Path, runner: str, created: str, text: str) -> None:
    """A package.json of another package, a pyproject.toml that leaves uv alone: read,
    they neither ship the package nor configure the runner, so the set stays narrow
    (the file is one of its inputs, so adding it is still a change). Fails with each
    manifest taken as unreadable (structural mutant)."""
    root = npx_workspace(tmp_path)
    if runner == "uvx":
        (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": {
            "command": "uvx", "args": ["mcp-server-time==2026.1.0"]}}}))
    assert mcpctl(root, "trust", "srv", "--yes").code == 0
    (root / created).write_text(text)
    assert (listed(root)["state"], listed(root)["note"]) == ("changed", f"file {created} added")
    assert mcpctl(root, "trust", "srv", "--yes", "--accept-changed").code == 0
    (root / "src" / "app.js").write_text("the project's code, not the runner's input\n")
    assert listed(root)["state"] == "trusted"


@pytest.mark.parametrize("created", ["uv.toml", "pyproject.toml", ".python-version",
                                     ".venv/pyvenv.cfg", "uv.lock"])
def test_each_uvx_input_created_after_approval_is_a_change(tmp_path: Path, created: str) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": {
        "command": "uvx", "args": ["mcp-server-time==2026.1.0"]}}}))
    assert mcpctl(root, "trust", "srv", "--yes").code == 0
    (root / "notes.md").write_text("not an input\n")
    assert listed(root)["state"] == "trusted"
    (root / created).parent.mkdir(parents=True, exist_ok=True)
    (root / created).write_text("[tool.uv]\nindex-url = 'http://127.0.0.1:1/'\n")
    # Each but the lockfile configures uv (or is a venv): the whole workspace now.
    note = "file uv.lock added" if created == "uv.lock" else 'pinSet: "uvx" → "workspace"'
    assert (listed(root)["state"], listed(root)["note"]) == ("changed", note)
    assert mcpctl(root, "run", "srv").code == 4


def test_a_package_json_past_its_bound_counts_as_the_package_and_utf8_is_read(
        tmp_path: Path) -> None:
    """A package.json over 1 MiB is not read: it might be the package's, so the whole
    workspace is pinned. One of another package with a UTF-8 description is read as
    UTF-8 whatever the locale, and the set stays narrow. Planted by hand, each failed:
    the bound widened sixteenfold or its check left out (`runner_inputs.py:56`, `:118`:
    the big manifest was read, and the set was narrow) and the file read in the
    locale's encoding (`:120`: under an ASCII locale it was unreadable, and the whole
    workspace was pinned)."""
    big = npx_workspace(tmp_path / "big")
    (big / "package.json").write_text(json.dumps({"name": "my-app", "pad": "x" * 2**20}))
    trusted = mcpctl(big, "trust", "srv", "--yes")
    assert trusted.code == 0, trusted
    assert "  covers:      the whole workspace: " in trusted.out
    accented = npx_workspace(tmp_path / "accented")
    (accented / "package.json").write_text(
        json.dumps({"name": "my-app", "description": "caf\u00e9"}, ensure_ascii=False),
        encoding="utf-8")
    trusted = mcpctl(accented, "trust", "srv", "--yes", env=ASCII_LOCALE)
    assert trusted.code == 0, trusted
    assert "  covers:      only what npx reads from the workspace for fakepkg@1.0.0 " \
        in trusted.out
