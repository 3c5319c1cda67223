"""The diff of an approval against today: arguments removed and added, several at once.

A one-token slip in the list diff (indexing the shorter list) made `list`, `show`,
`trust` and the gate crash with IndexError while every other test stayed green (issue
16). The pure tests pin each line exactly; the end-to-end ones drive every command that
shows a diff, and the gate, over an approval whose arguments were then removed or added.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from mcpctl.config.merge import find
from mcpctl.config.view import load_view
from mcpctl.errors import TrustRefused
from mcpctl.model import ServerSpec, Tier, Transport
from mcpctl.pinning.manifest import WORKSPACE
from mcpctl.pinning.pin_set import PinSet
from mcpctl.pinning.workspace import changed_paths
from mcpctl.trust.gate import admit
from mcpctl.trust.state import (
    LEGACY,
    Approval,
    TrustState,
    approved_definition,
    diff,
    state_of,
    summary,
)
from tests.conftest import Cli
from tests.tier_files import make_workspace, write_servers

BASE: dict[str, Any] = {"transport": "stdio", "command": "npx", "args": ["-y", "pkg", "--ro"],
                        "env": {"MODE": "safe"}, "cwd": None, "envFile": None, "url": None,
                        "headers": {}, "pinSet": "workspace", "ignored": [], "named": [],
                        "manifest": PinSet(WORKSPACE, {}).digest, "fileCount": 0}


def changed(**fields: Any) -> dict[str, Any]:
    return {**BASE, **fields}


@pytest.mark.parametrize(("new_args", "expected"), [
    (["-y", "pkg"], ['args[2] removed: "--ro"']),
    (["-y"], ['args[1] removed: "pkg"', 'args[2] removed: "--ro"']),
    ([], ['args[0] removed: "-y"', 'args[1] removed: "pkg"', 'args[2] removed: "--ro"']),
    (["pkg", "--ro"], ['args[0]: "-y" → "pkg"', 'args[1]: "pkg" → "--ro"',
                       'args[2] removed: "--ro"']),
    (["-y", "pkg", "--ro", "--rw", "--eval=x"],
     ['args[3] added: "--rw"', 'args[4] added: "--eval=x"']),
    (["-y", "evil", "--ro", "a", "b", "c"],
     ['args[1]: "pkg" → "evil"', 'args[3] added: "a"', 'args[4] added: "b"',
      'args[5] added: "c"']),
    (["-y", "pkg", "--ro"], []),
], ids=["last removed", "two removed", "all removed", "first removed", "two added",
        "changed and three added", "same"])
def test_arguments_removed_and_added(new_args: list[str], expected: list[str]) -> None:
    assert diff(BASE, changed(args=new_args)) == expected


def test_arguments_added_to_none() -> None:
    assert diff(changed(args=[]), changed(args=["a", "b"])) == [
        'args[0] added: "a"', 'args[1] added: "b"']


def test_every_kind_of_change_in_its_order() -> None:
    new = changed(transport="sse", command="sh", args=["-y"], cwd="/tmp", envFile=".env",
                  url="https://x.test", env={"MODE": "x", "NEW": "1"},
                  headers={"A": "b"})
    old = changed(headers={"Gone": "v"})
    # The files come from comparing the manifests (status.py); diff puts them last.
    files = [("a.sh", "modified"), ("b.sh", "removed"), ("c.sh", "added")]
    assert diff(old, new, files) == [
        'transport: "stdio" → "sse"', 'command: "npx" → "sh"', 'cwd: null → "/tmp"',
        'envFile: null → ".env"', 'url: null → "https://x.test"',
        'args[1] removed: "pkg"', 'args[2] removed: "--ro"',
        'env MODE: "safe" → "x"', 'env NEW added: "1"',
        'header A added: "b"', "header Gone removed",
        "file a.sh modified", "file b.sh removed", "file c.sh added",
    ]


@pytest.mark.parametrize(("old", "new"), [("sha256:1", "sha256:2"), ("sha256:2", "sha256:1")])
def test_a_pinned_file_whose_digest_changes_either_way(old: str, new: str) -> None:
    assert list(changed_paths({"s.sh": old}, {"s.sh": new})) == [("s.sh", "modified")]
    assert diff(BASE, BASE, list(changed_paths({"s.sh": old}, {"s.sh": new}))) == [
        "file s.sh modified"]


def test_a_value_changed_after_its_first_characters_is_a_change() -> None:
    """An env or header value, or an argument, that differs only past its start is
    named as changed. Fails with the env map's values compared by their first 8
    characters (structural mutant): the line was left out, and a change with no other
    line reads only "fingerprint differs (approved by another mcpctl version or edited
    store)"."""
    old = changed(env={"MODE": "readonly-1"}, headers={"X-Env": "production-a"},
                  args=["--config=/etc/a"])
    new = changed(env={"MODE": "readonly-2"}, headers={"X-Env": "production-b"},
                  args=["--config=/etc/b"])
    assert diff(old, new) == ['args[0]: "--config=/etc/a" → "--config=/etc/b"',
                              'env MODE: "readonly-1" → "readonly-2"',
                              'header X-Env: "production-a" → "production-b"']


