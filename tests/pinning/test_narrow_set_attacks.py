"""The narrow set of `npx NAME@X.Y.Z` / `uvx NAME==X.Y.Z` attacked where it trusted too
much (issue 23, item 1): a workspace that ships the package, a variable that moves the
runner's configuration into the workspace, and variables set through `envFile`.

Each attack is first shown to work without mcpctl (the marker appears when the runner
is started directly); under mcpctl the server is `changed` and never started. With
`narrow_inputs`'s checks removed (the `supplied_by_workspace` call, the `data_only`
test, `env_known`), each of these fails: the set stays the runner's and the file the
attack edits is not in it.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.components import require_program
from tests.pinning.npm_registry import loopback_registry
from tests.pinning.workspace_cli import listed, mcpctl

WRITES_MARKER = ('#!/usr/bin/env node\nrequire("fs").writeFileSync({marker}, "")\n'
                 "process.exit(0)\n")


@pytest.fixture(autouse=True)
def _quiet_npm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("npm_config_update_notifier", "false")


def workspace(tmp_path: Path, **server: Any) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)  # not a work tree git accepts: every file counts
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": {
        "command": "npx", "args": ["-y", "fakepkg@1.0.0"], **server}}}))
    return root


def npx(root: Path, **env: str) -> None:
    """The runner started directly, as a client without mcpctl would."""
    subprocess.run(["npx", "-y", "fakepkg@1.0.0"], cwd=root, capture_output=True, timeout=120,
                   check=False, env={**os.environ, **env})


def refused(root: Path, marker: Path) -> None:
    row = listed(root)
    assert row["state"] == "changed", row
    result = mcpctl(root, "run", "srv")
    assert (result.code, result.out) == (4, "")
    assert not marker.exists()


def test_a_shipped_package_pins_the_dependencies_it_loads(tmp_path: Path) -> None:
    require_program("npx")
    root = workspace(tmp_path)
    modules = root / "node_modules"
    (modules / "fakepkg").mkdir(parents=True)
    (modules / "fakepkg" / "package.json").write_text(
        '{"name": "fakepkg", "version": "1.0.0", "bin": {"fakepkg": "cli.js"}}')
    (modules / "fakepkg" / "cli.js").write_text('#!/usr/bin/env node\nrequire("dep")\n')
    (modules / "fakepkg" / "cli.js").chmod(0o755)
    (modules / ".bin").mkdir()
    (modules / ".bin" / "fakepkg").symlink_to("../fakepkg/cli.js")
    (modules / "dep").mkdir()
    (modules / "dep" / "index.js").write_text("// benign\n")
    trusted = mcpctl(root, "trust", "srv", "--yes")
    assert trusted.code == 0
    assert "the package comes from the registry" not in trusted.out
    assert "  covers:      the whole workspace: " in trusted.out
    marker = tmp_path / "dep-ran"
    (modules / "dep" / "index.js").write_text(WRITES_MARKER.format(marker=json.dumps(
        str(marker))))
    npx(root)
    assert marker.exists()  # the repo's copy ran, and loaded the repo's dependency
    marker.unlink()
    assert listed(root)["note"] == "file node_modules/dep/index.js modified"
    refused(root, marker)


def test_a_home_in_the_workspace_cannot_bring_its_own_npmrc(tmp_path: Path) -> None:
    require_program("npx")
    root = workspace(tmp_path, env={"HOME": "${workspaceFolder}/home"})
    (root / "home").mkdir()
    trusted = mcpctl(root, "trust", "srv", "--yes")
    assert trusted.code == 0
    assert "  covers:      the whole workspace: " in trusted.out
    marker = tmp_path / "registry-package-ran"
    script = WRITES_MARKER.format(marker=json.dumps(str(marker)))
    with loopback_registry("fakepkg", "1.0.0", script) as url:
        (root / "home" / ".npmrc").write_text(f"registry={url}\n")
        assert listed(root)["note"] == "file home/.npmrc added"
        npx(root, HOME=str(root / "home"))
        assert marker.exists()  # npm read the repo's `.npmrc` and ran what it names
        marker.unlink()
        refused(root, marker)


def test_variables_from_an_env_file_are_checked_and_shown(tmp_path: Path) -> None:
    require_program("npx")
    root = workspace(tmp_path, envFile=".env")
    token = "ghp_" + "a1B2" * 9
    (root / ".env").write_text(f"NODE_OPTIONS=--require ./lib\nGITHUB_TOKEN={token}\n")
    (root / "lib").mkdir()
    (root / "lib" / "index.js").write_text("// benign\n")
    trusted = mcpctl(root, "trust", "srv", "--yes")
    assert trusted.code == 0
    assert "  env:         NODE_OPTIONS=--require ./lib (from envFile)\n" in trusted.out
    assert "  env:         GITHUB_TOKEN=ghp_*** (from envFile)\n" in trusted.out
    assert token not in trusted.out + trusted.err
    assert "  covers:      the whole workspace: " in trusted.out
    marker = tmp_path / "preload-ran"
    (root / "lib" / "index.js").write_text(WRITES_MARKER.format(marker=json.dumps(str(marker))))
    npx(root, NODE_OPTIONS="--require ./lib")
    assert marker.exists()  # node preloads the repo's folder before npx does anything
    marker.unlink()
    assert listed(root)["note"] == "file lib/index.js modified"
    refused(root, marker)


def test_an_env_file_that_cannot_be_read_is_not_narrowed(tmp_path: Path) -> None:
    root = workspace(tmp_path, envFile=".env")
    (root / ".env").symlink_to("/dev/zero")
    trusted = mcpctl(root, "trust", "srv", "--yes")
    assert trusted.code == 0
    assert "  env:         (from envFile) cannot be read here" in trusted.out
    assert "  covers:      the whole workspace: " in trusted.out
    result = mcpctl(root, "run", "srv")
    assert result.code == 3, result
    assert result.err.startswith("mcpctl: error: envFile ")
    assert "not a regular file" in result.err
