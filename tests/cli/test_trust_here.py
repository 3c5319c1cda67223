"""`list`, `show`, `trust` and `revoke` from a subfolder of a repo (issue 22 item 2):
the definition each shows or approves is the one the client reads there, a server of
the folder its file lies in; `-w ROOT` reads the root's files only, as before.
Real files, the CLI in-process; tests/clients/test_reading_rule.py runs the clients."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli


def _mcp(folder: Path, **commands: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".mcp.json").write_text(json.dumps(
        {"mcpServers": {name: {"command": c} for name, c in commands.items()}}, indent=1))


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    _mcp(root, top="top-cmd", tasks="root-tasks")
    _mcp(root / "sub", tasks="sub-tasks")
    (root / "sub" / "deep").mkdir()
    monkeypatch.chdir(root / "sub" / "deep")
    return Path(os.path.realpath(root))


def _store(mcpctl_home: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((mcpctl_home / "data" / "trust.json").read_text())
    return document


def _rows(cli: Cli, *args: str) -> list[tuple[str, str, str, str | None]]:
    result = cli("list", "--json", *args)
    assert result.code == 0, result.err
    return [(r["name"], r["state"], r["command"], r.get("trust_workspace"))
            for r in json.loads(result.out)["servers"]]


def test_list_from_a_subfolder_shows_the_nearest_definition_and_what_it_shadows(
    cli: Cli, repo: Path,
) -> None:
    sub = str(repo / "sub")
    assert _rows(cli) == [("tasks", "untrusted", "sub-tasks", sub),
                          ("tasks", "shadowed", "root-tasks", str(repo)),
                          ("top", "untrusted", "top-cmd", str(repo))]
    # -w: the root's files only, unchanged.
    assert _rows(cli, "-w", str(repo)) == [("tasks", "untrusted", "root-tasks", str(repo)),
                                           ("top", "untrusted", "top-cmd", str(repo))]
    text = cli("list")
    assert text.out.splitlines()[2].split()[:3] == ["tasks", "workspace", "shadowed"]
    assert f"shadowed by {repo}/sub/.mcp.json:3" in text.out
    shown = cli("show", "tasks")
    assert shown.code == 0, shown.err
    assert shown.out.splitlines()[:3] == [
        f"tasks  [workspace] {repo}/sub/.mcp.json:3", "  state:     untrusted",
        "  wins:      the nearest file from the current folder wins, as its client reads them"]


def test_trust_from_a_subfolder_approves_that_folders_definition_and_says_where(
    cli: Cli, repo: Path, mcpctl_home: Path,
) -> None:
    trusted = cli("trust", "tasks", "top", "--yes", "--json")
    assert trusted.code == 0, trusted.err
    results = {r["name"]: (r["status"], r["workspace"], r["source"]["path"])
               for r in json.loads(trusted.out)["results"]}
    assert results == {
        "tasks": ("trusted", str(repo / "sub"), str(repo / "sub" / ".mcp.json")),
        "top": ("trusted", str(repo), str(repo / ".mcp.json"))}
    assert {key: sorted(names) for key, names in _store(mcpctl_home)["workspaces"].items()} \
        == {str(repo / "sub"): ["tasks"], str(repo): ["top"]}
    assert [state for _, state, _, _ in _rows(cli)] == ["trusted", "shadowed", "trusted"]
    # The root's own `tasks` was not approved: at the root it is still untrusted.
    assert _rows(cli, "-w", str(repo))[0][:2] == ("tasks", "untrusted")
    # The text says which folder, when it is not the root.
    (repo / "sub" / ".mcp.json").write_text(
        (repo / "sub" / ".mcp.json").read_text().replace("sub-tasks", "sub-tasks-2"))
    again = cli("trust", "tasks", "--yes", "--accept-changed")
    assert again.code == 0, again.err
    assert again.out.splitlines()[-1].endswith(f") in {repo}/sub")
    revoked = cli("revoke", "tasks", "top")
    assert revoked.code == 0, revoked.err
    assert sorted(revoked.out.splitlines()[:2]) == [
        f"revoked: tasks in {repo}/sub (revoked)", f"revoked: top in {repo} (revoked)"]
    assert _store(mcpctl_home)["workspaces"] == {}


def test_ignore_changes_in_is_refused_across_folders(cli: Cli, repo: Path,
                                                     mcpctl_home: Path) -> None:
    refused = cli("trust", "tasks", "top", "--yes", "--ignore-changes-in", "build")
    assert refused.code == 2
    assert refused.err.startswith("mcpctl: error: --ignore-changes-in: the servers chosen "
                                  "are approved in different folders")
    assert not (mcpctl_home / "data" / "trust.json").exists()