def test_non_ascii_values_are_shown_as_written() -> None:
    assert diff(BASE, changed(command="café", args=["-y", "pkg", "--ro", "日本"])) == [
        'command: "npx" → "café"', 'args[3] added: "日本"']


def test_an_approval_cannot_be_changed_after_it_is_read() -> None:
    approval = Approval("sha256:a", "2026-01-01T00:00:00Z", BASE)
    with pytest.raises(AttributeError):
        approval.fingerprint = "sha256:b"  # type: ignore[misc]
    assert approval.fingerprint == "sha256:a"


def test_a_secret_looking_value_is_never_shown() -> None:
    hashed = {"sha256": "0" * 64}
    old = changed(env={"API_TOKEN": hashed}, args=["--token", hashed])
    new = changed(env={"API_TOKEN": {"sha256": "1" * 64}}, args=["--token"])
    assert diff(old, new) == ["args[1] removed: (a secret-looking value)",
                              "env API_TOKEN: (a secret-looking value) → (a secret-looking value)"]


def test_a_record_missing_fields_diffs_as_empty() -> None:
    assert diff({"pinSet": "workspace"}, {"pinSet": "workspace"}) == []
    assert diff({"command": "x", "pinSet": "workspace"},
                {"command": "x", "args": ["a"], "env": {"K": "v"}, "pinSet": "workspace"}) == [
        'args[0] added: "a"', 'env K added: "v"']


def test_a_schema_1_record_says_it_needs_reapproval() -> None:
    assert diff({}, {})[0].startswith("approved before mcpctl pinned the whole workspace")


def test_a_schema_1_record_shows_its_fields_but_not_the_pin_set_it_never_had() -> None:
    legacy = {key: value for key, value in BASE.items()
              if key not in ("pinSet", "ignored", "named", "manifest", "fileCount")}
    stored = json.loads(json.dumps({**legacy, "url": "https://old.test/mcp"}))  # as read
    new = changed(url="https://x.test/mcp", command="sh")
    assert diff(stored, new) == [
        LEGACY, 'command: "npx" → "sh"', 'url: "https://old.test/mcp" → "https://x.test/mcp"']


@pytest.mark.parametrize(("changes", "expected"), [
    ([], ""), (["one"], "one"), (["one", "two"], "one (+1 more)"),
    (["one", "two", "three"], "one (+2 more)"),
])
def test_summary(changes: list[str], expected: str) -> None:
    assert summary(changes) == expected


@pytest.mark.parametrize(("changes", "expected"), [
    (["file a.js modified"], "file a.js modified"),
    (["cwd: null → \"x\"", "file a.js added"], "cwd: null → \"x\" (+1 more)"),
    (["file a.js added", "file b.js removed"],
     "2 files changed since approval: a.js added, b.js removed"),
    ([f"file {name}.js added" for name in "abc"],
     "3 files changed since approval: a.js added, b.js added, c.js added"),
    ([f"file {name}.js added" for name in "abcd"],
     "4 files changed since approval: a.js added, b.js added, c.js added, +1 more"),
    ([f"file {name}.js added" for name in "abcdef"],
     "6 files changed since approval: a.js added, b.js added, c.js added, +3 more"),
    (["args[0]: \"a\" → \"b\"", *[f"file {name}.js added" for name in "abcde"]],
     "args[0]: \"a\" → \"b\" (+1 more)"),
])
def test_summary_names_changed_files_together(changes: list[str], expected: str) -> None:
    assert summary(changes) == expected


def test_state_of_each_case() -> None:
    approval = Approval("sha256:a", "2026-01-01T00:00:00Z", BASE)
    assert state_of(Tier.USER, "sha256:a", None) is TrustState.USER
    assert state_of(Tier.USER, "sha256:b", approval) is TrustState.USER
    assert state_of(Tier.WORKSPACE, "sha256:a", None) is TrustState.UNTRUSTED
    assert state_of(Tier.WORKSPACE, "sha256:a", approval) is TrustState.TRUSTED
    assert state_of(Tier.WORKSPACE, "sha256:b", approval) is TrustState.CHANGED
    # A client tier's definition is never "user": it has no approval to be trusted by.
    assert state_of(Tier.CLIENT, "sha256:a", None) is TrustState.UNTRUSTED
    assert state_of(Tier.CLIENT, "sha256:b", approval) is TrustState.CHANGED


