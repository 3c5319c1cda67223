"""The trust status's own values: the diffstat of one file, and statuses that stay put."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from mcpctl.config.merge import find
from mcpctl.config.view import load_view
from mcpctl.errors import TrustRefused
from mcpctl.model import Tier
from mcpctl.pinning.pin_set import ABSENT
from mcpctl.pinning.workspace import Entry
from mcpctl.trust.actions import approve
from mcpctl.trust.state import TrustState
from mcpctl.trust.status import FileChange, Status, status_of
from mcpctl.trust.store import approvals_in, load_manifest, read_store
from tests.pinning.repos import git_repo
from tests.tier_files import json_manifest, make_workspace, write, write_servers

BEFORE = Entry("sha256:" + "1" * 64, size=12, lines=3)
AFTER = Entry("sha256:" + "2" * 64, size=20, lines=5)


def test_a_file_counts_its_lines_before_and_after() -> None:
    assert FileChange("a.js", "modified", BEFORE, AFTER).stat() == "3 → 5 lines"
    assert FileChange("a.js", "added", None, AFTER).stat() == "5 lines"
    assert FileChange("a.js", "removed", BEFORE, None).stat() == "3 lines"


def test_a_runner_input_approved_absent_counts_only_its_new_lines() -> None:
    # A runner's input is approved "absent" (an entry, not a missing one); creating it
    # is an addition, and an addition has no "before".
    assert FileChange(".npmrc", "added", Entry(ABSENT), AFTER).stat() == "5 lines"


def test_a_runner_input_deleted_counts_only_its_old_lines() -> None:
    assert FileChange(".npmrc", "removed", BEFORE, Entry(ABSENT)).stat() == "3 lines"


def test_a_status_cannot_be_changed_by_one_of_the_reports_that_share_it() -> None:
    # One status per definition serves every report of a command (trust/view.py).
    status = Status(TrustState.CHANGED, "sha256:" + "3" * 64, [], changes=["cwd: a → b"])
    with pytest.raises(AttributeError):
        status.state = TrustState.TRUSTED  # type: ignore[misc]
    change = FileChange("a.js", "modified", BEFORE, AFTER)
    with pytest.raises(AttributeError):
        change.what = "added"  # type: ignore[misc]


class Store:
    """A real trust store in tmp_path, written by `trust`'s own approve and read back."""

    def __init__(self, folder: Path) -> None:
        self.trust_file = folder / "trust.json"
        self.lost: set[str] = set()  # manifests the data folder lost

    def status(self, root: Path, config: Path) -> Status:
        server = find(load_view(root, config).servers, "s")
        assert server is not None
        approvals = approvals_in(read_store(self.trust_file), root)
        return status_of(server.winner, root, approvals, dict(os.environ), Path.home(),
                         manifests=self.manifest)

    def manifest(self, digest: str) -> Mapping[str, Entry] | None:
        return None if digest in self.lost else load_manifest(self.trust_file, digest)

    def approve(self, root: Path, config: Path) -> Status:
        status = self.status(root, config)
        assert status.state is TrustState.UNTRUSTED
        server = find(load_view(root, config).servers, "s")
        assert server is not None
        approve(server, status, root, self.trust_file)
        return status


def workspace(parent: Path, server: dict[str, Any], files: dict[str, str]) -> Path:
    root = make_workspace(parent, files)
    write_servers(root, {"s": server})
    return root


