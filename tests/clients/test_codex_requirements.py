"""Codex's requirements.toml as `guard --system` writes it (issue 22): the exact text
over an administrator's existing file, what mcpctl counts as an allowlist no repo can
widen, and the command's refusals. The file's meaning is measured with the real Codex
in test_guard_system.py."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from mcpctl.clients.codex_requirements import allows_only_exact, requirements_text
from tests.conftest import run_mcpctl
from tests.tier_files import assert_valid

ADMIN = '''# deployed by IT
allowed_approval_policies = ["on-request"]

[mcp_servers.legacy.identity]
command = "legacy-server"

[features]
web_search = false # keep
'''


def test_the_allowlist_replaces_only_mcp_servers_and_keeps_the_rest() -> None:
    text = requirements_text(ADMIN, "/usr/local/bin/mcpctl", ["tasks", "a.b"])
    assert text == '''# deployed by IT
allowed_approval_policies = ["on-request"]

[features]
web_search = false # keep

[mcp_servers."a.b".identity.command]
executable = "/usr/local/bin/mcpctl"
args = [{match = "exact", value = "run"}, {match = "exact", value = "a.b"}]

[mcp_servers.tasks.identity.command]
executable = "/usr/local/bin/mcpctl"
args = [{match = "exact", value = "run"}, {match = "exact", value = "tasks"}]
'''
    assert allows_only_exact(tomllib.loads(text))
    assert requirements_text(text, "/usr/local/bin/mcpctl", ["tasks", "a.b"]) == text


def test_no_user_servers_is_an_empty_table_which_disables_every_server() -> None:
    assert requirements_text(None, "mcpctl", []) == "[mcp_servers]\n"
    assert allows_only_exact({"mcp_servers": {}})


@pytest.mark.parametrize("identity", [
    {"command": "mcpctl"},  # the executable alone: any arguments pass
    {"command": {"executable": "mcpctl", "args": [{"match": "prefix", "value": "run"}]}},
    {"command": {"executable": "mcpctl", "args": [{"match": "regex", "expression": ".*"}]}},
    {"command": {"executable": "mcpctl"}},
    "mcpctl",
])
def test_an_identity_a_repo_could_match_with_arguments_of_its_own_is_not_exact(
        identity: object) -> None:
    assert not allows_only_exact({"mcp_servers": {"tasks": {"identity": identity}}})
    assert not allows_only_exact({"features": {}})  # no allowlist at all


def test_a_file_that_is_not_toml_is_refused() -> None:
    with pytest.raises(ValueError, match="Invalid"):  # tomllib's own words
        requirements_text("a = = 1\n", "mcpctl", ["tasks"])


def test_guard_system_writes_codex_over_an_existing_file_and_says_its_limit(
        tmp_path: Path) -> None:
    target = tmp_path / "root" / "etc" / "codex" / "requirements.toml"
    target.parent.mkdir(parents=True)
    target.write_text(ADMIN)
    done = run_mcpctl(["guard", "--system", "--write", "--root", str(tmp_path / "root"),
                       "--command", "mcpctl", "--json"], cwd=tmp_path, timeout=120)
    assert done.code == 0, done.err
    document = json.loads(done.out)
    assert_valid(document, "guard")
    codex = next(f for f in document["files"] if f["client"] == "codex")
    assert codex["path"] == str(target)
    assert target.read_text() == codex["text"]
    assert oct(target.stat().st_mode & 0o777) == "0o644"
    assert codex["text"].startswith("# deployed by IT\nallowed_approval_policies")
    assert tomllib.loads(codex["text"])["mcp_servers"] == {}  # no user-tier servers
    assert document["limits"] == {"codex": (
        "a trusted project's .codex/config.toml can still add env (PYTHONPATH, LD_PRELOAD, "
        "MCPCTL_HOME) to an allowed entry of the same name: Codex matches the command and "
        "its arguments only")}
    text = run_mcpctl(["guard", "--system"], cwd=tmp_path, timeout=120)
    assert "# codex: /etc/codex/requirements.toml\n[mcp_servers]\n" in text.out
    assert text.err.endswith(f"note: codex: not stopped by its file: "
                             f"{document['limits']['codex']}\n")


def test_guard_system_refuses_a_requirements_file_it_cannot_read(tmp_path: Path) -> None:
    target = tmp_path / "root" / "etc" / "codex" / "requirements.toml"
    target.parent.mkdir(parents=True)
    target.write_text("[mcp_servers\n")
    done = run_mcpctl(["guard", "--system", "--write", "--root", str(tmp_path / "root")],
                      cwd=tmp_path, timeout=120)
    assert done.code == 3
    assert done.err.startswith(f"mcpctl: error: {target}: not TOML (")
    assert done.err.endswith("; nothing was written\n")
    assert target.read_text() == "[mcp_servers\n"
    assert not (tmp_path / "root" / "etc" / "claude-code").exists()