def test_approved_definition_hashes_only_secret_looking_values() -> None:
    token = "ghp_" + "A1b2C3d4E5" * 4
    spec = ServerSpec("docs", Transport.STDIO, command="npx", args=("-y", "pkg"),
                      env={"Z": "plain", "GITHUB_TOKEN": token}, headers={"X-Team": "core"})
    digest = {"sha256": hashlib.sha256(token.encode()).hexdigest()}
    pins = PinSet(WORKSPACE, {"b.sh": "sha256:2", "a.sh": "sha256:1"}, named=("a.sh",))
    assert approved_definition(spec, pins) == {
        "transport": "stdio", "command": "npx", "args": ["-y", "pkg"],
        "env": {"GITHUB_TOKEN": digest, "Z": "plain"}, "cwd": None, "envFile": None,
        "url": None, "headers": {"X-Team": "core"}, "pinSet": "workspace", "ignored": [],
        "named": ["a.sh"], "manifest": pins.digest, "fileCount": 2}
    assert list(approved_definition(spec, PinSet(WORKSPACE, {}))["env"]) == ["GITHUB_TOKEN", "Z"]


# --- end to end: every command that shows a diff, and the gate --------------------------

DOCS: dict[str, Any] = {"command": "npx", "args": ["-y", "@acme/docs-mcp@2.4.0", "--ro"]}

CHANGES = [
    ("one removed", ["-y", "@acme/docs-mcp@2.4.0"], ['args[2] removed: "--ro"']),
    # No package left to run: the whole workspace is pinned instead of npx's inputs.
    ("all removed", [], ['pinSet: "npx" → "workspace"', 'args[0] removed: "-y"',
                         'args[1] removed: "@acme/docs-mcp@2.4.0"', 'args[2] removed: "--ro"']),
    ("two added", [*DOCS["args"], "--allow-write", "/"],
     ['args[3] added: "--allow-write"', 'args[4] added: "/"']),
]


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_workspace(tmp_path, {}, name="ws")
    write_servers(root, {"docs": DOCS})
    monkeypatch.chdir(tmp_path)
    return root


@pytest.mark.parametrize(("args", "lines"), [c[1:] for c in CHANGES],
                         ids=[c[0] for c in CHANGES])
def test_list_show_trust_and_the_gate_over_removed_and_added_arguments(
    cli: Cli, ws: Path, user_config: Path, mcpctl_home: Path, args: list[str],
    lines: list[str],
) -> None:
    assert cli("trust", "docs", "--yes", "-w", "ws").code == 0
    write_servers(ws, {"docs": {**DOCS, "args": args}})
    note = summary(lines)
    listed = json.loads(cli("list", "-w", "ws", "--json").out)["servers"]
    assert [(r["state"], r["note"]) for r in listed] == [("changed", note)]
    assert f"changed ({note})" in cli("list", "-w", "ws").out
    shown = cli("show", "docs", "-w", "ws", "--json")
    assert (shown.code, json.loads(shown.out)["definitions"][0]["changes"]) == (0, lines)
    merged = find(load_view(ws, user_config).servers, "docs")
    assert merged is not None
    with pytest.raises(TrustRefused) as refused:
        admit(merged, ws, mcpctl_home / "data" / "trust.json", environ=dict(os.environ),
              home=Path.home())
    assert str(refused.value) == (
        f"server 'docs' changed since it was approved ({'; '.join(lines)}); review the change "
        f"with: mcpctl trust docs --workspace {ws}")
    again = cli("trust", "docs", "--accept-changed", "-w", "ws")
    assert again.code == 0
    assert "  changed since approval:\n" + "".join(f"    {line}\n" for line in lines) in again.out


@pytest.mark.parametrize(("label", "old", "new"), [
    ("named", ["b.sh"], []),  # the headline path gone
    ("named", ["b.sh"], ["a.sh"]),  # another file named, sorting before the old one
    ("ignored", ["docs/"], []),  # an exclusion dropped
    ("ignored", [], ["docs/"]),
])
def test_the_headline_and_the_exclusions_are_diffed_either_way(label: str, old: list[str],
                                                               new: list[str]) -> None:
    assert diff(changed(**{label: old}), changed(**{label: new})) == [
        f"{label}: {json.dumps(old)} → {json.dumps(new)}"]
