"""The trust store: versioned, 0600, atomic, locked; refused or corrupt stores left alone."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from mcpctl.pinning.manifest import manifest_digest, short
from mcpctl.pinning.workspace import Entry
from mcpctl.trust.state import Approval
from mcpctl.trust.store import (
    SCHEMA_VERSION,
    TrustStoreError,
    approvals_in,
    load_manifest,
    read_store,
    update_store,
    workspace_key,
)
from tests.conftest import ASCII_LOCALE, REPO, Cli
from tests.processes import started
from tests.tier_files import (
    assert_valid,
    json_manifest,
    make_workspace,
    write,
    write_servers,
)

TOKEN = "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0"


@pytest.fixture
def store(mcpctl_home: Path) -> Path:
    return mcpctl_home / "data" / "trust.json"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = make_workspace(tmp_path, {"run.sh": "#!/bin/sh\n"}, name="ws")
    write_servers(root, {
        "docs": {"command": "npx", "args": ["-y", "@acme/docs"], "cwd": "${workspaceFolder}",
                 "env": {"GITHUB_TOKEN": TOKEN, "MODE": "fast"}},
        "tasks": {"command": "bash", "args": ["run.sh"], "envFile": ".env"},
        "web": {"url": "https://w/mcp", "headers": {"Authorization": f"Bearer {TOKEN}",
                                                   "X-Team": "core"}},
    })
    return root


def test_the_store_written_by_trust(cli: Cli, ws: Path, store: Path) -> None:
    assert cli("trust", "--all", "--yes", "-w", str(ws)).code == 0
    assert store.stat().st_mode & 0o777 == 0o600
    text = store.read_text()
    assert TOKEN not in text  # no secret-looking value in clear
    document = json.loads(text)
    assert_valid(document, "trust-store")
    assert document["schema_version"] == SCHEMA_VERSION == 2
    records = document["workspaces"][os.path.realpath(ws)]
    assert sorted(records) == ["docs", "tasks", "web"]
    shown = json.loads(cli("show", "docs", "-w", str(ws), "--json").out)["definitions"][0]
    assert records["docs"]["fingerprint"] == shown["fingerprint"]
    datetime.fromisoformat(records["docs"]["approved_at"])
    hashed = {"sha256": hashlib.sha256(TOKEN.encode()).hexdigest()}
    run_sh = "sha256:" + hashlib.sha256(b"#!/bin/sh\n").hexdigest()
    whole = {"run.sh": run_sh}  # every file but the MCP files; .env does not exist
    assert records["docs"]["definition"] == {
        "transport": "stdio", "command": "npx", "args": ["-y", "@acme/docs"],
        "env": {"GITHUB_TOKEN": hashed, "MODE": "fast"}, "cwd": "${workspaceFolder}",
        "envFile": None, "url": None, "headers": {}, "pinSet": "workspace", "ignored": [],
        "named": [], "manifest": manifest_digest(whole), "fileCount": 1}
    tasks = records["tasks"]["definition"]
    assert (tasks["named"], tasks["manifest"]) == (["run.sh"], manifest_digest(whole))
    # The per-path digests sit in a compact manifest beside the store, named by the set's.
    saved = load_manifest(store, manifest_digest(whole))
    assert saved == {"run.sh": Entry(short(run_sh), 10, 1)}
    manifest = store.parent / "approved-files" / \
        f"{manifest_digest(whole).removeprefix('sha256:')}.bin"
    # The user's alone, as the store is.
    assert manifest.stat().st_mode & 0o777 == 0o600
    # Another format's header is not this one's, whatever follows: fails with the header
    # not checked (structural mutant: a manifest of format 4 was read as format 3).
    data = manifest.read_bytes()
    assert data.startswith(b"mcpctl approved files 3\n")
    manifest.write_bytes(data.replace(b" 3\n", b" 4\n", 1))
    assert load_manifest(store, manifest_digest(whole)) is None
    assert records["web"]["definition"]["headers"] == {
        "Authorization": {"sha256": hashlib.sha256(f"Bearer {TOKEN}".encode()).hexdigest()},
        "X-Team": "core"}


def test_keyed_by_the_real_path_of_the_root(cli: Cli, ws: Path, tmp_path: Path,
                                           store: Path) -> None:
    os.symlink(ws, tmp_path / "alias")
    cli("trust", "docs", "--yes", "-w", str(tmp_path / "alias"))
    assert list(json.loads(store.read_text())["workspaces"]) == [os.path.realpath(ws)]
    rows = json.loads(cli("list", "-w", str(ws), "--json").out)["servers"]
    assert {r["name"]: r["state"] for r in rows}["docs"] == "trusted"


def test_an_unchanged_store_is_not_rewritten(cli: Cli, ws: Path, store: Path) -> None:
    cli("trust", "docs", "--yes", "-w", str(ws))
    inode = store.stat().st_ino
    cli("trust", "docs", "--yes", "-w", str(ws))
    cli("revoke", "ghost", "-w", str(ws))
    assert store.stat().st_ino == inode


def test_an_existing_store_is_put_back_to_0600(ws: Path, store: Path) -> None:
    write(store, '{"schema_version": 1, "workspaces": {}}\n')
    store.chmod(0o644)
    update_store(store, lambda s: s["workspaces"].update({"/x": {}}))
    assert store.stat().st_mode & 0o777 == 0o600


NEWER = '{"schema_version": 3, "workspaces": {}, "future": true}\n'


def test_a_newer_schema_version_is_refused_and_left_untouched(
    cli: Cli, ws: Path, store: Path
) -> None:
    write(store, NEWER)
    message = (f"trust store {store} has schema_version 3, newer than this mcpctl understands "
               "(2); upgrade mcpctl — the file was not changed")
    listed = cli("list", "-w", str(ws), "--json")
    assert listed.code == 3
    document = json.loads(listed.out)
    assert document["problems"] == [{"path": str(store), "line": 1, "column": 1,
                                     "message": message}]
    assert {r["state"] for r in document["servers"]} == {"untrusted"}
    for argv in (["trust", "docs", "--yes", "-w", str(ws)], ["revoke", "--all"],
                 ["revoke", "--stale"], ["revoke", "docs", "-w", str(ws)]):
        result = cli(*argv)
        assert (result.code, result.err) == (3, f"mcpctl: error: {message}\n"), argv
        assert store.read_text() == NEWER


@pytest.mark.parametrize(("text", "detail"), [
    ('{"schema_version": 1, "workspaces": {', "is corrupt (line 1, column 38: Expecting property "
     "name enclosed in double quotes); it was left in place and nothing is trusted until it is "
     "fixed or removed"),
    ("[]", "is not an mcpctl trust store (no schema_version, or workspaces that are not objects "
     "of records); it was left in place and nothing is trusted until it is fixed or removed"),
    ('{"schema_version": 1, "workspaces": {"/w": "x"}}', "is not an mcpctl trust store"),
    ('{"schema_version": 1, "workspaces": {"/w": {"docs": 5}}}', "is not an mcpctl trust store"),
    ('{"schema_version": true, "workspaces": {}}', "is not an mcpctl trust store"),
    ('{"schema_version": 0, "workspaces": {}}', "is not an mcpctl trust store"),
])
def test_a_corrupt_store_is_reported_with_its_path_and_left_in_place(
    cli: Cli, ws: Path, store: Path, text: str, detail: str
) -> None:
    write(store, text)
    result = cli("list", "-w", str(ws))
    assert result.code == 3
    assert f"trust store {store} {detail}" in result.err
    assert "Traceback" not in result.err
    assert store.read_text() == text
    trust = cli("trust", "docs", "--yes", "-w", str(ws))
    assert trust.code == 3
    assert store.read_text() == text


def test_nothing_is_trusted_while_the_store_is_unreadable(cli: Cli, ws: Path,
                                                          store: Path) -> None:
    cli("trust", "--all", "--yes", "-w", str(ws))
    good = store.read_bytes()
    store.write_bytes(good[:-20])  # torn by something else: not valid JSON
    result = cli("list", "-w", str(ws), "--needs-attention")
    assert result.code == 3
    rows = json.loads(cli("list", "-w", str(ws), "--json").out)["servers"]
    assert {r["state"] for r in rows} == {"untrusted"}
    store.write_bytes(good)
    rows = json.loads(cli("list", "-w", str(ws), "--json").out)["servers"]
    assert {r["state"] for r in rows} == {"trusted"}


def test_a_directory_in_place_of_the_store(cli: Cli, ws: Path, store: Path) -> None:
    store.mkdir(parents=True)
    result = cli("list", "-w", str(ws))
    assert result.code == 3
    assert f"trust store {store} cannot be read ([Errno 21] Is a directory" in result.err


def test_read_store_and_approvals(tmp_path: Path) -> None:
    path = tmp_path / "trust.json"
    assert read_store(path) == {"schema_version": 2, "workspaces": {}}
    key = workspace_key(tmp_path)
    record: dict[str, Any] = {"fingerprint": "sha256:" + "0" * 64,
                              "approved_at": "2026-01-01T00:00:00+00:00",
                              "definition": {"command": "x"}}
    write(path, json.dumps({"schema_version": 1, "workspaces": {
        key: {"a": record, "b": {"no": "fingerprint"}}}}))
    assert approvals_in(read_store(path), tmp_path) == {
        "a": Approval(record["fingerprint"], record["approved_at"], {"command": "x"})}
    assert approvals_in(read_store(path), tmp_path / "elsewhere") == {}
    write(path, "{")
    with pytest.raises(TrustStoreError):
        read_store(path)


def test_update_store_writes_only_on_change(tmp_path: Path) -> None:
    path = tmp_path / "d" / "trust.json"
    assert update_store(path, lambda s: "nothing") == "nothing"
    assert not path.exists()

    def add(store: dict[str, Any]) -> None:
        store["workspaces"]["/w"] = {}

    update_store(path, add)
    assert json.loads(path.read_text()) == {"schema_version": 2, "workspaces": {"/w": {}}}


def test_concurrent_trusts_all_land(tmp_path: Path, store: Path) -> None:
    root = make_workspace(tmp_path, {}, name="many")
    names = [f"s{i}" for i in range(12)]
    write_servers(root, {name: {"command": "x", "args": [name]} for name in names})
    with ExitStack() as stack:
        procs = [stack.enter_context(started(
            [sys.executable, "-m", "mcpctl", "trust", name, "--yes", "-w", str(root)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)) for name in names]
        assert [proc.wait(timeout=60) for proc in procs] == [0] * len(names)
    document = json.loads(store.read_text())
    assert_valid(document, "trust-store")
    assert sorted(document["workspaces"][os.path.realpath(root)]) == sorted(names)


@pytest.mark.parametrize("definition", [[1], {"args": 5}, {"env": "str"},
                                        {"env": {"K": 3}}, {"files": {"a": 1}},
                                        {"command": ["x"]}, {"headers": {"A": {"md5": "x"}}}])
def test_a_malformed_record_makes_the_store_corrupt_not_a_crash(
    tmp_path: Path, definition: Any
) -> None:
    path = tmp_path / "trust.json"
    record = {"fingerprint": "sha256:" + "1" * 64, "approved_at": "x", "definition": definition}
    text = json.dumps({"schema_version": 1, "workspaces": {workspace_key(tmp_path): {
        "a": record}}})
    write(path, text)
    with pytest.raises(TrustStoreError, match=r"record of 'a' in .* is malformed"):
        approvals_in(read_store(path), tmp_path)
    assert approvals_in(read_store(path), tmp_path / "elsewhere") == {}
    assert path.read_text() == text


def test_an_older_json_manifest_is_read_only_when_it_hashes_to_its_name(tmp_path: Path) -> None:
    """A manifest an older mcpctl wrote (JSON, full digests) is read when its files hash
    to the digest it is named by, and not otherwise, even when the two digests share
    their first characters. Fails with that check left out, always taken, or made on a
    prefix of the digests (structural mutants)."""
    store = tmp_path / "trust.json"
    files = {"run.sh": "sha256:" + "1" * 64, "lib/é.js": "sha256:" + "2" * 64}
    digest = manifest_digest(files)
    json_manifest(store, digest, files)
    assert load_manifest(store, digest) == {name: Entry(value, 10, 1)
                                            for name, value in files.items()}
    # Another set whose digest begins as this one's does (found in a bounded search).
    other = next(rows for rows in ({**files, "run.sh": f"sha256:{n:064x}"} for n in range(4096))
                 if manifest_digest(rows)[:8] == digest[:8] and rows != files)
    json_manifest(store, digest, other)
    assert load_manifest(store, digest) is None


def test_an_older_json_manifest_is_read_as_utf8_whatever_the_locale(tmp_path: Path) -> None:
    """An older JSON manifest naming a non-ASCII path is read as UTF-8 by a process whose
    locale says ASCII (`LC_ALL=C`, Python's locale coercion off). Fails with it read in
    the locale's encoding (structural mutant): the list was lost."""
    files = {"lib/é.js": "sha256:" + "2" * 64}
    digest = manifest_digest(files)
    json_manifest(tmp_path / "trust.json", digest, files)
    code = ("import sys; from pathlib import Path; from mcpctl.trust.store import load_manifest;"
            " print(ascii(sorted(load_manifest(Path(sys.argv[1]), sys.argv[2]) or {})))")
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "trust.json"), digest],
        cwd=REPO, capture_output=True, text=True, timeout=60,
        env={**os.environ, **ASCII_LOCALE}, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, "['lib/\\xe9.js']\n", "")