def test_files_modified_added_and_removed_are_named_with_their_lines(
        tmp_path: Path, user_config: Path) -> None:
    # Whichever way the approved and the new file list's digests sort.
    sorted_before: set[bool] = set()
    for attempt in range(32):
        root = workspace(tmp_path / str(attempt), {"command": "node", "args": ["src/server.js"]},
                         {"src/server.js": "a\n", "old.js": "o\n"})
        store = Store(tmp_path / str(attempt))
        approved = store.approve(root, user_config)
        write(root / "src" / "server.js", f"a\nb\n{attempt}\n")
        (root / "old.js").unlink()
        write(root / "lib" / "x.js", "x\n")
        status = store.status(root, user_config)
        assert status.state is TrustState.CHANGED
        assert status.changes == ["file lib/x.js added", "file old.js removed",
                                  "file src/server.js modified"]
        assert [(c.path, c.what, c.stat()) for c in status.file_changes] == [
            ("lib/x.js", "added", "1 lines"), ("old.js", "removed", "1 lines"),
            ("src/server.js", "modified", "1 → 3 lines")]
        assert approved.pins is not None
        assert status.pins is not None
        sorted_before.add(approved.pins.digest < status.pins.digest)
        if len(sorted_before) == 2:
            break
    assert sorted_before == {True, False}


PINNED = ["mcp-server-time==2026.1.0"]  # uvx reads only its inputs from the workspace
UNPINNED = ["mcp-server-time"]  # any version: the whole workspace is pinned


@pytest.mark.parametrize(("before", "after", "kinds"), [
    (PINNED, UNPINNED, '"uvx" → "workspace"'), (UNPINNED, PINNED, '"workspace" → "uvx"')])
def test_another_kind_of_pin_set_is_one_line_not_a_diff_of_every_file(
        tmp_path: Path, user_config: Path, before: list[str], after: list[str],
        kinds: str) -> None:
    root = workspace(tmp_path, {"command": "uvx", "args": before}, {"notes.md": "n\n"})
    store = Store(tmp_path)
    store.approve(root, user_config)
    write_servers(root, {"s": {"command": "uvx", "args": after}})
    status = store.status(root, user_config)
    assert status.state is TrustState.CHANGED
    assert status.changes == [f"pinSet: {kinds}", f"args[0]: {json.dumps(before[0])} → "
                              f"{json.dumps(after[0])}"]
    assert status.file_changes == []


def test_a_runner_input_created_is_the_one_change_the_absent_ones_are_not(
        tmp_path: Path, user_config: Path) -> None:
    root = workspace(tmp_path, {"command": "uvx", "args": ["mcp-server-time==2026.1.0"]},
                     {"notes.md": "n\n"})
    store = Store(tmp_path)
    store.approve(root, user_config)
    # (a uv.toml would configure uv: the whole workspace then, a change of pin set)
    write(root / "uv.lock", "version = 1\nrequires-python = '>=3.11'\n")
    status = store.status(root, user_config)
    assert (status.state, status.changes) == (TrustState.CHANGED, ["file uv.lock added"])
    assert [(c.path, c.what) for c in status.file_changes] == [("uv.lock", "added")]
    assert status.file_changes[0].stat() == "2 lines"  # as trust shows it, never "0 lines"


def test_an_approved_server_unchanged_has_no_changes(tmp_path: Path, user_config: Path) -> None:
    root = workspace(tmp_path, {"command": "node", "args": ["server.js"]}, {"server.js": "s\n"})
    store = Store(tmp_path)
    store.approve(root, user_config)
    status = store.status(root, user_config)
    assert (status.state, status.changes, status.file_changes) == (TrustState.TRUSTED, [], ())


def test_a_definition_changed_over_the_same_files_needs_no_file_list(
        tmp_path: Path, user_config: Path) -> None:
    root = workspace(tmp_path, {"command": "node", "args": ["server.js"]}, {"server.js": "s\n"})
    store = Store(tmp_path)
    approved = store.approve(root, user_config)
    assert approved.pins is not None
    store.lost.add(approved.pins.digest)  # the data folder lost it: only a file diff needs it
    write_servers(root, {"s": {"command": "node", "args": ["server.js", "--verbose"]}})
    status = store.status(root, user_config)
    assert (status.state, status.changes) == (TrustState.CHANGED, ['args[1] added: "--verbose"'])


