"""`mcpctl list` and `mcpctl show` end to end: exact text, JSON against its schema, codes."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from mcpctl.config.tier_load import MAX_CONFIG_BYTES
from tests.conftest import Cli, run_mcpctl
from tests.processes import read_until_closed, started
from tests.tier_files import assert_valid, make_workspace, write

MCP_JSON = (
    "{\n"
    '  "mcpServers": {\n'
    '    "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]},\n'
    '    "docs": {"url": "https://docs.example.com/mcp", "type": "sse"},\n'
    '    "fs": {"command": "npx", "args": ["-y", "@scope/fs", "/Users/me/My Documents"]}\n'
    "  }\n"
    "}\n"
)
VSCODE_JSON = (
    "{\n"
    '  "servers": {\n'
    "    // shadowed by .mcp.json\n"
    '    "memory": {"command": "node", "args": ["old.js"], "disabled": false},\n'
    "  },\n"
    "}\n"
)
USER_TOML = '# mine\n[servers.fs]\ncommand = "fs-server"\n'


@pytest.fixture
def small(tmp_path: Path, user_config: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A workspace `ws` and a user config, with the current folder their parent."""
    write(user_config, USER_TOML)
    root = make_workspace(tmp_path, {".mcp.json": MCP_JSON, ".vscode/mcp.json": VSCODE_JSON},
                          name="ws")
    monkeypatch.chdir(tmp_path)
    return root


def test_list_plain_text_exactly(cli: Cli, small: Path) -> None:
    result = cli("list", "--workspace", "ws")
    # mcpctl lets the user tier win; Claude Code would not, once the name is approved.
    assert (result.code, result.err) == (0, "note: ws/.mcp.json:5: 'fs' is shadowed by the "
                                            "user tier here, but: Claude Code would start the "
                                            "repo's definition instead of the user tier's once "
                                            "its name is approved (project scope wins over user "
                                            "scope)\n")
    assert result.out == (
        "NAME    TIER       STATE                                         TRANSPORT  COMMAND"
        "                                     SOURCE                            COST\n"
        "docs    workspace  untrusted                                     sse        "
        "https://docs.example.com/mcp                ws/.mcp.json:4                    -\n"
        "fs      user       user                                          stdio      "
        "fs-server                                   mcpctl-home/config/config.toml:2  -\n"
        "fs      workspace  shadowed by mcpctl-home/config/config.toml:2  stdio      "
        "npx -y @scope/fs '/Users/me/My Documents'   ws/.mcp.json:5\n"
        "memory  workspace  untrusted                                     stdio      "
        "npx -y @modelcontextprotocol/server-memory  ws/.mcp.json:3                    -\n"
        "memory  workspace  shadowed by ws/.mcp.json:3                    stdio      "
        "node old.js                                 ws/.vscode/mcp.json:4\n"
    )


def test_list_json_matches_its_schema_and_says_everything(cli: Cli, small: Path) -> None:
    result = cli("list", "--workspace", "ws", "--json")
    assert result.code == 0
    document = json.loads(result.out)
    assert_valid(document, "list")
    root = small.resolve()
    assert document["workspace"] == str(root)
    assert document["problems"] == []
    rows = [(r["name"], r["tier"], r["state"], Path(r["source"]["path"]).name,
             r["source"]["line"]) for r in document["servers"]]
    assert rows == [("docs", "workspace", "untrusted", ".mcp.json", 4),
                    ("fs", "user", "user", "config.toml", 2),
                    ("fs", "workspace", "shadowed", ".mcp.json", 5),
                    ("memory", "workspace", "untrusted", ".mcp.json", 3),
                    ("memory", "workspace", "shadowed", "mcp.json", 4)]
    shadowed_memory = document["servers"][4]
    assert shadowed_memory == {
        "name": "memory", "tier": "workspace", "state": "shadowed", "note": "",
        "transport": "stdio", "command": "node", "args": ["old.js"], "env": {}, "cwd": None,
        "extra": {"disabled": False},
        "source": {"tier": "workspace", "path": str(root / ".vscode" / "mcp.json"), "line": 4,
                   "format": "vscode"},
        "shadowed_by": {"tier": "workspace", "path": str(root / ".mcp.json"), "line": 3,
                        "format": "claude"},
        "variables": [],
        "trust_workspace": str(root),
        "last_probe": None,
    }
    assert document["servers"][0]["url"] == "https://docs.example.com/mcp"
    assert document["servers"][0]["headers"] == {}


