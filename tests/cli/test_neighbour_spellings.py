"""The neighbours' spellings (`claude mcp`, `codex mcp`, `gemini mcp`), and the README's
"Coming from" table (issue 26 item 7).

`ROWS` holds, for each row of the table, the mcpctl column exactly as the README
prints it and a check that runs it through the CLI; the table and `ROWS` must list
the same rows with the same text, so a row cannot change without its check.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import REPO, run_mcpctl
from tests.secret_service import SecretService

Check = Callable[[Path, Path], None]  # (tmp_path, user_config)


def _workspace(tmp_path: Path, servers: dict[str, object]) -> Path:
    root = tmp_path / "repo"
    root.mkdir(exist_ok=True)
    (root / ".git").mkdir(exist_ok=True)
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return root


def check_scopes(tmp_path: Path, user_config: Path) -> None:
    root = _workspace(tmp_path, {})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert run_mcpctl(["add", "everywhere", "--scope", "user", "--", "srv"]).code == 0
    assert run_mcpctl(["add", "here", "-s", "local", "-w", str(root), "--", "srv"]).code == 0
    assert f'workspace = "{os.path.realpath(root)}"' in user_config.read_text()

    def names(folder: Path) -> list[str]:
        listed = run_mcpctl(["list", "--json", "-w", str(folder)])
        assert listed.code == 0, listed.err
        assert "unknown key" not in listed.err  # the local scope's own key is known
        return [row["name"] for row in json.loads(listed.out)["servers"]]

    assert names(root) == ["everywhere", "here"]
    assert names(elsewhere) == ["everywhere"]
    wrong = run_mcpctl(["add", "x", "--scope", "global", "--", "srv"])
    assert (wrong.code, wrong.err) == (2, "mcpctl: error: --scope must be user or local, "
                                          "not 'global'\n")


def check_clients_synced(tmp_path: Path, user_config: Path) -> None:
    home = Path(os.environ["HOME"])
    assert run_mcpctl(["clients", "enable", "claude-code"]).code == 0
    added = run_mcpctl(["add", "one", "--", "srv"])
    assert "synced claude-code: ~/.claude.json (added one)" in added.err
    assert list(json.loads((home / ".claude.json").read_text())["mcpServers"]) == ["one"]
    left = run_mcpctl(["remove", "one", "--no-sync"])
    assert "run `mcpctl sync`" in left.err
    assert list(json.loads((home / ".claude.json").read_text())["mcpServers"]) == ["one"]
    assert run_mcpctl(["sync"]).code == 0
    assert json.loads((home / ".claude.json").read_text())["mcpServers"] == {}


def check_project_scope_refused(tmp_path: Path, user_config: Path) -> None:
    root = _workspace(tmp_path, {})
    before = (root / ".mcp.json").read_text()
    refused = run_mcpctl(["add", "x", "--scope", "project", "-w", str(root), "--", "srv"])
    assert refused.code == 2
    assert refused.err == ("mcpctl: error: --scope project would write the repo's own file, "
                           "which mcpctl never edits; add the entry to the repo's .mcp.json, "
                           "then approve it with: mcpctl trust NAME\n")
    assert (root / ".mcp.json").read_text() == before
    assert not user_config.exists()


def check_command_after_dashes(tmp_path: Path, user_config: Path) -> None:
    refused = run_mcpctl(["add", "mem", "npx", "-y", "@modelcontextprotocol/server-memory"])
    assert refused.code == 2
    hint = ("No such option: -y; a command with options of its own goes after --: "
            "mcpctl add mem -- npx -y @modelcontextprotocol/server-memory")
    assert hint in refused.err
    assert not user_config.exists()
    as_json = run_mcpctl(["add", "mem", "-e", "A=b", "npx", "-y", "pkg", "--json"])
    assert json.loads(as_json.out)["error"]["message"] == (
        "No such option: -y; a command with options of its own goes after --: "
        "mcpctl add mem -e A=b -- npx -y pkg --json")
    # The line the hint gives works.
    line = hint.split("goes after --: mcpctl ")[1].split()
    assert run_mcpctl(line).code == 0
    assert 'args = ["-y", "@modelcontextprotocol/server-memory"]' in user_config.read_text()


def check_url_is_remote(tmp_path: Path, user_config: Path) -> None:
    assert run_mcpctl(["add", "docs", "https://docs.example.com/mcp"]).code == 0
    text = user_config.read_text()
    assert 'url = "https://docs.example.com/mcp"' in text
    assert 'type = "http"' in text


def check_schemeless_url_refused(tmp_path: Path, user_config: Path) -> None:
    for argv, form in ((["docs.example.com/mcp"], "https://docs.example.com/mcp"),
                       (["localhost:8080/mcp"], "http://localhost:8080/mcp"),
                       (["--url", "docs.example.com/mcp"], "https://docs.example.com/mcp")):
        refused = run_mcpctl(["add", "docs", *argv])
        assert refused.code == 2, argv
        assert form in refused.err, refused.err
    assert not user_config.exists()


def check_url_with_arguments_refused(tmp_path: Path, user_config: Path) -> None:
    refused = run_mcpctl(["add", "docs", "https://docs.example.com/mcp", "--verbose-x"])
    assert refused.code == 2
    assert not user_config.exists()


def check_secrets(tmp_path: Path, user_config: Path) -> None:
    token = "ghp_" + "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz9Xc8V"
    added = run_mcpctl(["add", "gh", "-e", f"GITHUB_TOKEN={token}", "--", "srv"])
    assert added.code == 0, added.err
    text = user_config.read_text()
    assert "${secret:gh-GITHUB_TOKEN}" in text
    assert token not in text
    assert run_mcpctl(["add", "e", "-e", "API_KEY=", "--", "srv"]).code == 2
    assert run_mcpctl(["add", "h", "https://x.example.com/mcp", "-H",
                       "Authorization: Bearer "]).code == 2


def check_json_entry(tmp_path: Path, user_config: Path) -> None:
    entry = '{"command": "npx", "args": ["-y", "mem@1.0.0"]}'
    configs = []
    for argv in (["add", "m", "--entry", entry], ["add", "m", "--json", entry],
                 ["add-json", "m", entry]):
        done = run_mcpctl(argv)
        assert done.code == 0, (argv, done.err)
        configs.append(user_config.read_text())
        user_config.unlink()
    assert configs[0] == configs[1] == configs[2]


def check_show_get_remove(tmp_path: Path, user_config: Path) -> None:
    assert run_mcpctl(["add", "github", "--", "srv"]).code == 0
    for extra in ([], ["--json"]):
        shown, got = run_mcpctl(["show", "github", *extra]), run_mcpctl(["get", "github", *extra])
        assert (got.code, got.out, got.err) == (shown.code, shown.out, shown.err)
        assert shown.code == 0
    typo = run_mcpctl(["remove", "githb"])
    assert typo.code == 2
    assert typo.err.endswith("(did you mean 'github'?)\n")
    assert run_mcpctl(["list"]).out.count("github") == 1


def check_help_version(tmp_path: Path, user_config: Path) -> None:
    for spelled, ours in ((["version"], ["--version"]), (["help"], ["--help"]),
                          (["help", "add"], ["add", "--help"]),
                          (["help", "secret", "check"], ["secret", "check", "--help"])):
        a, b = run_mcpctl(spelled), run_mcpctl(ours)
        assert (a.code, a.out, a.err) == (b.code, b.out, b.err), spelled
        assert a.code == 0
        assert a.out


def check_trust(tmp_path: Path, user_config: Path) -> None:
    root = _workspace(tmp_path, {"t": {"command": "node", "args": ["a.js"]}})
    assert run_mcpctl(["trust", "t", "--yes", "-w", str(root)]).code == 0
    _workspace(tmp_path, {"t": {"command": "node", "args": ["b.js"]}})
    assert run_mcpctl(["trust", "t", "--yes", "-w", str(root)]).code == 4
    assert run_mcpctl(["trust", "t", "--accept-changed", "-w", str(root)]).code == 0


def check_other_settings(tmp_path: Path, user_config: Path) -> None:
    assert run_mcpctl(["add", "c", "--cwd", str(tmp_path), "--", "srv"]).code == 0
    assert f'cwd = "{tmp_path}"' in user_config.read_text()


ROWS: dict[str, tuple[str, Check]] = {
    "where `add` writes": (
        "its own `config.toml` only: `--scope user` (the default) for every folder, "
        "`--scope local` (`-s local`) for this workspace only", check_scopes),
    "the clients after `add`/`remove`": (
        "the clients in `[clients] sync` are synced at once (`--no-sync` leaves them: then "
        "`mcpctl sync`)", check_clients_synced),
    "a repo's own file": (
        "read, linted, never written: `--scope project` is refused with the fix",
        check_project_scope_refused),
    "a command with options": (
        "after `--` (`add fs -- npx -y pkg`); without it the error shows the line with `--`",
        check_command_after_dashes),
    "`NAME URL` with no `--transport`": ("remote, `http`", check_url_is_remote),
    "a URL without its scheme (`docs.example.com/mcp`, `localhost:8080/mcp`)": (
        "refused, with the `https://` (`http://` for localhost) form; also as `--url`",
        check_schemeless_url_refused),
    "a URL followed by arguments": ("refused with the fix", check_url_with_arguments_refused),
    "secrets": (
        "secret-looking values move to the keyring, config says `${secret:NAME}`; an empty "
        "one (`-e API_KEY=`, `-H \"Authorization: Bearer \"`) is refused", check_secrets),
    "a whole entry as JSON": (
        "`--entry '{…}'` (also `--json '{…}'` and `add-json NAME '{…}'`)", check_json_entry),
    "show one / list / remove": (
        "`show NAME` (also `get NAME`), `list`, `remove NAME` (a mistyped name gets \"did you "
        "mean\")", check_show_get_remove),
    "help, version": ("`--help`, `help [COMMAND]`; `--version`, `version`",
                      check_help_version),
    "trusting a repo's servers": (
        "by fingerprint (`trust`), per repo; a change needs a new approval (`--yes` approves "
        "only new servers)", check_trust),
    "other per-server settings": ("`--cwd`; `timeout` in config.toml", check_other_settings),
}


def readme_rows() -> dict[str, str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Coming from `claude mcp`"):text.index("\n## Commands\n")]
    rows = {}
    for line in section.splitlines():
        if line.startswith("| ") and not line.startswith(("| |", "| ---")):
            cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
            rows[cells[0]] = cells[1]
    return rows


def test_the_readme_table_is_the_one_checked_here() -> None:
    assert readme_rows() == {label: cell for label, (cell, _) in ROWS.items()}


@pytest.mark.parametrize("label", list(ROWS))
def test_each_row_does_what_the_readme_says(
    label: str, tmp_path: Path, user_config: Path, secret_service: SecretService
) -> None:
    ROWS[label][1](tmp_path, user_config)


@pytest.mark.parametrize(("argv", "hint"), [
    (["mcp", "add", "x"], "No such command 'mcp'; mcpctl's commands take no `mcp` before "
                          "them: mcpctl add|list|show|remove …"),
    (["add-from-claude-desktop"], "No such command 'add-from-claude-desktop'; mcpctl import "
                                  "--from claude-desktop"),
    (["reset-project-choices"], "approvals are by fingerprint here: mcpctl revoke "
                                "--whole-workspace"),
    (["login", "x"], "-H \"Authorization: Bearer $TOKEN\""),
    (["serve"], "mcpctl run NAME starts one server on stdio"),
])
def test_a_neighbours_command_points_to_mcpctls(argv: list[str], hint: str) -> None:
    for extra in ([], ["--json"]):
        done = run_mcpctl([*argv, *extra])
        assert done.code == 2
        assert hint in done.err, done.err
        if extra:
            assert hint in json.loads(done.out)["error"]["message"]
    assert run_mcpctl(["nosuch"]).err.endswith("No such command 'nosuch'.\n")
