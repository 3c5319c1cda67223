"""`mcpctl check` end to end, in process: exact output, exit codes, settings, discovery."""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped, unused-ignore]

from mcpctl.cli.check_cmd import build_parser, plain_files
from mcpctl.lint import load_schema
from tests.conftest import Cli
from tests.lint.helpers import CORPUS

TOKEN = "ghp_0123456789abcdefghijABCDEFGHIJexampl"
SEVERAL = "bad/065-several-findings/.mcp.json"
PIN_FIX = ("pin an exact version: npx pkg@1.2.3, uvx pkg==1.2.3, pipx run pkg==1.2.3, "
           "git+https://...@<commit>")


@pytest.fixture
def in_corpus(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(CORPUS)
    return CORPUS


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    monkeypatch.chdir(root)
    return root


def write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_text_output_is_exact(cli: Cli, in_corpus: Path) -> None:
    result = cli("check", SEVERAL)
    assert result.out == (
        f"{SEVERAL}:5:22: MCP020 warning: mcpServers.github.args[1]: npx runs "
        f'"@modelcontextprotocol/server-github" without a version (fix: {PIN_FIX})\n'
        f"{SEVERAL}:7:9: MCP010 error: mcpServers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN: "
        'literal GitHub token "ghp_***" (fix: revoke the credential, then reference it: '
        "${env:NAME} or ${NAME} for the client, ${secret:NAME} for mcpctl run)\n"
        f"{SEVERAL}:8:9: MCP032 error: mcpServers.github.env.NODE_OPTIONS: NODE_OPTIONS "
        "makes the runtime load extra code at start (fix: remove the variable; configure "
        "the server through its own options)\n"
        f'{SEVERAL}:11:5: MCP006 error: mcpServers["remote docs"]: Claude Code does not load '
        "a 'url' entry without 'type': 'http' or 'sse' (fix: write the entry the way the "
        "named client expects (see the message))\n"
        f'{SEVERAL}:11:5: MCP040 warning: mcpServers["remote docs"]: server name '
        '"remote docs" has characters outside A-Z a-z 0-9 _ - (fix: rename the server '
        "using letters, digits, '_' and '-' (at most 64))\n"
        f'{SEVERAL}:11:21: MCP042 error: mcpServers["remote docs"].url: plain http:// to '
        '"docs.example.com" (fix: use https:// (plain http is fine for this machine, private '
        "addresses and single-label hosts such as a compose service))\n"
    )
    assert result.err == "mcpctl check: 1 file, 4 error(s), 2 warning(s), 0 info\n"
    assert result.code == 1


def test_github_annotations_are_exact(cli: Cli, in_corpus: Path) -> None:
    result = cli("check", "--output", "github", "bad/039-docker-tag-without-digest/.mcp.json")
    assert result.out == (
        "::notice file=bad/039-docker-tag-without-digest/.mcp.json,line=5,col=37,"
        "title=MCP022 image-without-digest::mcpServers.github.args[3]: docker image "
        '"ghcr.io/github/github-mcp-server:0.20.1" is pinned by tag, not by digest '
        "(fix: add the digest: image:1.2.3@sha256:...)\n"
    )
    assert result.err == ""
    assert result.code == 0, "an info finding does not fail the check"


def test_json_output_matches_its_schema(cli: Cli, in_corpus: Path) -> None:
    result = cli("check", "--output", "json", SEVERAL, "good/09-empty-servers/.mcp.json")
    document = json.loads(result.out)
    Draft202012Validator(load_schema("check-report")).validate(document)
    assert document["files"] == [SEVERAL, "good/09-empty-servers/.mcp.json"]
    assert document["counts"] == {"error": 4, "warning": 2, "info": 0}
    assert document["unreadable"] == []
    assert document["findings"][1] == {
        "path": SEVERAL, "line": 7, "column": 9, "code": "MCP010", "name": "literal-secret",
        "severity": "error",
        "message": 'mcpServers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN: literal GitHub token '
                   '"ghp_***"',
        "fix": "revoke the credential, then reference it: ${env:NAME} or ${NAME} for the "
               "client, ${secret:NAME} for mcpctl run",
    }
    assert result.code == 1


@pytest.mark.parametrize("output", ["text", "json", "github"])
def test_no_output_holds_the_token(cli: Cli, in_corpus: Path, output: str) -> None:
    files = ["bad/021-github-token-in-env/.mcp.json", "bad/063-token-in-claude-settings-env/"
             ".claude/settings.json", "bad/065-several-findings/.mcp.json"]
    result = cli("check", "--output", output, *files)
    assert result.code == 1
    assert "ghp_***" in result.out
    assert TOKEN[:5] not in result.out + result.err


def test_clean_files_pass_silently(cli: Cli, in_corpus: Path) -> None:
    result = cli("check", "good/01-claude-pinned/.mcp.json", "good/02-vscode-jsonc-inputs/"
                 ".vscode/mcp.json")
    assert (result.code, result.out) == (0, "")
    assert result.err == "mcpctl check: 2 files, 0 error(s), 0 warning(s), 0 info\n"


def test_warnings_alone_pass(cli: Cli, in_corpus: Path) -> None:
    result = cli("check", "bad/032-npx-without-version/.mcp.json")
    assert result.code == 0
    assert result.out.count("MCP020 warning") == 1


def test_select_and_ignore(cli: Cli, in_corpus: Path) -> None:
    only_secrets = cli("check", "--select", "MCP01", SEVERAL)
    assert [line.split()[1] for line in only_secrets.out.splitlines()] == ["MCP010"]
    assert only_secrets.code == 1
    ignored = cli("check", "--ignore", "mcp010,MCP042", "--ignore", "MCP04", SEVERAL)
    ignored = cli("check", "--ignore", "mcp010,MCP042,MCP032,MCP006", "--ignore", "MCP04",
                  SEVERAL)
    assert [line.split()[1] for line in ignored.out.splitlines()] == ["MCP020"]
    assert ignored.code == 0


@pytest.mark.parametrize(("args", "message"), [
    (["--select", "MCP9"], "mcpctl: error: --select: 'MCP9' is not a rule code or prefix "
                           "(see mcpctl check --list-rules)\n"),
    (["--format-of", "yaml", "x"], "mcpctl: error: check: argument --format-of: invalid "
                                   "choice: 'yaml' (choose from 'claude', 'mcp.json', "
                                   "'vscode', 'cursor', 'kiro', 'roo', 'gemini', 'codex', "
                                   "'claude-desktop', 'claude-settings')\n"),
    (["config.json"], "mcpctl: error: cannot tell the format of config.json from its name; "
                      "pass --format-of (claude, mcp.json, vscode, cursor, kiro, roo, gemini, "
                      "codex, claude-desktop, claude-settings)\n"),
    (["--workspace", "nowhere"], "mcpctl: error: --workspace: nowhere is not a directory\n"),
])
def test_usage_errors_exit_2(cli: Cli, repo: Path, args: list[str], message: str) -> None:
    result = cli("check", *args)
    assert result.code == 2
    assert result.err.endswith(message)
    assert "Traceback" not in result.err


def test_unreadable_files_exit_3_after_the_others_are_checked(cli: Cli, repo: Path) -> None:
    write(repo, ".mcp.json", '{"mcpServers": {"a": {"command": "npx", "args": ["x"]}}}')
    (repo / ".vscode" / "mcp.json").mkdir(parents=True)
    (repo / ".cursor").mkdir()
    os.mkfifo(repo / ".cursor" / "mcp.json")
    result = cli("check", ".mcp.json", "missing/.mcp.json", ".vscode/mcp.json",
                 ".cursor/mcp.json")
    assert result.out.startswith(".mcp.json:1:50: MCP020 warning:")
    assert result.err.endswith(
        "mcpctl: error: cannot read missing/.mcp.json: No such file or directory; "
        ".vscode/mcp.json: is a directory, not a file; .cursor/mcp.json: is not a regular "
        "file\n")
    assert result.code == 3


def test_a_fifo_swapped_in_after_a_look_at_the_path_does_not_block(
    cli: Cli, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file is replaced by a FIFO right after the first look at its path (a stat or
    an open). A reader that looks, then opens by name, would open the FIFO and wait for a
    writer: here a writer comes after 1 s and sends nothing, so such a reader reports an
    empty file. One that asks the open file what it is reads the real file."""
    path = write(repo, ".mcp.json", '{"mcpServers": {"a": {"command": "npx", "args": ["x"]}}}')
    real_stat, real_open = os.stat, os.open
    swapped = threading.Event()

    def swap_after(real: Callable[..., Any]) -> Callable[..., Any]:
        def call(target: Any, *args: Any, **kwargs: Any) -> Any:
            answer = real(target, *args, **kwargs)
            if os.fspath(target) in {".mcp.json", str(path)} and not swapped.is_set():
                swapped.set()
                os.replace(_fifo_beside(path), path)
            return answer
        return call

    monkeypatch.setattr(os, "stat", swap_after(real_stat))
    monkeypatch.setattr(os, "open", swap_after(real_open))
    writer = threading.Thread(target=_write_nothing_later, args=(path, swapped), daemon=True)
    writer.start()
    result = cli("check", ".mcp.json")
    assert swapped.is_set()
    assert result.out.startswith(".mcp.json:1:50: MCP020 warning:")
    assert result.code == 0
    writer.join(timeout=10)


def _fifo_beside(path: Path) -> Path:
    fifo = path.with_name("swap.fifo")
    os.mkfifo(fifo)
    return fifo


def _write_nothing_later(path: Path, swapped: threading.Event) -> None:
    swapped.wait(timeout=10)
    time.sleep(1)
    with contextlib.suppress(OSError):  # non-blocking: fails at once with no reader
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))


def test_format_of_reads_any_name_as_that_format(cli: Cli, repo: Path) -> None:
    write(repo, "team.jsonc",
          '{\n  // VS Code style\n  "servers": {"a": {"url": "http://x.example"},},\n}\n')
    result = cli("check", "--format-of", "vscode", "team.jsonc")
    assert result.out.startswith(
        'team.jsonc:3:21: MCP042 error: servers.a.url: plain http:// to "x.example"')
    as_claude = cli("check", "--format-of", "claude", "team.jsonc")
    assert as_claude.out.startswith("team.jsonc:2:3: MCP001 error: Expecting property name")


def test_without_files_the_workspace_is_checked(
    cli: Cli, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(repo, ".mcp.json", '{"mcpServers": {}}')
    write(repo, ".vscode/mcp.json", '{"servers": {"a": {"command": "uvx", "args": ["t"]}}}')
    write(repo, ".claude/settings.json", '{"enableAllProjectMcpServers": true}')
    write(repo, "sub/.mcp.json", '{"mcpServers": {"b": {"url": "http://x.example"}}}')
    result = cli("check", "--output", "json")
    assert json.loads(result.out)["files"] == [".mcp.json", ".vscode/mcp.json",
                                               ".claude/settings.json"]
    assert result.code == 1
    monkeypatch.chdir(repo / "sub")
    sub_only = cli("check", "--workspace", ".", "--output", "json")
    assert json.loads(sub_only.out)["files"] == [".mcp.json"]
    (repo / "sub" / "deeper").mkdir()
    monkeypatch.chdir(repo / "sub" / "deeper")
    nested = cli("check")
    assert [line.split(": ")[0] for line in nested.out.splitlines()] == [
        "../../.claude/settings.json:1:2", "../../.vscode/mcp.json:1:47"]


def test_no_config_files_is_fine(cli: Cli, repo: Path) -> None:
    result = cli("check")
    assert (result.code, result.out) == (0, "")
    assert result.err == "mcpctl check: no MCP config files to check\n"


@pytest.mark.parametrize(("file", "text"), [
    (".mcpctl.toml", '[check]\nignore = ["MCP02"]\nselect = ["MCP0"]\n'),
    ("pyproject.toml",
     '[project]\nname = "x"\n\n[tool.mcpctl.check]\nignore = ["MCP020", "MCP021"]\n'),
])
def test_repo_settings(cli: Cli, repo: Path, file: str, text: str) -> None:
    write(repo, ".mcp.json", '{"mcpServers": {"a": {"command": "npx", "args": ["x"]}}}')
    assert cli("check").out.count("MCP020") == 1
    write(repo, file, text)
    assert cli("check").out == ""
    assert cli("check", "--select", "MCP020").out.count("MCP020") == 1, "--select replaces"


@pytest.mark.parametrize(("text", "message"), [
    ("[check]\nignore = 'MCP020'\n", "ignore' must be a list of rule codes"),
    ("[check]\nselct = ['MCP020']\n", "unknown key 'selct' (known: ignore, select)"),
    ("[check]\nignore = ['XYZ']\n", "'XYZ' is not a rule code or prefix"),
    ("[check\n",
     "invalid TOML: Expected ']' at the end of a table declaration (at line 1, column 7)"),
    ("[check]\nignore = " + "[" * 1_000 + "]" * 1_000 + "\n", "invalid TOML: nested too deeply"),
    # tomllib would take gigabytes for this valid key (its memory grows with the square).
    ("[check]\n" + "a." * 20_000 + "a = 1\n",
     "invalid TOML: a key of more than 128 dotted parts (at line 2)"),
])
def test_bad_settings_exit_3(cli: Cli, repo: Path, text: str, message: str) -> None:
    write(repo, ".mcpctl.toml", text)
    result = cli("check")
    assert result.code == 3
    assert result.err.startswith("mcpctl: error: ")
    assert message in result.err


def test_list_rules(cli: Cli) -> None:
    result = cli("check", "--list-rules")
    assert result.code == 0
    assert result.out.splitlines()[:2] == [
        "MCP001  error    parse-error: A file the client cannot parse silently disables every "
        "server in it.",
        "                 fix: fix the syntax at the position shown (comments and trailing "
        "commas only in JSONC formats such as .vscode/mcp.json)",
    ]
    listed = json.loads(cli("check", "--list-rules", "--output", "json").out)
    Draft202012Validator(load_schema("check-report")).validate(listed)
    assert [rule["code"] for rule in listed["rules"]] == [
        "MCP001", "MCP002", "MCP003", "MCP004", "MCP005", "MCP006", "MCP007", "MCP008",
        "MCP009", "MCP010", "MCP011", "MCP012", "MCP013", "MCP020", "MCP021", "MCP022",
        "MCP024", "MCP030", "MCP031", "MCP032", "MCP033", "MCP034", "MCP040", "MCP041",
        "MCP042", "MCP043", "MCP044", "MCP045", "MCP046", "MCP050", "MCP051", "MCP052",
        "MCP060", "MCP065"]


def test_help_has_an_example(cli: Cli) -> None:
    result = cli("check", "--help")
    assert result.code == 0
    assert result.out.startswith("usage: mcpctl check [-h] [--format-of FORMAT]")
    assert "  mcpctl check .mcp.json .vscode/mcp.json       these files" in result.out
    assert re.search(r"\n +check +Lint MCP config files without starting", cli("--help").out)


@pytest.mark.parametrize("argv", [[], [".mcp.json"], ["a.json", "dir/b.jsonc", "with space.json"]])
def test_the_hooks_line_reads_as_argparse_reads_it(argv: list[str]) -> None:
    plain = plain_files(argv)
    assert plain is not None
    assert vars(plain) == vars(build_parser().parse_args(argv))


@pytest.mark.parametrize("argv", [["--json"], ["a.json", "-w", "."], ["-"], [""], ["--", "x"],
                                  ["a.json", "--list-rules"], ["-h"]])
def test_lines_with_options_go_to_argparse(argv: list[str]) -> None:
    assert plain_files(argv) is None