def test_precedence_user_then_every_workspace_file(
    cli: Cli, tmp_path: Path, user_config: Path
) -> None:
    one = '{{"{key}": {{\n\n"x": {{"command": "{cmd}"}}}}}}'
    root = make_workspace(tmp_path, {
        ".cursor/mcp.json": one.format(key="mcpServers", cmd="cursor"),
        ".vscode/mcp.json": one.format(key="servers", cmd="vscode"),
        "mcp.json": one.format(key="mcpServers", cmd="mcp"),
        ".mcp.json": one.format(key="mcpServers", cmd="claude"),
    })
    order = ["claude", "mcp", "vscode", "cursor"]
    rows = json.loads(cli("list", "-w", str(root), "--json").out)["servers"]
    assert [r["command"] for r in rows] == order
    assert [r["state"] for r in rows] == ["untrusted", "shadowed", "shadowed", "shadowed"]
    assert {r["shadowed_by"]["path"] for r in rows[1:]} == {str(root.resolve() / ".mcp.json")}
    write(user_config, '[servers.x]\ncommand = "user"\n')
    rows = json.loads(cli("list", "-w", str(root), "--json").out)["servers"]
    assert [r["command"] for r in rows] == ["user", *order]
    assert [r["state"] for r in rows] == ["user", *["shadowed"] * 4]
    assert {(r["shadowed_by"]["path"], r["shadowed_by"]["line"]) for r in rows[1:]} == {
        (str(user_config), 1)}


def test_tier_filter(cli: Cli, small: Path) -> None:
    user = json.loads(cli("list", "-w", "ws", "--tier", "user", "--json").out)["servers"]
    assert [(r["name"], r["state"]) for r in user] == [("fs", "user")]
    workspace = json.loads(cli("list", "-w", "ws", "--tier", "workspace", "--json").out)
    assert [(r["name"], r["state"]) for r in workspace["servers"]] == [
        ("docs", "untrusted"), ("fs", "untrusted"), ("memory", "untrusted"),
        ("memory", "shadowed")]


