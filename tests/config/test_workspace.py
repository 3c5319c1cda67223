"""The workspace tier: root discovery, every format, provenance and every bad file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mcpctl.config.tier_load import MAX_CONFIG_BYTES
from mcpctl.config.workspace import FOLDERS, find_workspace_root, load_workspace
from mcpctl.model import Problem, Source, Tier, Transport
from tests.conftest import run_mcpctl
from tests.tier_files import make_workspace


def problems_of(root: Path) -> list[str]:
    return [str(p).replace(str(root), "ROOT") for p in load_workspace(root).problems]


def names_and_lines(root: Path) -> list[tuple[str, str, int]]:
    return [(d.name, d.source.path.relative_to(root).as_posix(), d.source.line)
            for d in load_workspace(root).definitions]


def test_root_is_the_nearest_folder_with_git(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {})
    deep = root / "a" / "b"
    deep.mkdir(parents=True)
    assert find_workspace_root(deep) == root.resolve()
    inner = root / "a"
    (inner / ".git").write_text("gitdir: ../.git/worktrees/a\n")  # a worktree: .git is a file
    assert find_workspace_root(deep) == inner.resolve()


def test_root_without_git_is_the_start(tmp_path: Path) -> None:
    plain = tmp_path / "plain" / "sub"
    plain.mkdir(parents=True)
    assert find_workspace_root(plain) == plain.resolve()


def test_every_format_is_read_with_exact_provenance(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {
        ".mcp.json": '{\n  "mcpServers": {\n    "a": {"command": "x"},\n'
                     '    "b": {"url": "https://b/mcp"}\n  }\n}\n',
        "mcp.json": '{"mcpServers": {\n\n  "c": {"command": "y"}}}',
        ".vscode/mcp.json": '{\n  // comment\n  "inputs": [],\n  "servers": {\n'
                            '    "d": {"type": "sse", "url": "https://d/sse",},\n  },\n}\n',
        ".cursor/mcp.json": '{"mcpServers": {"e": {"httpUrl": "https://e/mcp"}}}',
    })
    load = load_workspace(root)
    assert load.problems == []
    assert [d.source for d in load.definitions] == [
        Source(Tier.WORKSPACE, root / ".mcp.json", 3, FOLDERS, "claude"),
        Source(Tier.WORKSPACE, root / ".mcp.json", 4, FOLDERS, "claude"),
        Source(Tier.WORKSPACE, root / "mcp.json", 3, 2 * FOLDERS, "mcp.json"),
        Source(Tier.WORKSPACE, root / ".vscode/mcp.json", 5, 3 * FOLDERS, "vscode"),
        Source(Tier.WORKSPACE, root / ".cursor/mcp.json", 1, 4 * FOLDERS, "cursor"),
    ]
    assert [(d.name, d.spec.transport) for d in load.definitions] == [
        ("a", Transport.STDIO), ("b", Transport.HTTP), ("c", Transport.STDIO),
        ("d", Transport.SSE), ("e", Transport.HTTP)]
    assert load.files == [root / ".mcp.json", root / "mcp.json", root / ".vscode/mcp.json",
                          root / ".cursor/mcp.json"]


def test_a_file_with_only_companion_keys_is_valid_and_empty(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {".vscode/mcp.json": '{"inputs": [], "$schema": "x"}',
                                     ".mcp.json": "{}"})
    load = load_workspace(root)
    assert (load.definitions, load.problems) == ([], [])


def test_jsonc_only_in_vscode(tmp_path: Path) -> None:
    commented = '{\n  // a comment\n  "mcpServers": {"a": {"command": "x"},}\n}\n'
    root = make_workspace(tmp_path, {
        ".mcp.json": commented,
        ".cursor/mcp.json": '{"mcpServers": {"c": {"command": "x"},}}',
        ".vscode/mcp.json": commented.replace("mcpServers", "servers"),
    })
    assert problems_of(root) == [
        "ROOT/.mcp.json:2:3: Expecting property name enclosed in double quotes "
        "(comments and trailing commas are not allowed here)",
        "ROOT/.cursor/mcp.json:1:39: Expecting property name enclosed in double quotes "
        "(comments and trailing commas are not allowed here)",
    ]
    assert names_and_lines(root) == [("a", ".vscode/mcp.json", 3)]


@pytest.mark.parametrize(("relative", "text", "message"), [
    (".mcp.json", '{\n  "servers": {"a": {"command": "x"}}\n}',
     ".mcp.json:2:3: expected top-level key 'mcpServers' for .mcp.json, found 'servers'"),
    (".vscode/mcp.json", '{"mcpServers": {"a": {"command": "x"}}}',
     ".vscode/mcp.json:1:2: expected top-level key 'servers' for .vscode/mcp.json, "
     "found 'mcpServers'"),
    (".cursor/mcp.json", '{"$schema": "s", "tools": {}}',
     ".cursor/mcp.json:1:18: expected top-level key 'mcpServers' for .cursor/mcp.json, "
     "found 'tools'"),
    ("mcp.json", '{"mcpServers": ["a"]}',
     "mcp.json:1:2: 'mcpServers' must be an object of servers"),
])
def test_wrong_top_level_key_names_the_expected_key(
    tmp_path: Path, relative: str, text: str, message: str
) -> None:
    root = make_workspace(tmp_path, {relative: text})
    assert problems_of(root) == [f"ROOT/{message}"]
    assert load_workspace(root).definitions == []


def test_duplicate_keys_refuse_the_whole_file(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {
        ".mcp.json": '{\n  "mcpServers": {\n    "a": {"command": "x"},\n'
                     '    "b": {"command": "ok", "env": {"K": "1", "K": "2"}},\n'
                     '    "a": {"command": "sh"}\n  }\n}\n',
        ".vscode/mcp.json": '{"servers": {"c": {"command": "x"}}}',
    })
    assert problems_of(root) == [
        "ROOT/.mcp.json:4:46: duplicate key mcpServers.b.env.K (first at line 4)",
        "ROOT/.mcp.json:5:5: duplicate key mcpServers.a (first at line 3)",
    ]
    assert names_and_lines(root) == [("c", ".vscode/mcp.json", 1)]


def test_entry_errors_are_located_and_the_rest_still_lists(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {
        ".mcp.json": '{\n  "mcpServers": {\n    "none": {"args": ["x"]},\n'
                     '    "both": {"command": "x", "url": "u"},\n'
                     '    "badargs": {"command": "x",\n      "args": "a b"},\n'
                     '    "alias": {"serverUrl": 5},\n'
                     '    "good": {"command": "x", "disabled": true}\n  }\n}\n',
    })
    assert problems_of(root) == [
        "ROOT/.mcp.json:3:5: server 'none' has neither 'command' nor 'url'; it needs exactly one",
        "ROOT/.mcp.json:4:5: server 'both' has both 'command' and 'url'; it needs exactly one",
        "ROOT/.mcp.json:6:7: server 'badargs': 'args' must be a list of strings",
        "ROOT/.mcp.json:7:15: server 'alias': 'url' must be a string, not a number",
    ]
    [good] = load_workspace(root).definitions
    assert (good.name, good.source.line, dict(good.spec.extra)) == ("good", 8, {"disabled": True})


def test_one_bad_file_does_not_hide_the_others(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {
        ".mcp.json": '{"mcpServers": {"a": {"command": "x"}}',
        "mcp.json": '{"mcpServers": {"b": {"command": "x"}}}',
        ".vscode/mcp.json": '{"servers": {"c": {"command": "x"}}}',
        ".cursor/mcp.json": '{"mcpServers": {"d": {"command": "x"}}}',
    })
    assert problems_of(root) == [
        "ROOT/.mcp.json:1:39: Expecting ',' delimiter "
        "(comments and trailing commas are not allowed here)"]
    assert [n for n, _, _ in names_and_lines(root)] == ["b", "c", "d"]


def test_bad_files_are_problems_never_exceptions(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"mcp.json": "[1, 2]", ".cursor/mcp.json": ""})
    (root / ".mcp.json").write_bytes(b'{"mcpServers": {"a": {"command": "caf\xe9"}}}')
    (root / ".vscode" / "mcp.json").mkdir(parents=True)
    assert problems_of(root) == [
        "ROOT/.mcp.json:1:1: not UTF-8 text (byte 37)",
        "ROOT/mcp.json:1:1: top level must be a JSON object",
        "ROOT/.vscode/mcp.json:1:1: is a directory, not a file",
        "ROOT/.cursor/mcp.json:1:1: empty file; expected a JSON object",
    ]


def test_a_file_over_the_size_limit_is_not_read(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {".mcp.json": '{"mcpServers": {"a": {"command": "x"}}}'})
    with (root / ".mcp.json").open("r+b") as handle:
        handle.truncate(MAX_CONFIG_BYTES + 1)  # sparse: cheap to make
    assert problems_of(root) == [
        f"ROOT/.mcp.json:1:1: file is larger than {MAX_CONFIG_BYTES} bytes"]


def test_symlink_to_a_device_or_fifo_is_refused_without_reading(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {})
    os.symlink("/dev/zero", root / ".mcp.json")  # reading it would never end
    os.mkfifo(tmp_path / "fifo")
    os.symlink(tmp_path / "fifo", root / "mcp.json")  # opening it would wait for a writer
    (root / ".vscode").mkdir()
    os.symlink(root / "nowhere.json", root / ".vscode" / "mcp.json")
    assert problems_of(root) == [
        "ROOT/.mcp.json:1:1: is not a regular file",
        "ROOT/mcp.json:1:1: is not a regular file",
        "ROOT/.vscode/mcp.json:1:1: cannot read: No such file or directory",
    ]


def test_symlink_to_a_regular_file_is_read(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"shared.json": '{"mcpServers": {"a": {"command": "x"}}}'})
    os.symlink("shared.json", root / ".mcp.json")
    assert names_and_lines(root) == [("a", ".mcp.json", 1)]


def test_crlf_files_keep_exact_lines(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {})
    (root / ".mcp.json").write_bytes(b'{\r\n "mcpServers": {\r\n  "a": {"command": "x"}\r\n }\r\n}')
    assert names_and_lines(root) == [("a", ".mcp.json", 3)]


def test_problem_renders_as_path_line_column(tmp_path: Path) -> None:
    assert str(Problem(tmp_path / "f", 3, 7, "bad")) == f"{tmp_path}/f:3:7: bad"


def test_unicode_line_separators_in_strings_do_not_shift_lines(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {
        ".mcp.json": '{"mcpServers": {\n"a": {"command": "x\u2028y\u0085z"},\n'
                     '"b": {"command": "y"}}}'})
    assert names_and_lines(root) == [("a", ".mcp.json", 2), ("b", ".mcp.json", 3)]


def test_the_home_folder_is_not_a_workspace(tmp_path: Path) -> None:
    """`~/.cursor/mcp.json` is Cursor's global file, not a repo's (issue 15)."""
    home = Path(os.environ["HOME"])
    (home / ".cursor").mkdir(parents=True)
    (home / ".cursor" / "mcp.json").write_text('{"mcpServers": {"g": {"command": "x"}}}')
    assert load_workspace(home).definitions == []
    listed = run_mcpctl(["list", "--json"], cwd=home)
    assert (listed.code, json.loads(listed.out)["servers"]) == (0, [])
    # The control: the same file in a real folder is a workspace server.
    repo = tmp_path / "repo"
    (repo / ".cursor").mkdir(parents=True)
    (repo / ".cursor" / "mcp.json").write_text('{"mcpServers": {"g": {"command": "x"}}}')
    assert [d.name for d in load_workspace(repo).definitions] == ["g"]


def test_paths_outside_the_current_folder_print_with_a_tilde_or_absolute(
        user_config: Path) -> None:
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text('[servers.u]\ncommand = "x"\n')
    home = Path(os.environ["HOME"])
    from_root = run_mcpctl(["show", "u"], cwd=Path("/"))
    assert f"u  [user] {user_config}:1\n" in from_root.out  # absolute, never tmp/…
    moved = home / "cfg.toml"
    moved.write_text('[servers.u]\ncommand = "x"\n')
    from_home = run_mcpctl(["show", "u", "--config", str(moved)], cwd=home)
    assert "u  [user] ~/cfg.toml:1\n" in from_home.out
