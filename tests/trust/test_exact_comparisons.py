"""Approvals compare whole values, never a prefix, and `revoke --stale` forgets every
approval the gate would refuse (issue 30: each test was shown to fail with the bug
planted by hand, as its docstring says)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_run import workspace_with
from tests.conftest import run_mcpctl


def state(root: Path) -> tuple[str, str | None]:
    row = json.loads(run_mcpctl(["list", "--json", "-w", str(root)]).out)["servers"][0]
    return row["state"], row.get("note")


def trusted_workspace(tmp_path: Path) -> Path:
    root = workspace_with(tmp_path, {"srv": {"command": "bash", "args": ["run.sh"]}})
    (root / "run.sh").write_text("true\n")
    assert run_mcpctl(["trust", "srv", "--yes", "-w", str(root)]).code == 0
    assert state(root)[0] == "trusted"
    return root


def test_an_approval_whose_fingerprint_differs_only_at_its_end_is_not_this_one(
    tmp_path: Path, mcpctl_home: Path
) -> None:
    """The approved fingerprint must equal the current one, all 64 hex digits.

    Planted by hand, `approval.fingerprint[:16] == fingerprint[:16]` in `state_of` kept
    this `trusted`, and `run` started the server."""
    root = trusted_workspace(tmp_path)
    store = mcpctl_home / "data" / "trust.json"
    document = json.loads(store.read_text())
    record = document["workspaces"][str(root.resolve())]["srv"]
    last = record["fingerprint"][-1]
    record["fingerprint"] = record["fingerprint"][:-1] + ("0" if last != "0" else "1")
    store.write_text(json.dumps(document))
    assert state(root)[0] == "changed"
    assert run_mcpctl(["run", "srv", "-w", str(root)]).code == 4


def test_an_ignored_folder_does_not_cover_a_file_whose_name_starts_with_it(
    tmp_path: Path
) -> None:
    """`--ignore-changes-in docs` covers `docs/…`, never `docs-build.sh` beside it.

    Planted by hand, the folder kept without its trailing `/` (`docs`) made every path
    that starts with the word ignored: this file's change stayed `trusted`."""
    root = workspace_with(tmp_path, {"srv": {"command": "bash", "args": ["run.sh"]}})
    (root / "run.sh").write_text(". ./docs-build.sh\n")
    (root / "docs-build.sh").write_text("true\n")
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text("guide\n")
    assert run_mcpctl(["trust", "srv", "--yes", "--ignore-changes-in", "docs",
                       "-w", str(root)]).code == 0
    (root / "docs" / "guide.md").write_text("edited\n")
    assert state(root) == ("trusted", "changes in docs/ ignored")
    (root / "docs-build.sh").write_text("touch MARKER\n")
    assert state(root) == ("changed", "file docs-build.sh modified")
    assert run_mcpctl(["run", "srv", "-w", str(root)]).code == 4
    assert not (root / "MARKER").exists()


def test_revoke_stale_forgets_an_approval_that_became_unpinnable(
    tmp_path: Path, mcpctl_home: Path
) -> None:
    """An approval the gate refuses because the workspace can no longer be pinned is
    stale too. Planted by hand, `status.state in (TrustState.CHANGED,)` in
    `stale_records` kept it, and this failed."""
    root = trusted_workspace(tmp_path)
    # A per-process path names one file in mcpctl and another in the server.
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": {
        "command": "bash", "args": ["run.sh", "/proc/self/environ"]}}}))
    assert state(root)[0] == "unpinnable"
    assert run_mcpctl(["run", "srv", "-w", str(root)]).code == 4
    revoked = json.loads(run_mcpctl(["revoke", "--stale", "--json"]).out)["revoked"]
    assert [(item["name"], item["reason"]) for item in revoked] == [("srv", "unpinnable")]
    assert json.loads((mcpctl_home / "data" / "trust.json").read_text())["workspaces"] == {}


def test_a_manifest_under_another_approvals_name_names_no_file(
    tmp_path: Path, mcpctl_home: Path
) -> None:
    """The approved file list names the changed files only when it was written for this
    approval: another approval's list put under this one's name (so that a change looks
    like another, or like none) is refused, and the note says the files cannot be named.

    Planted by hand, a checksum of the rows alone (without the approval's digest) took
    the other list, and this failed."""
    from mcpctl.trust.state import NO_MANIFEST  # noqa: PLC0415 - the note as the code has it

    def manifests() -> set[Path]:
        return set((mcpctl_home / "data").rglob("*.bin"))

    root = trusted_workspace(tmp_path)
    [approved] = manifests()
    (root / "decoy.txt").write_text("decoy\n")
    assert run_mcpctl(["trust", "srv", "--yes", "--accept-changed", "-w", str(root)]).code == 0
    [other] = manifests()
    other_bytes = other.read_bytes()
    # Back to the first approval, then the other list under its name.
    (root / "decoy.txt").unlink()
    assert run_mcpctl(["trust", "srv", "--yes", "--accept-changed", "-w", str(root)]).code == 0
    [again] = manifests()
    assert again.name == approved.name
    again.write_bytes(other_bytes)
    (root / "run.sh").write_text("touch MARKER\n")
    assert state(root) == ("changed", NO_MANIFEST)
    assert run_mcpctl(["run", "srv", "-w", str(root)]).code == 4


def test_a_change_whose_digests_share_their_first_digits_is_named(tmp_path: Path) -> None:
    """A change report compares each file's kept digest (16 hex digits) whole. The two
    contents here were searched out so that their digests share the first 7 (`81f601c`).
    Planted: the report's comparison made by the first 8 characters
    (`workspace.py:951`), and no file was named: the note blamed another mcpctl version
    or an edited store for the changed fingerprint."""
    root = workspace_with(tmp_path, {"srv": {"command": "bash", "args": ["run.sh"]}})
    (root / "run.sh").write_text("true\n")
    (root / "lib.js").write_text("module.exports = 39267;\n")
    assert run_mcpctl(["trust", "srv", "--yes", "-w", str(root)]).code == 0
    (root / "lib.js").write_text("module.exports = 40445;\n")
    assert state(root) == ("changed", "file lib.js modified")
