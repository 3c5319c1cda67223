"""Which folders' files each client reads from a working directory (issue 22 item 2):
the rule as data (`Reach` on each format row), and the workspace tier read by it.

The rule itself is measured against the real clients in
tests/clients/test_reading_rule.py; these pin mcpctl's side with real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpctl.config.formats import Reach, folders_read, format_by_id
from mcpctl.config.merge import merge
from mcpctl.config.workspace import folder_of, load_workspace
from mcpctl.model import Source, Tier


def mcp_json(folder: Path, **commands: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {n: {"command": c} for n, c in commands.items()}}))
    return path


def test_each_client_reads_its_own_folders() -> None:
    root = Path("/src/repo")
    here = root / "a" / "b"
    assert folders_read(Reach.ROOT, here, root) == (root,)
    assert folders_read(Reach.HERE, here, root) == (here,)
    assert folders_read(Reach.UP_TO_ROOT, here, root) == (here, root / "a", root)
    assert folders_read(Reach.UP_TO_TOP, here, root) == (
        here, root / "a", root, Path("/src"), Path("/"))
    assert folders_read(Reach.UP_TO_ROOT, root, root) == (root,)


def test_the_format_rows_carry_the_measured_rule() -> None:
    reach = {fid: fmt.reach for fid in ("claude", "gemini", "codex", "vscode", "cursor",
                                        "mcp.json")
             if (fmt := format_by_id(fid)) is not None}
    assert reach == {"claude": Reach.UP_TO_TOP, "gemini": Reach.HERE,
                     "codex": Reach.UP_TO_ROOT, "vscode": Reach.ROOT,
                     "cursor": Reach.ROOT, "mcp.json": Reach.ROOT}


def test_from_a_subfolder_the_nearest_mcp_json_wins_and_shadows_the_farther(
    tmp_path: Path,
) -> None:
    outer = tmp_path / "outer"
    root = outer / "repo"
    (root / ".git").mkdir(parents=True)
    here = root / "sub" / "deep"
    here.mkdir(parents=True)
    mcp_json(outer, o="outer-o", shared="outer-shared")
    mcp_json(root, r="repo-r", shared="repo-shared")
    mcp_json(root / "sub", s="sub-s", shared="sub-shared")
    (root / ".vscode").mkdir()
    (root / ".vscode" / "mcp.json").write_text('{"servers": {"shared": {"command": "vs"}}}')
    merged = {s.name: s for s in merge(load_workspace(root, here).definitions)}
    assert {n: s.winner.spec.command for n, s in merged.items()} == {
        "o": "outer-o", "r": "repo-r", "s": "sub-s", "shared": "sub-shared"}
    # Nearest first, then the other formats (a client's own order never spans clients).
    assert [d.spec.command for d in merged["shared"].shadowed] == [
        "repo-shared", "outer-shared", "vs"]
    assert [folder_of(d.source, root) for d in merged["shared"].definitions] == [
        root / "sub", root, outer, root]
    # -w (no `here`): the root's files only, as before.
    assert sorted(s.name for s in merge(load_workspace(root).definitions)) == ["r", "shared"]


def test_gemini_reads_only_the_current_folder_and_codex_up_to_the_root(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    sub = root / "sub"
    for folder, name in ((tmp_path, "above"), (root, "top"), (sub, "here")):
        (folder / ".gemini").mkdir(parents=True)
        (folder / ".gemini" / "settings.json").write_text(
            json.dumps({"mcpServers": {f"g-{name}": {"command": "g"}}}))
        (folder / ".codex").mkdir()
        (folder / ".codex" / "config.toml").write_text(f'[mcp_servers.c-{name}]\ncommand = "c"\n')
    (root / ".git").mkdir()
    names = sorted(d.name for d in load_workspace(root, sub).definitions)
    assert names == ["c-here", "c-top", "g-here"]
    assert sorted(d.name for d in load_workspace(root, root).definitions) == ["c-top", "g-top"]


def test_the_home_folder_is_still_no_workspace_on_the_way_up(
    tmp_path: Path, isolated_home: Path,
) -> None:
    """`~/.mcp.json` is not listed as a repo's (issue 15), even though Claude Code reads
    it from below home; `list` names it in its `claude_code_also_reads` note instead."""
    mcp_json(isolated_home, h="home-h")
    root = isolated_home / "repo"
    (root / ".git").mkdir(parents=True)
    mcp_json(root, r="repo-r")
    assert [d.name for d in load_workspace(root, root).definitions] == ["r"]


@pytest.mark.parametrize(("relative", "folder"), [
    (".mcp.json", "repo/sub"), (".vscode/mcp.json", "repo/sub"),
    (".kiro/settings/mcp.json", "repo/sub"),
])
def test_a_definition_belongs_to_the_folder_its_file_is_read_for(
    relative: str, folder: str,
) -> None:
    fmt_id = {".mcp.json": "claude", ".vscode/mcp.json": "vscode",
              ".kiro/settings/mcp.json": "kiro"}[relative]
    source = Source(Tier.WORKSPACE, Path("/x") / folder / relative, 1, 1, fmt_id)
    assert folder_of(source, Path("/default")) == Path("/x") / folder
    user = Source(Tier.USER, Path("/x/config.toml"), 1, 0, "config.toml")
    assert folder_of(user, Path("/default")) == Path("/default")
