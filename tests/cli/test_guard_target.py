"""Which folder `run --guard` starts a server from: the one MCPCTL_GUARD_WORKSPACE
names, or else the nearest `.mcp.json` from the client's folder up that defines the
server, as Claude Code reads them. Everything that leaves the folder unknown refuses
to start anything. Each server here is unapproved, so the gate's refusal names the
file the definition was taken from: that is the folder chosen."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Result, run_mcpctl

UNTRUSTED = "mcpctl: error: server 'db' is untrusted: the workspace defines it at "


def _mcp_json(folder: Path, *names: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {n: {"command": f"{n}-mcp"} for n in names}}))
    return path


def _guard(cwd: Path, name: str, workspace: str | None = None) -> Result:
    env = {"MCPCTL_GUARD_SERVER": name}
    if workspace is not None:
        env["MCPCTL_GUARD_WORKSPACE"] = workspace
    return run_mcpctl(["run", "--guard"], cwd=cwd, env=env)


def test_the_nearest_file_that_defines_it_is_chosen(tmp_path: Path) -> None:
    """From `repo/sub/deep` (no file of its own), `repo/sub/.mcp.json` does not define
    `db` and `repo/.mcp.json` does: `repo`'s definition is the one judged. With the
    first folder holding a `.mcp.json` taken, whatever it defines, the nearer file,
    which has no `db`, was judged."""
    repo = tmp_path / "repo"
    defining = _mcp_json(repo, "db")
    _mcp_json(repo / "sub", "other")
    deep = repo / "sub" / "deep"
    deep.mkdir()
    done = _guard(deep, "db")
    assert done.code == 4, done.err
    assert done.err.startswith(f"{UNTRUSTED}{defining}"), done.err


def test_a_file_on_the_way_that_cannot_be_read_refuses(tmp_path: Path) -> None:
    """A `.mcp.json` nearer than the defining one that is not JSON may be the one
    Claude Code took the server from: nothing starts. With the unreadable case passed
    over, `run --guard` ended with an internal error (exit 70)."""
    repo = tmp_path / "repo"
    _mcp_json(repo, "db")
    (repo / "sub").mkdir()
    broken = repo / "sub" / ".mcp.json"
    broken.write_text('{"mcpServers": ')
    done = _guard(repo / "sub", "db")
    assert (done.code, done.err) == (4, f"mcpctl: error: server 'db': {broken} cannot be "
                                        "read, so which definition Claude Code took is "
                                        "unknown; nothing was started\n")


def test_no_file_that_defines_it_refuses(tmp_path: Path) -> None:
    """The gate refuses (exit 4) and says where it looked. With the refusal at the end
    of the search left out, it ended as a usage error instead ("no server named 'db'
    here", exit 2)."""
    repo = tmp_path / "repo"
    _mcp_json(repo, "other")
    done = _guard(repo, "db")
    assert done.code == 4, done.err
    assert done.err.startswith(f"mcpctl: error: server 'db': no .mcp.json from {repo} up "
                               "defines it; nothing was started\n")


@pytest.mark.parametrize("workspace", ["repo", "{repo}/.mcp.json"])
def test_a_guard_workspace_that_is_not_an_absolute_folder_refuses(
        tmp_path: Path, workspace: str) -> None:
    """A relative path, or a file, is no workspace: nothing starts. With the check
    left out, the server was judged (and refused as untrusted) there."""
    repo = tmp_path / "repo"
    _mcp_json(repo, "db")
    named = workspace.format(repo=repo)
    done = _guard(tmp_path, "db", named)
    assert (done.code, done.err) == (2, f"mcpctl: error: run --guard: MCPCTL_GUARD_WORKSPACE="
                                        f"{named!r} is not an absolute path to a folder; "
                                        "nothing was started\n")


def test_a_guard_workspace_names_the_folder_whatever_the_current_one(tmp_path: Path) -> None:
    """With MCPCTL_GUARD_WORKSPACE set, the server is judged in that folder, not looked
    for from the current one. With the variable passed over, the search from the
    current folder found no file that defines `db`; with every such folder refused,
    this one was too."""
    repo = tmp_path / "repo"
    defining = _mcp_json(repo, "db")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = _guard(elsewhere, "db", str(repo))
    assert done.code == 4, done.err
    assert done.err.startswith(f"{UNTRUSTED}{defining}"), done.err
