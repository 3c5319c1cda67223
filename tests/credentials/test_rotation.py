"""Rotation works (issue 14): `add --replace` replaces a secret and says so, `remove`
forgets the secrets only its server used, `secret list` marks unreferenced ones."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from tests.conftest import Result, run_mcpctl


def token(tag: str) -> str:
    return f"ghp_{tag}" + uuid.uuid4().hex[:12] + "A1b2C3d4E5f6G7h8I9j0"


def mcpctl(*args: str, stdin: str | None = None) -> Result:
    return run_mcpctl(list(args), stdin=stdin)


def secret(name: str) -> str | None:
    got = mcpctl("secret", "get", name, "--reveal")
    return got.out.removesuffix("\n") if got.code == 0 else None


@pytest.mark.usefixtures("secret_service")
def test_replace_with_a_new_value_replaces_the_keyring_entry_and_says_so(
    user_config: Path,
) -> None:
    old, new = token("Old"), token("New")
    assert mcpctl("add", "rot1", "--env", f"GITHUB_TOKEN={old}", "--", "srv").code == 0
    before = user_config.read_text()
    rotated = mcpctl("add", "rot1", "--replace", "--env", f"GITHUB_TOKEN={new}",
                     "--output", "json", "--", "srv")
    assert rotated.code == 0
    assert rotated.err == "replaced secret 'rot1-GITHUB_TOKEN' in the OS keyring with the value " \
                          "given\n"
    document = json.loads(rotated.out)
    assert (document["status"], document["secrets"]) == (
        "unchanged", [{"name": "rot1-GITHUB_TOKEN", "action": "replaced"}])
    assert secret("rot1-GITHUB_TOKEN") == new
    assert user_config.read_text() == before
    again = mcpctl("add", "rot1", "--replace", "--env", f"GITHUB_TOKEN={new}", "--", "srv")
    assert (again.code, again.err) == (0, "")
    assert again.out.endswith("(already defined like this)\n")


@pytest.mark.usefixtures("secret_service")
def test_a_new_password_that_begins_like_the_old_one_is_not_taken_for_it(
        user_config: Path) -> None:
    """A rotated password often keeps its start (`…2024!` to `…2025!`). Without
    --replace the new value is refused, never taken as the one already stored: compared
    by its first 8 characters, the rotation was silently ignored and the old password
    kept."""
    name = f"rot{uuid.uuid4().hex[:6]}"
    old, new = "Summer2024!q7" + name, "Summer2025!q7" + name
    assert mcpctl("add", name, "--env", f"DB_PASSWORD={old}", "--", "srv").code == 0
    refused = mcpctl("add", name, "--env", f"DB_PASSWORD={new}", "--", "srv")
    assert (refused.code, refused.out) == (2, "")
    assert "holds a different value than the one given; nothing was changed" in refused.err
    assert secret(f"{name}-DB_PASSWORD") == old


@pytest.mark.usefixtures("secret_service")
def test_a_changed_definition_with_a_new_value_replaces_it_too(user_config: Path) -> None:
    old, new = token("Old"), token("New")
    assert mcpctl("add", "rot2", "--env", f"GITHUB_TOKEN={old}", "--", "srv", "1").code == 0
    changed = mcpctl("add", "rot2", "--replace", "--env", f"GITHUB_TOKEN={new}", "--", "srv", "2")
    assert changed.code == 0
    assert "replaced secret 'rot2-GITHUB_TOKEN' in the OS keyring" in changed.err
    assert changed.out.startswith("replaced rot2 in ")
    assert secret("rot2-GITHUB_TOKEN") == new


@pytest.mark.usefixtures("secret_service")
def test_remove_forgets_the_secrets_only_that_server_referenced(user_config: Path) -> None:
    own, shared = token("Own"), token("Shr")
    assert mcpctl("secret", "set", "rot3-team", "--stdin", stdin=shared).code == 0
    assert mcpctl("add", "rot3", "--env", f"GITHUB_TOKEN={own}",
                  "--env", "TEAM=${secret:rot3-team}", "--", "srv").code == 0
    assert mcpctl("add", "rot3-other", "--env", "T=${secret:rot3-team}", "--", "srv").code == 0
    removed = mcpctl("remove", "rot3")
    assert removed.code == 0
    assert removed.err == ("removed secret 'rot3-GITHUB_TOKEN' from the OS keyring\n"
                           "kept secret 'rot3-team' in the OS keyring (still referenced by "
                           "rot3-other)\n")
    assert (secret("rot3-GITHUB_TOKEN"), secret("rot3-team")) == (None, shared)
    listed = json.loads(mcpctl("secret", "list", "--json").out)["secrets"]
    assert listed == [{"name": "rot3-team", "stored": True, "referenced_by": ["rot3-other"],
                       "unreferenced": False}]


@pytest.mark.usefixtures("secret_service")
def test_keep_secrets_keeps_them_and_secret_list_marks_them_unreferenced(
    user_config: Path,
) -> None:
    own = token("Kep")
    assert mcpctl("add", "rot4", "--env", f"GITHUB_TOKEN={own}", "--", "srv").code == 0
    kept = mcpctl("remove", "rot4", "--keep-secrets", "--output", "json")
    assert kept.code == 0
    assert json.loads(kept.out)["secrets"] == [{"name": "rot4-GITHUB_TOKEN", "action": "kept"}]
    assert kept.err == "kept secret 'rot4-GITHUB_TOKEN' in the OS keyring (--keep-secrets)\n"
    assert secret("rot4-GITHUB_TOKEN") == own
    listed = mcpctl("secret", "list")
    assert listed.out.splitlines()[1:] == ["rot4-GITHUB_TOKEN  stored, unreferenced  -"]
    document = json.loads(mcpctl("secret", "list", "--json").out)
    assert document["secrets"] == [{"name": "rot4-GITHUB_TOKEN", "stored": True,
                                    "referenced_by": [], "unreferenced": True}]


def test_remove_without_a_keyring_says_what_was_left_behind(
    no_keyring: None, user_config: Path, mcpctl_home: Path,
) -> None:
    user_config.parent.mkdir(parents=True)
    user_config.write_text('[servers.gh]\ncommand = "srv"\n'
                           'env = { T = "${secret:gh-T}" }\n\n'
                           '[servers.never]\ncommand = "srv"\n'
                           'env = { T = "${secret:never-set}" }\n')
    index = mcpctl_home / "data" / "secrets.json"
    index.parent.mkdir(parents=True)
    index.write_text('{"schema_version": 1, "names": {"gh-T": {}}}\n')
    # A secret mcpctl never stored is not looked for: no keyring needed to remove it.
    assert mcpctl("remove", "never").code == 0
    removed = mcpctl("remove", "gh")
    assert removed.code == 5
    assert removed.err.startswith("mcpctl: error: removed gh from ")
    assert "but its secrets (gh-T) could not be removed from the keyring: " in removed.err
    assert user_config.read_text() == ""
    assert index.read_text() == '{"schema_version": 1, "names": {"gh-T": {}}}\n'
    kept = mcpctl("add", "gh2", "--env", "T=${secret:gh-T}", "--", "srv")
    assert kept.code == 0
    assert mcpctl("remove", "gh2", "--keep-secrets").code == 0


@pytest.mark.usefixtures("secret_service")
def test_add_warns_that_a_secret_in_argv_is_visible_to_other_users(user_config: Path) -> None:
    value = token("Arg")
    added = mcpctl("add", "rot5", "--", "srv", "--token", value)
    assert added.code == 0
    assert added.err.splitlines() == [
        "stored a secret-looking value in the OS keyring as 'rot5-arg1'; config.toml references "
        "it as ${secret:rot5-arg1}",
        "warning: server 'rot5' passes ${secret:rot5-arg1} in its arguments, which every local "
        "user can read in the process list; pass it in env instead if the server can read it "
        "from there (--env KEY=${secret:rot5-arg1})",
    ]
    assert value not in added.out + added.err


def _repo_with_sub_server(tmp_path: Path, secret_name: str) -> Path:
    """A git repo whose subfolder's `.mcp.json` references `${secret:NAME}`: what `list`
    there shows (Claude Code reads it from there), what the root's files do not hold."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    sub = repo / "sub"
    sub.mkdir()
    (sub / ".mcp.json").write_text(json.dumps({"mcpServers": {"subsrv": {
        "command": "srv", "env": {"T": f"${{secret:{secret_name}}}"}}}}))
    return sub