def test_workspace_root_discovery(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_workspace(tmp_path, {".mcp.json": '{"mcpServers": {"a": {"command": "x"}}}'})
    deep = root / "src" / "pkg"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    document = json.loads(cli("list", "--json").out)
    assert document["workspace"] == str(root.resolve())
    assert [r["name"] for r in document["servers"]] == ["a"]
    plain = tmp_path / "no-git"
    write(plain / ".mcp.json", '{"mcpServers": {"b": {"command": "x"}}}')
    monkeypatch.chdir(plain)
    document = json.loads(cli("list", "--json").out)
    assert document["workspace"] == str(plain.resolve())
    assert [r["name"] for r in document["servers"]] == ["b"]
    document = json.loads(cli("list", "--workspace", str(root), "--json").out)
    assert [r["name"] for r in document["servers"]] == ["a"]


def test_workspace_option_must_be_a_folder(cli: Cli, tmp_path: Path) -> None:
    file = write(tmp_path / "file", "")
    result = cli("list", "--workspace", str(file))
    assert result.code == 2
    assert "is a file" in result.err


def test_no_servers(cli: Cli, tmp_path: Path) -> None:
    result = cli("list", "-w", str(tmp_path))
    assert (result.code, result.out, result.err) == (0, "no servers\n", "")


def test_bad_files_exit_3_and_the_rest_still_lists(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_workspace(tmp_path, {
        ".mcp.json": '{\n  // no comments here\n  "mcpServers": {}\n}\n',
        "mcp.json": '{"mcpServers": {"ok": {"command": "x"}, "bad": {"args": []}}}',
        ".cursor/mcp.json": "[]",
    }, name="ws")
    (tmp_path / "ws" / ".vscode" / "mcp.json").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    result = cli("list", "-w", "ws")
    assert result.code == 3
    assert result.out == (
        "NAME  TIER       STATE      TRANSPORT  COMMAND  SOURCE         COST\n"
        "ok    workspace  untrusted  stdio      x        ws/mcp.json:1  -\n")
    assert result.err == (
        "ws/.mcp.json:2:3: error: Expecting property name enclosed in double quotes "
        "(comments and trailing commas are not allowed here)\n"
        "ws/mcp.json:1:41: error: server 'bad' has neither 'command' nor 'url'; "
        "it needs exactly one\n"
        "ws/.vscode/mcp.json:1:1: error: is a directory, not a file\n"
        "ws/.cursor/mcp.json:1:1: error: top level must be a JSON object\n")
    document = json.loads(cli("list", "-w", "ws", "--json").out)
    assert_valid(document, "list")
    assert [(Path(p["path"]).name, p["line"], p["column"]) for p in document["problems"]] == [
        (".mcp.json", 2, 3), ("mcp.json", 1, 41), ("mcp.json", 1, 1), ("mcp.json", 1, 1)]


@pytest.mark.parametrize(("setup", "message"), [
    (lambda p: p.write_bytes(b"\xff\xfe{}"), "not UTF-8 text (byte 0)"),
    (lambda p: p.mkdir(), "is a directory, not a file"),
    (lambda p: p.write_text(""), "empty file; expected a JSON object"),
    (lambda p: p.write_text('[{"command": "x"}]'), "top level must be a JSON object"),
    (lambda p: os.truncate(p.write_text("{}") and p, MAX_CONFIG_BYTES + 1),
     f"file is larger than {MAX_CONFIG_BYTES} bytes"),
    (lambda p: os.symlink("/dev/zero", p), "is not a regular file"),
], ids=["non-utf8", "directory", "empty", "array", "huge", "device"])
def test_unusable_files_are_reported_never_a_traceback(
    tmp_path: Path, setup: object, message: str
) -> None:
    root = make_workspace(tmp_path, {"mcp.json": '{"mcpServers": {"ok": {"command": "x"}}}'})
    assert callable(setup)
    setup(root / ".mcp.json")
    result = run_mcpctl(["list", "--workspace", str(root)], timeout=20)
    assert result.code == 3
    assert result.err == f"{root / '.mcp.json'}:1:1: error: {message}\n"
    assert "ok    workspace  untrusted" in result.out


def test_user_config_problems_exit_3(cli: Cli, small: Path, user_config: Path) -> None:
    write(user_config, '[servers.fs]\ncommand = "x"\nargs = [\n')
    result = cli("list", "-w", "ws")
    assert result.code == 3
    assert result.err == "mcpctl-home/config/config.toml:4:1: error: Invalid value\n"
    assert "memory  workspace  untrusted" in result.out


def test_config_option_overrides_the_user_config(cli: Cli, small: Path, tmp_path: Path) -> None:
    other = write(tmp_path / "other.toml", '[servers.zz]\nurl = "https://zz"\n')
    document = json.loads(cli("list", "-w", "ws", "--config", str(other), "--json").out)
    assert document["user_config"] == str(other)
    assert [r["name"] for r in document["servers"] if r["tier"] == "user"] == ["zz"]


def test_unknown_fields_are_shown(cli: Cli, small: Path) -> None:
    result = cli("show", "memory", "-w", "ws")
    assert "  other:     \"disabled\": false\n" in result.out  # the JSON file's own syntax


def test_secret_looking_values_are_masked(cli: Cli, tmp_path: Path) -> None:
    token = "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0"
    root = make_workspace(tmp_path, {".mcp.json": json.dumps({"mcpServers": {
        "gh": {"command": "x", "env": {"GITHUB_TOKEN": token, "MODE": "fast"}},
        "web": {"url": "https://w", "headers": {"Authorization": f"Bearer {token}"}}}})})
    result = cli("list", "-w", str(root), "--json")
    assert token not in result.out
    rows = {r["name"]: r for r in json.loads(result.out)["servers"]}
    assert rows["gh"]["env"] == {"GITHUB_TOKEN": "ghp_***", "MODE": "fast"}
    assert rows["web"]["headers"]["Authorization"].endswith("***")
    shown = cli("show", "gh", "-w", str(root))
    assert token not in shown.out
    assert "  env:       GITHUB_TOKEN=ghp_***\n" in shown.out


def test_show_text_exactly(cli: Cli, small: Path) -> None:
    result = cli("show", "fs", "-w", "ws")
    assert result.code == 0
    fingerprint = json.loads(cli("show", "fs", "-w", "ws", "--json").out)["definitions"]
    assert result.out == (
        "fs  [user] mcpctl-home/config/config.toml:2\n"
        "  state:     user\n"
        "  wins:      the user tier wins over the workspace\n"
        "  transport: stdio\n"
        "  command:   fs-server\n"
        f"  fingerprint: {fingerprint[0]['fingerprint']}\n"
        "    made of: transport, command, args, env pairs, cwd, envFile, url, header pairs\n"
        "\n"
        "fs  [workspace] ws/.mcp.json:5\n"
        "  state:     shadowed by mcpctl-home/config/config.toml:2\n"
        "  clients:   Claude Code would start the repo's definition instead of the user "
        "tier's once its name is approved (project scope wins over user scope)\n"
        "  transport: stdio\n"
        "  command:   npx -y @scope/fs '/Users/me/My Documents'\n"
        # Said always in show (issue 22 item 5): no `sync`, no guard in Claude Code.
        "  guard:     claude-code not guarded (claude-code is not in [clients] sync, so "
        "mcpctl keeps no allowlist for it; to guard it: mcpctl clients enable claude-code "
        "&& mcpctl sync)\n"
        f"  fingerprint: {fingerprint[1]['fingerprint']}\n"
        "    made of: transport, command, args, env pairs, cwd, envFile, url, header pairs, "
        "the whole workspace: 0 files (every file under the root)\n"
        "\n"
    )


@pytest.mark.parametrize(("name", "why"), [
    ("fs", "the user tier wins over the workspace"),
    ("memory", "earlier in the workspace file order (.mcp.json, mcp.json, .vscode/mcp.json, "
               ".cursor/mcp.json)"),
    ("docs", "only definition"),
])
def test_show_json_says_which_wins_and_why(cli: Cli, small: Path, name: str, why: str) -> None:
    result = cli("show", name, "-w", "ws", "--json")
    assert result.code == 0
    document = json.loads(result.out)
    assert_valid(document, "show")
    assert (document["name"], document["why"]) == (name, why)
    states = [d["state"] for d in document["definitions"]]
    assert states[0] in ("user", "untrusted")
    assert states[1:] == ["shadowed"] * (len(states) - 1)


def test_show_variables_and_remote_details(cli: Cli, tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {".vscode/mcp.json": json.dumps({"servers": {"api": {
        "type": "http", "url": "https://${input:host}/mcp",
        "headers": {"X-Team": "${env:TEAM}"}}}})})
    result = cli("show", "api", "-w", str(root))
    assert "  url:       https://${input:host}/mcp\n" in result.out
    assert "  header:    X-Team: ${env:TEAM}\n" in result.out
    assert "  variables: ${input:host} (input), ${env:TEAM} (env)\n" in result.out
    document = json.loads(cli("show", "api", "-w", str(root), "--json").out)
    assert document["definitions"][0]["variables"] == ["${input:host}", "${env:TEAM}"]


def test_show_unknown_name(cli: Cli, small: Path) -> None:
    result = cli("show", "nope", "-w", "ws")
    assert (result.code, result.out) == (2, "")
    assert result.err == "mcpctl: error: no server named 'nope' here (see: mcpctl list)\n"


def test_show_reports_config_problems(cli: Cli, small: Path) -> None:
    write(small / "mcp.json", '{"mcpServers": {"hidden": {"command": "x"}')
    result = cli("show", "memory", "-w", "ws")
    assert result.code == 3
    assert result.err == "ws/mcp.json:1:43: error: Expecting ',' delimiter " \
                         "(comments and trailing commas are not allowed here)\n"
    hidden = cli("show", "hidden", "-w", "ws")
    assert hidden.code == 3
    assert hidden.err == ("ws/mcp.json:1:43: error: Expecting ',' delimiter (comments and "
                          "trailing commas are not allowed here)\n"
                          "mcpctl: error: no server named 'hidden' here, and 1 config file "
                          "problem(s) may hide it (see above)\n")


def test_list_in_a_real_process_without_a_terminal(small: Path, tmp_path: Path) -> None:
    result = run_mcpctl(["list", "--workspace", "ws"], cwd=tmp_path)
    assert result.code == 0
    assert result.out.splitlines()[0].split() == [
        "NAME", "TIER", "STATE", "TRANSPORT", "COMMAND", "SOURCE", "COST"]
    assert "\x1b" not in result.out


def run_in_terminal(args: list[str], cwd: Path, columns: int, env: dict[str, str]) -> str:
    primary, secondary = pty.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    try:
        with started([sys.executable, "-m", "mcpctl", *args], cwd=cwd,
                     stdin=subprocess.DEVNULL, stdout=secondary, stderr=subprocess.DEVNULL,
                     env={**os.environ, **env}) as proc:
            os.close(secondary)
            shown = read_until_closed(primary, within=30)
            assert proc.wait(timeout=30) == 0
    finally:
        os.close(primary)
    return shown.decode().replace("\r\n", "\n")


COLOUR = re.compile(r"\x1b\[[0-9;]*(?:3[0-9]|9[0-7]|4[0-9]|10[0-7])[0-9;]*m")


def test_list_on_a_terminal_is_a_table_truncated_to_its_width(
    small: Path, tmp_path: Path
) -> None:
    long_arg = "/very/long/" + "x" * 150 + "/end"
    write(small / "mcp.json", json.dumps({"mcpServers": {"long": {
        "command": "npx", "args": ["-y", long_arg]}}}))
    out = run_in_terminal(["list", "-w", "ws"], tmp_path, 160, {"NO_COLOR": "1", "TERM": "xterm"})
    assert not COLOUR.search(out)
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    lines = plain.splitlines()
    assert lines[0].split() == ["NAME", "TIER", "STATE", "TRANSPORT", "COMMAND", "SOURCE",
                                "COST"]
    assert len(lines) == 7  # a header and six rows, none wrapped
    [long_line] = [line for line in lines if line.startswith("long")]
    assert "npx -y /very/long/xxx" in long_line
    assert "…" in long_line
    assert "xxx/end" in long_line
    assert long_line.split()[-2:] == ["ws/mcp.json:1", "-"]
    assert all(len(line) <= 160 for line in lines)
