"""Import, then sync: the client's own entry that holds exactly the imported server is
adopted (it then launches through mcpctl, the plaintext token leaves the client's
file); a real difference stays a conflict, and `--check` says it is out of date."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.clients import TOKENS, install_home
from tests.conftest import Cli, run_mcpctl

pytestmark = pytest.mark.usefixtures("secret_service")


def imported_cursor(tmp_path: Path, isolated_home: Path) -> Path:
    (tmp_path / "repo").mkdir()
    cursor = install_home("cursor", isolated_home, tmp_path / "repo")
    imported = run_mcpctl(["import", "--from", "cursor", "tokens", "-w", str(tmp_path / "repo")])
    assert imported.code == 0, imported.err
    assert run_mcpctl(["clients", "enable", "cursor"]).code == 0
    return cursor


def test_sync_right_after_import_adopts_the_entry_and_drops_the_token(
        tmp_path: Path, isolated_home: Path, mcpctl_home: Path) -> None:
    cursor = imported_cursor(tmp_path, isolated_home)
    check = run_mcpctl(["sync", "--check"])
    assert check.code == 1, check.err
    assert check.out.splitlines()[0] == "cursor: ~/.cursor/mcp.json (out of date)"
    synced = run_mcpctl(["sync", "--json"])
    assert synced.code == 0, synced.err
    changes = json.loads(synced.out)["clients"][0]["changes"]
    assert {c["name"]: c["status"] for c in changes}["tokens"] == "adopted"
    entry = json.loads(cursor.read_text())["mcpServers"]["tokens"]
    assert entry == {"command": "mcpctl", "args": ["run", "tokens"]}
    assert TOKENS["cursor"] not in cursor.read_text()
    backups = list((mcpctl_home / "data" / "backups" / "cursor").iterdir())
    assert len(backups) == 1
    assert run_mcpctl(["sync", "--check"]).code == 0


def test_an_entry_that_differs_in_one_argument_stays_a_conflict(
        tmp_path: Path, isolated_home: Path, cli: Cli) -> None:
    cursor = imported_cursor(tmp_path, isolated_home)
    data = json.loads(cursor.read_text())
    data["mcpServers"]["tokens"]["args"].append("--verbose")
    cursor.write_text(json.dumps(data))
    before = cursor.read_text()
    result = cli("sync")
    assert result.code == 1
    assert result.out.splitlines()[0] == "cursor: ~/.cursor/mcp.json (conflicts)"
    assert "conflict  tokens" in result.out
    assert cursor.read_text() == before
    check = cli("sync", "--check")
    assert check.code == 1
    assert check.out.splitlines()[0] == "cursor: ~/.cursor/mcp.json (out of date)"


def test_an_entry_whose_token_differs_from_the_keyring_stays_a_conflict(
        tmp_path: Path, isolated_home: Path, cli: Cli) -> None:
    cursor = imported_cursor(tmp_path, isolated_home)
    cursor.write_text(cursor.read_text().replace(TOKENS["cursor"],
                                                 "sk-live-rotated0123456789abcdefABCDEFgh"))
    result = cli("sync", "--json")
    assert result.code == 1
    changes = json.loads(result.out)["clients"][0]["changes"]
    assert {c["name"]: c["status"] for c in changes}["tokens"] == "conflict"


def test_an_entry_that_names_the_keyring_secret_as_text_stays_a_conflict(
        tmp_path: Path, isolated_home: Path, user_config: Path, cli: Cli) -> None:
    """Cursor passes `${secret:…}` on as literal text, where mcpctl would put the
    keyring's value. An entry written like the user tier's own definition, reference
    and all, converts to the same server, yet it never sent the token: adopting it
    would start sending the token where its author sent only those characters. It stays
    a conflict. With the reference check left out of adoption, it was adopted."""
    cursor = imported_cursor(tmp_path, isolated_home)
    reference = re.search(r"\$\{secret:[^}]+\}", user_config.read_text())
    assert reference is not None
    data = json.loads(cursor.read_text())
    data["mcpServers"]["tokens"]["env"]["API_TOKEN"] = reference.group(0)
    cursor.write_text(json.dumps(data))
    result = cli("sync", "--json")
    assert result.code == 1, result.err
    changes = json.loads(result.out)["clients"][0]["changes"]
    assert {c["name"]: c["status"] for c in changes}["tokens"] == "conflict"
    assert json.loads(cursor.read_text()) == data


@pytest.mark.parametrize("entry", ["npx server", ["npx", "server"], 7])
def test_an_entry_that_is_not_an_object_stays_a_conflict(
        tmp_path: Path, isolated_home: Path, cli: Cli, entry: object) -> None:
    """A hand-edited client file can hold anything under a server's name. An entry
    that is not an object is never the user tier's server: a conflict, the file
    untouched. With the object check left out of adoption, `sync` ended
    with an internal error (exit 70, `'int' object is not iterable`)."""
    cursor = imported_cursor(tmp_path, isolated_home)
    data = json.loads(cursor.read_text())
    data["mcpServers"]["tokens"] = entry
    cursor.write_text(json.dumps(data))
    result = cli("sync", "--json")
    assert result.code == 1, result.err
    assert "Traceback" not in result.err
    changes = json.loads(result.out)["clients"][0]["changes"]
    assert {c["name"]: c["status"] for c in changes}["tokens"] == "conflict"
    assert json.loads(cursor.read_text()) == data


def test_an_entry_a_client_reads_literally_stays_a_conflict(
        isolated_home: Path, user_config: Path, cli: Cli) -> None:
    """Claude Desktop passes `${HOME}` on as those seven characters; mcpctl expands it.
    An entry written exactly like the user tier's definition is then a different
    server, so it stays a conflict and the file is left alone. With the check of what
    the conversion could not express left out of adoption, it was adopted."""
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text('[servers.notes]\ncommand = "notes-mcp"\nargs = ["${HOME}/notes"]\n'
                           '\n[clients]\nsync = ["claude-desktop"]\n')
    desktop = isolated_home / ".config" / "Claude" / "claude_desktop_config.json"
    desktop.parent.mkdir(parents=True)
    data = {"mcpServers": {"notes": {"command": "notes-mcp", "args": ["${HOME}/notes"]}}}
    desktop.write_text(json.dumps(data))
    result = cli("sync", "--json")
    assert result.code == 1, result.err
    changes = json.loads(result.out)["clients"][0]["changes"]
    assert {c["name"]: c["status"] for c in changes} == {"notes": "conflict"}
    assert json.loads(desktop.read_text()) == data