@pytest.mark.usefixtures("secret_service")
def test_secret_list_from_a_subfolder_sees_its_servers_references(
    tmp_path: Path, user_config: Path,
) -> None:
    """Read as `list` reads from the folder (issue 22 item 2): the root alone would call
    the secret unreferenced, an invitation to `secret rm` it."""
    sub = _repo_with_sub_server(tmp_path, "rot5-team")
    assert mcpctl("secret", "set", "rot5-team", "--stdin", stdin=token("Sub")).code == 0
    here = json.loads(run_mcpctl(["secret", "list", "--json"], cwd=sub).out)["secrets"]
    assert here == [{"name": "rot5-team", "stored": True, "referenced_by": ["subsrv"],
                     "unreferenced": False}]
    at_root = json.loads(run_mcpctl(["secret", "list", "--json"], cwd=sub.parent).out)
    assert at_root["secrets"][0]["unreferenced"] is True
    removed = run_mcpctl(["secret", "rm", "rot5-team", "--json"], cwd=sub)
    assert json.loads(removed.out)["referenced_by"] == ["subsrv"]


@pytest.mark.usefixtures("secret_service")
def test_remove_from_a_subfolder_keeps_a_secret_its_server_references(
    tmp_path: Path, user_config: Path,
) -> None:
    sub = _repo_with_sub_server(tmp_path, "rot6-team")
    shared = token("Shs")
    assert mcpctl("secret", "set", "rot6-team", "--stdin", stdin=shared).code == 0
    assert mcpctl("add", "rot6", "--env", "TEAM=${secret:rot6-team}", "--", "srv").code == 0
    removed = run_mcpctl(["remove", "rot6"], cwd=sub)
    assert removed.code == 0
    assert removed.err == ("kept secret 'rot6-team' in the OS keyring (still referenced by "
                           "subsrv)\n")
    assert secret("rot6-team") == shared