def test_a_client_tier_definition_is_never_user_tier(tmp_path: Path, user_config: Path) -> None:
    # "client" sorts before "user": only the user tier itself starts as written.
    root = workspace(tmp_path, {"command": "node", "args": ["server.js"]}, {"server.js": "s\n"})
    server = find(load_view(root, user_config).servers, "s")
    assert server is not None
    client = server.winner._replace(source=server.winner.source._replace(tier=Tier.CLIENT))
    status = status_of(client, root, {}, dict(os.environ), Path.home())
    assert status.state is TrustState.UNTRUSTED
    assert status.pins is not None
    assert status.files == [("server.js", status.pins.files["server.js"])]


def test_a_status_lists_the_workspace_with_the_git_of_the_environment_it_is_given(
        tmp_path: Path, user_config: Path) -> None:
    """`status_of` without a command's shared lookups lists the workspace with git run in
    the environment it is given, the one the launch will have: a file the user's own
    excludes file there ignores is not pinned. Fails with that git given no environment
    or the process's (structural mutants): the file was pinned."""
    root = git_repo(tmp_path / "repo", {"server.js": "s\n"})
    write_servers(root, {"s": {"command": "node", "args": ["server.js"]}})
    write(root / "notes.txt", "mine\n")
    xdg = tmp_path / "xdg"
    write(xdg / "git" / "ignore", "notes.txt\n")
    server = find(load_view(root, user_config).servers, "s")
    assert server is not None
    given = status_of(server.winner, root, {}, {**os.environ, "XDG_CONFIG_HOME": str(xdg)},
                      Path.home())
    assert given.pins is not None
    assert "server.js" in given.pins.files
    assert "notes.txt" not in given.pins.files
    unset = status_of(server.winner, root, {}, {**os.environ, "XDG_CONFIG_HOME": ""},
                      Path.home())
    assert unset.pins is not None
    assert "notes.txt" in unset.pins.files


def test_an_unpinnable_status_is_never_approved(tmp_path: Path, user_config: Path) -> None:
    """`approve` itself refuses a status that is unpinnable, pin set or not, and writes
    nothing: `trust` never hands it one, and no later caller may. Fails with that check
    or its raise left out (structural mutants): the approval was written."""
    root = workspace(tmp_path, {"command": "node", "args": ["server.js"]}, {"server.js": "s\n"})
    store = Store(tmp_path)
    status = store.status(root, user_config)
    server = find(load_view(root, user_config).servers, "s")
    assert server is not None
    assert status.pins is not None
    reason = "2,000,000 files in the workspace; mcpctl pins at most 1,500,000"
    for unpinnable in (status._replace(state=TrustState.UNPINNABLE, unpinned=reason),
                       status._replace(pins=None)):
        with pytest.raises(TrustRefused, match=r"^server 's' is unpinnable: "):
            approve(server, unpinnable, root, store.trust_file)
    assert not store.trust_file.exists()


def test_an_older_json_manifest_reports_only_the_files_that_changed(
        tmp_path: Path, user_config: Path) -> None:
    """An approval whose file list an older mcpctl kept as JSON (full digests, no
    compact one beside it) names only the file that changed. Fails with a full digest
    taken for a short one (structural mutant: `startswith` of an empty prefix, so every
    file read as modified)."""
    root = workspace(tmp_path, {"command": "node", "args": ["server.js"]},
                     {"server.js": "s\n", "lib.js": "l\n"})
    store = Store(tmp_path)
    approved = store.approve(root, user_config)
    assert approved.pins is not None
    name = approved.pins.digest.removeprefix("sha256:")
    (store.trust_file.parent / "approved-files" / f"{name}.bin").unlink()
    json_manifest(store.trust_file, approved.pins.digest, dict(approved.pins.files))
    write(root / "server.js", "t\n")
    status = store.status(root, user_config)
    assert status.changes == ["file server.js modified"]
