"""The edges of one approval's pin set (`pinning/pin_set.py`), through the CLI: files a
definition names past the bound, a runner's input that leads out of the workspace, and
the workspace set read lazily from the cache with a folder excluded."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from mcpctl.pinning.git_index import SETTLED_NS
from tests.pinning.repos import git_repo
from tests.pinning.workspace_cli import mcpctl, state


def serve(root: Path, command: str, args: list[str]) -> None:
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": {
        "command": command, "args": args}}}))


def test_ignored_files_named_past_the_bound_make_the_server_unpinnable(
        tmp_path: Path) -> None:
    """33 files git ignores, each named by the definition: mcpctl pins 32 per server,
    so the server cannot be approved. Planted by hand, each failed: the marker past the
    bound never looked for among those files (`pin_set.py:207`, `:208`: the server was
    approved, the 33rd file unpinned)."""
    names = [f"dist/f{number:02}.json" for number in range(33)]  # data: not pinned as code
    root = git_repo(tmp_path / "repo", {".gitignore": "dist/\n"})
    for name in names:
        (root / name).parent.mkdir(exist_ok=True)
        (root / name).write_text("{}\n")
    serve(root, "node", names)
    said = state(root)
    assert said[0] == "unpinnable", said
    assert "mcpctl pins at most 32 per server" in said[1]
    assert mcpctl(root, "trust", "srv", "--yes").code != 0


def test_a_runner_set_past_the_bound_or_leading_out_is_the_whole_workspace(
        tmp_path: Path) -> None:
    """A pinned registry package pins only what its runner reads, unless a file it names
    is past the bound or a runner input is a link out of the workspace: then the whole
    workspace is the set. Planted by hand, each failed: the marker in the runner's set
    passed over (`pin_set.py:182`: the narrow set was approved with a marker for a
    digest) and the link out followed (`:175`: an internal error, exit 70)."""
    root = tmp_path / "repo"
    root.mkdir()
    names = [f"f{number:02}.json" for number in range(33)]
    for name in names:
        (root / name).write_text("{}\n")
    serve(root, "npx", ["-y", "fakepkg@1.0.0", *names])
    trusted = mcpctl(root, "trust", "srv", "--yes")
    assert trusted.code == 0, trusted
    assert "  covers:      the whole workspace: " in trusted.out
    other = tmp_path / "other"
    other.mkdir()
    (other / "package-lock.json").write_text("{}\n")
    serve(other, "npx", ["-y", "fakepkg@1.0.0"])
    (other / "package-lock.json").rename(tmp_path / "outside.json")
    (other / "package-lock.json").symlink_to(tmp_path / "outside.json")
    trusted = mcpctl(other, "trust", "srv", "--yes")
    assert trusted.code == 0, trusted
    assert "  covers:      the whole workspace: " in trusted.out


def test_the_cached_set_with_a_folder_excluded_keeps_the_program_and_the_report(
        tmp_path: Path) -> None:
    """Once the cache keeps the set's digest, the set is read lazily from it (`_Kept`).
    The program in the excluded folder is still not in that set (so it is pinned on its
    own), and an approval made from it holds the same files. Planted by hand, each
    failed: the lazy set answering for the excluded folder (`pin_set.py:147`, `:148`:
    the next listing said `tools/srv.py` was removed) and its files listed as none or as
    all (`:158`, `:159`: the approval made from it was of no files, or of the excluded
    ones too, and the next listing said `lib/a.js` was removed or `tools/notes.md`
    added)."""
    root = git_repo(tmp_path / "repo", {"tools/srv.py": "# benign\n",
                                        "tools/notes.md": "notes\n", "lib/a.js": "a\n"})
    serve(root, "python3", ["tools/srv.py"])
    time.sleep(SETTLED_NS / 1e9 + 0.2)
    for _ in range(2):  # the second approval is made from the set the first one cached
        assert mcpctl(root, "trust", "srv", "--yes", "--ignore-changes-in", "tools").code == 0
        assert state(root) == ("trusted", "changes in tools/ ignored")
        assert state(root) == ("trusted", "changes in tools/ ignored")
        assert mcpctl(root, "revoke", "srv").code == 0
    assert mcpctl(root, "trust", "srv", "--yes", "--ignore-changes-in", "tools").code == 0
    (root / "lib" / "a.js").write_text("changed\n")
    assert state(root) == ("changed", "file lib/a.js modified")
    (root / "lib" / "a.js").write_text("a\n")
    (root / "tools" / "srv.py").write_text("# edited\n")
    assert state(root)[0] == "changed"


@pytest.mark.parametrize("program", ["toolsx/srv", "tool"])
def test_a_program_folder_beside_the_excluded_one_is_pinned_as_any_other(
        tmp_path: Path, program: str) -> None:
    """`--ignore-changes-in tools` reaches neither `toolsx/` nor `tool/`: that program
    folder's files are in the workspace set like any others, so an edit there is one
    file modified, not also the folder pinned on its own. Planted by hand: the folders
    compared by all but the last character of either (`pin_set.py:235`: the program
    folder counted as holding excluded files or as being in one, and the note said the
    folder changed too)."""
    root = tmp_path / "repo"
    (root / program).mkdir(parents=True)
    (root / program / "__main__.py").write_text("# benign\n")
    (root / "tools").mkdir()
    (root / "tools" / "notes.md").write_text("notes\n")
    serve(root, "python3", [program])
    assert mcpctl(root, "trust", "srv", "--yes", "--ignore-changes-in", "tools").code == 0
    (root / program / "__main__.py").write_text("# edited\n")
    assert state(root) == ("changed", f"file {program}/__main__.py modified")


def test_a_cache_that_cannot_be_written_still_approves_and_lists(
        tmp_path: Path, mcpctl_home: Path) -> None:
    """The cache's folder is a file (a home restored wrongly, a disk full): there is no
    memo to keep the set's digest in, and the set is computed on every start. Planted by
    hand: the digest kept without asking whether there is a memo (`pin_set.py:133`: an
    internal error, exit 70, for `trust` and `list`)."""
    mcpctl_home.mkdir(parents=True, exist_ok=True)
    (mcpctl_home / "cache").write_text("not a folder\n")
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("# benign\n")
    serve(root, "python3", ["a.py"])
    trusted = mcpctl(root, "trust", "srv", "--yes")
    assert trusted.code == 0, trusted
    assert state(root) == ("trusted", "")
    (root / "a.py").write_text("# edited\n")
    assert state(root) == ("changed", "file a.py modified")


@pytest.mark.parametrize("server", [
    {"command": "${env:MCPCTL_TEST_UNSET}", "args": ["x.py"]},
    {"command": "tool", "env": {"PATH": "${env:MCPCTL_TEST_UNSET}"}},
], ids=["command", "PATH"])
def test_a_command_or_path_known_only_at_launch_is_not_looked_up(
        tmp_path: Path, server: dict[str, Any]) -> None:
    """A variable that is unset here leaves the command, or the PATH it is looked up
    on, unknown until the launch (which refuses it then): the pin set looks nothing up
    for it. Planted by hand: without that check (`program.py:19`) `trust` ended in an
    internal error, exit 70 (a TypeError, then an AttributeError)."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": server}}))
    trusted = mcpctl(root, "trust", "srv", "--yes")
    assert trusted.code == 0, trusted
    assert trusted.out.splitlines()[-1].startswith("trusted: srv (sha256:")


@pytest.mark.parametrize("env_file", ["${env:MCPCTL_TEST_UNSET}/.env", "${secret:mcpctl-test-x}"],
                         ids=["unset-variable", "secret"])
def test_an_env_file_known_only_at_launch_is_said_so_in_the_prompt(
        tmp_path: Path, env_file: str) -> None:
    """An envFile whose path an unset variable or a secret leaves unknown here: the prompt
    says the launch reads it again. Planted by hand, each failed with an internal error
    (exit 70): the path left unknown read anyway (`reach.py:92`, unset variable; `:77`,
    a secret)."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": {
        "command": "python3", "args": ["a.py"], "envFile": env_file}}}))
    trusted = mcpctl(root, "trust", "srv", "--yes")
    assert trusted.code == 0, trusted
    assert (f"  env:         (from envFile) cannot be read here; the launch reads {env_file} "
            "again\n") in trusted.out
