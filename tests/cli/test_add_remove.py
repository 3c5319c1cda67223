"""`mcpctl add` and `mcpctl remove`: the user tier only, exact text, safe under concurrency."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
import tomllib
from contextlib import ExitStack
from functools import partial
from pathlib import Path

import pytest

from tests.conftest import Cli, run_mcpctl
from tests.processes import started, wait_for
from tests.tier_files import make_workspace, write

SHOWN = "mcpctl-home/config/config.toml"  # how the user config is shown from tmp_path


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_add_takes_everything_after_the_double_dash_literally(
    cli: Cli, user_config: Path
) -> None:
    result = cli("add", "fs", "--", "npx", "-y", "@scope/server", "--help", "--json", "x", "$HOME")
    assert (result.code, result.out, result.err) == (0, f"added fs in {SHOWN}\n", "")
    assert user_config.read_text() == (
        "[servers.fs]\n"
        'command = "npx"\n'
        'args = ["-y", "@scope/server", "--help", "--json", "x", "$HOME"]\n'
    )
    assert user_config.stat().st_mode & 0o777 == 0o600


def test_add_with_env_and_cwd(cli: Cli, user_config: Path) -> None:
    result = cli("add", "tasks", "--env", "MODE=fast", "-e", "EMPTY=", "--env", "EQ=a=b",
                 "--cwd", "/srv/tasks", "--", "bash", "run.sh")
    assert result.code == 0
    assert user_config.read_text() == (
        "[servers.tasks]\n"
        'command = "bash"\n'
        'args = ["run.sh"]\n'
        'env = {MODE = "fast", EMPTY = "", EQ = "a=b"}\n'
        'cwd = "/srv/tasks"\n'
    )


def test_add_remote_with_headers_and_transport(cli: Cli, user_config: Path) -> None:
    result = cli("add", "docs", "--url", "https://docs.example.com/mcp", "--header", "X-Team=core",
                 "--header", "Accept=text/event-stream", "--transport", "sse")
    assert result.code == 0
    assert user_config.read_text() == (
        "[servers.docs]\n"
        'type = "sse"\n'
        'url = "https://docs.example.com/mcp"\n'
        'headers = {X-Team = "core", Accept = "text/event-stream"}\n'
    )
    cli("add", "plain", "--url", "https://p/mcp")
    assert tomllib.loads(user_config.read_text())["servers"]["plain"] == {
        "type": "http", "url": "https://p/mcp"}


def test_the_neighbours_habits_make_the_same_remote_server(cli: Cli, user_config: Path) -> None:
    """`claude mcp add` / `gemini mcp add` spellings: a positional URL, --transport before
    the name, -H with 'Name: value' as HTTP writes it."""
    assert cli("add", "web", "https://mcp.example.com/mcp").code == 0
    assert cli("add", "--transport", "http", "web2", "https://mcp.example.com/mcp",
               "-H", "Authorization: Bearer ${env:WEB_TOKEN}", "-H", "X-Trace:a=b").code == 0
    assert cli("add", "-t", "sse", "events", "https://events.example.com/sse").code == 0
    assert cli("add", "plainurl", "--url", "https://mcp.example.com/mcp").code == 0
    servers = tomllib.loads(user_config.read_text())["servers"]
    assert servers == {
        "web": {"type": "http", "url": "https://mcp.example.com/mcp"},
        "web2": {"type": "http", "url": "https://mcp.example.com/mcp",
                 "headers": {"Authorization": "Bearer ${env:WEB_TOKEN}", "X-Trace": "a=b"}},
        "events": {"type": "sse", "url": "https://events.example.com/sse"},
        "plainurl": {"type": "http", "url": "https://mcp.example.com/mcp"},
    }
    # The positional form is exactly the --url form: adding it again changes nothing.
    again = cli("add", "plainurl", "https://mcp.example.com/mcp")
    assert again.out.startswith("unchanged: plainurl")


def test_transport_stdio_is_accepted_for_a_command(cli: Cli, user_config: Path) -> None:
    assert cli("add", "--transport", "stdio", "fs", "--", "npx", "-y", "fs@1.0.0").code == 0
    assert tomllib.loads(user_config.read_text())["servers"]["fs"] == {
        "command": "npx", "args": ["-y", "fs@1.0.0"]}


def test_add_json_entry_in_the_mcp_servers_shape(cli: Cli, user_config: Path) -> None:
    entry = {"serverUrl": "https://j/mcp", "type": "streamable-http", "disabled": True,
             "headers": {"X-A": "1"}}
    result = cli("add", "j", "--json", json.dumps(entry))
    assert result.code == 0
    assert user_config.read_text() == (
        "[servers.j]\n"
        'type = "http"\n'
        'url = "https://j/mcp"\n'
        'headers = {X-A = "1"}\n'
        "disabled = true\n"
    )
    listed = json.loads(cli("list", "--json", "--tier", "user").out)["servers"]
    assert listed[0]["extra"] == {"disabled": True}


def test_command_line_splits_like_a_shell_without_expanding(cli: Cli, user_config: Path) -> None:
    line = ("npx -y @scope/server '/Users/me/My Documents' $HOME \"${env:X}\" "
            "\"a # b\" `id` ~ *.py a\\ b")
    assert cli("add", "cl", "--command-line", line).code == 0
    entry = tomllib.loads(user_config.read_text())["servers"]["cl"]
    assert entry == {"command": "npx", "args": [
        "-y", "@scope/server", "/Users/me/My Documents", "$HOME", "${env:X}", "a # b", "`id`",
        "~", "*.py", "a b"]}


def test_command_line_exact_example_from_the_issue(cli: Cli, user_config: Path) -> None:
    cli("add", "fs", "--command-line", "npx -y @scope/server '/Users/me/My Documents'")
    assert user_config.read_text() == (
        '[servers.fs]\ncommand = "npx"\nargs = ["-y", "@scope/server", "/Users/me/My Documents"]\n')


NAME_RULE = "use letters, digits, '_' and '-' (clients prefix tool names with it)"


@pytest.mark.parametrize(("name", "reason"), [
    ("a.b", "it contains '.'"),
    ("my server", "it contains ' '"),
    ("a/b:c", "it contains '/' ':'"),
    ("ü", "it contains 'ü'"),
    ("", "it is empty"),
    ("x" * 65, "it is 65 characters long (64 at most)"),
])
def test_invalid_names_are_refused_with_the_reason(
    cli: Cli, user_config: Path, name: str, reason: str
) -> None:
    result = cli("add", name, "--", "x")
    assert (result.code, result.out) == (2, "")
    assert result.err == f"mcpctl: error: invalid server name {name!r}: {reason}; {NAME_RULE}\n"
    assert not user_config.exists()


def test_longest_valid_name(cli: Cli, user_config: Path) -> None:
    assert cli("add", "A_b-9" + "x" * 59, "--", "x").code == 0


@pytest.mark.parametrize(("argv", "message"), [
    (["--url", "u", "--", "y"], "give exactly one of: -- COMMAND..., a URL (or --url), "
                                "--command-line, --entry (got -- COMMAND, URL)"),
    ([], "give exactly one of: -- COMMAND..., a URL (or --url), --command-line, --entry"),
    (["--url", "u", "--env", "A=b"], "--env and --cwd are for servers started by command, "
                                     "not a URL"),
    (["--header", "A=b", "--", "y"],
     "--header is for a remote server (a URL), not one started by command"),
    (["--transport", "http", "--", "y"], "--transport http needs a URL, not a command: "
                                          "mcpctl add NAME --transport http https://…"),
    (["--transport", "grpc", "https://h/mcp"],
     "--transport must be one of http, sse, stdio, not 'grpc'"),
    (["--", "https://h/mcp", "--verbose"], "the command 'https://h/mcp' is a URL, which cannot "
     "be started; for a remote server give the URL alone: mcpctl add NAME https://h/mcp"),
    (["--url", "https://a/mcp", "https://b/mcp"], "give the URL once: as an argument or as --url"),
    (["--header", "no-separator", "https://h/mcp"],
     "--header takes 'Name: value' or Name=value, got 'no-separator'"),
    (["-H", "A: 1", "-H", "A=2", "https://h/mcp"], "--header A is given twice"),
    (["--json", '{"command": "y"}', "--cwd", "d"],
     "--entry takes the whole entry; put env, headers and cwd inside it"),
    (["--env", "A", "--", "y"], "--env takes KEY=VALUE, got 'A'"),
    (["--env", "=v", "--", "y"], "--env takes KEY=VALUE, got '=v'"),
    (["--env", "A=1", "--env", "A=2", "--", "y"], "--env A is given twice"),
    (["--command-line", "a 'b"], "--command-line: No closing quotation"),
    (["--json", "[1]"], "--entry must be a JSON object (one server entry)"),
    (["--json", '{"command": "y", "command": "z"}'], "--entry: duplicate key 'command'"),
    (["--json", '{"args": ["y"]}'], "server 'x' has neither 'command' nor 'url'; "
                                    "it needs exactly one"),
    (["--json", '{"command": "y", "meta": {"a": null}}'],
     "--entry: 'meta.a' is null, which config.toml cannot hold; leave it out"),
    (["--url", "u", "--transport", "stdio"],
     "--transport stdio is for a command; a URL is http or sse"),
    (["--output", "yaml", "--", "y"], "--output must be text or json, not 'yaml'"),
])
def test_bad_add_options_are_refused_and_nothing_is_written(
    cli: Cli, user_config: Path, argv: list[str], message: str
) -> None:
    result = cli("add", "x", *argv)
    assert (result.code, result.out, result.err) == (2, "", f"mcpctl: error: {message}\n")
    assert not user_config.exists()


def test_add_again_identically_is_unchanged_and_leaves_the_file_alone(
    cli: Cli, user_config: Path
) -> None:
    write(user_config, '# keep\n[servers.fs]\ncommand = "npx"\nargs = ["-y", "fs"]   # pinned\n')
    before = user_config.read_bytes()
    inode = user_config.stat().st_ino
    result = cli("add", "fs", "--", "npx", "-y", "fs")
    assert (result.code, result.err) == (0, "")
    assert result.out == f"unchanged: fs in {SHOWN} (already defined like this)\n"
    assert user_config.read_bytes() == before
    assert user_config.stat().st_ino == inode
    as_json = cli("add", "fs", "--output", "json", "--", "npx", "-y", "fs")
    assert json.loads(as_json.out) == {"schema_version": 1, "name": "fs", "status": "unchanged",
                                       "path": str(user_config),
                                       "entry": {"command": "npx", "args": ["-y", "fs"]},
                                       "secrets": []}


def test_a_different_definition_needs_replace(cli: Cli, user_config: Path) -> None:
    text = ('# keep\n[servers.fs]  # mine\ncommand = "npx"\nargs = ["-y", "fs@1"]\n\n'
            '# next\n[servers.other]\nurl = "https://o"\n')
    write(user_config, text)
    result = cli("add", "fs", "--", "npx", "-y", "fs@2")
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        f"mcpctl: error: server 'fs' already exists at {user_config}:2 with a different "
        'definition (old: {"command": "npx", "args": ["-y", "fs@1"]}; '
        'new: {"command": "npx", "args": ["-y", "fs@2"]}); use --replace to overwrite it\n')
    assert user_config.read_text() == text
    replaced = cli("add", "fs", "--replace", "--", "npx", "-y", "fs@2")
    assert (replaced.code, replaced.out) == (0, f"replaced fs in {SHOWN}\n")
    assert user_config.read_text() == (
        '# keep\n[servers.fs]\ncommand = "npx"\nargs = ["-y", "fs@2"]\n\n'
        '# next\n[servers.other]\nurl = "https://o"\n')


BEFORE = """\
# My MCP servers.
# Keep this list short.

[servers.github]   # the GitHub server
command = "docker"
args = ["run", "-i", "--rm", "ghcr.io/github/github-mcp-server"]  # pinned image
env = { GITHUB_TOKEN = "${secret:github-pat}" }

# Docs, remote.
[servers.docs]
url = "https://docs.example.com/mcp"
type = "http"

# Trailing note.
"""

AFTER_ADD = """\
# My MCP servers.
# Keep this list short.

[servers.github]   # the GitHub server
command = "docker"
args = ["run", "-i", "--rm", "ghcr.io/github/github-mcp-server"]  # pinned image
env = { GITHUB_TOKEN = "${secret:github-pat}" }

# Docs, remote.
[servers.docs]
url = "https://docs.example.com/mcp"
type = "http"

[servers.memory]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-memory"]

# Trailing note.
"""

AFTER_REMOVE_GITHUB = """\
# My MCP servers.
# Keep this list short.

# Docs, remote.
[servers.docs]
url = "https://docs.example.com/mcp"
type = "http"

[servers.memory]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-memory"]

# Trailing note.
"""

AFTER_REMOVE_DOCS = """\
# My MCP servers.
# Keep this list short.

[servers.memory]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-memory"]

# Trailing note.
"""


def test_exact_text_before_and_after_add_and_remove(cli: Cli, user_config: Path) -> None:
    write(user_config, BEFORE)
    assert cli("add", "memory", "--", "npx", "-y", "@modelcontextprotocol/server-memory").code == 0
    assert user_config.read_text() == AFTER_ADD
    result = cli("remove", "github")
    assert (result.code, result.out, result.err) == (0, f"removed github in {SHOWN}\n", "")
    assert user_config.read_text() == AFTER_REMOVE_GITHUB
    assert cli("remove", "docs").code == 0
    assert user_config.read_text() == AFTER_REMOVE_DOCS
    assert cli("remove", "memory").code == 0
    assert user_config.read_text() == "# My MCP servers.\n# Keep this list short.\n\n" \
                                      "# Trailing note.\n"


def test_remove_the_last_server_of_a_file(cli: Cli, user_config: Path) -> None:
    write(user_config, '# header\n\n[servers.only]\ncommand = "x"\n\n\n')
    assert cli("remove", "only").code == 0
    assert user_config.read_text() == "# header\n"


def test_remove_a_workspace_only_name_is_refused(cli: Cli, tmp_path: Path,
                                                 user_config: Path) -> None:
    make_workspace(tmp_path, {".mcp.json": '{"mcpServers": {\n"memory": {"command": "x"}}}'},
                   name="ws")
    write(user_config, '[servers.mine]\ncommand = "y"\n')
    before = user_config.read_bytes()
    result = cli("remove", "memory", "--workspace", "ws")
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        "mcpctl: error: server 'memory' is defined by the workspace (ws/.mcp.json:2), not the "
        "user tier; the repo owns that file and mcpctl never edits it; to withdraw an approval "
        "use: mcpctl revoke memory\n")
    assert user_config.read_bytes() == before
    assert cli("remove", "memory", "--workspace", "ws", "--missing-ok").code == 2


def test_remove_an_unknown_name(cli: Cli, user_config: Path) -> None:
    result = cli("remove", "ghost")
    assert (result.code, result.out) == (2, "")
    assert result.err == f"mcpctl: error: no server named 'ghost' in the user tier ({SHOWN})\n"
    ok = cli("remove", "ghost", "--missing-ok")
    assert (ok.code, ok.out, ok.err) == (0, f"not present: ghost in {SHOWN}\n", "")
    as_json = cli("remove", "ghost", "--missing-ok", "--output", "json")
    assert json.loads(as_json.out) == {"schema_version": 1, "name": "ghost", "status": "absent",
                                       "path": str(user_config), "secrets": []}


def test_add_and_remove_never_touch_the_workspace(cli: Cli, tmp_path: Path,
                                                  user_config: Path) -> None:
    root = make_workspace(tmp_path, {".mcp.json": '{"mcpServers": {"memory": {"command": "x"}}}'},
                          name="ws")
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    assert cli("add", "memory", "--workspace", "ws", "--", "mine").code == 0
    assert cli("remove", "memory", "--workspace", "ws").code == 0
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before
    help_text = cli("add", "--help").out
    assert "mcpctl writes only the user tier (config.toml); a repo's MCP files belong to the" \
           in " ".join(help_text.split())


@pytest.mark.parametrize("broken", [
    '[servers.a]\ncommand = "x\n',
    '[servers.a]\ncommand = "x"\n[servers.a]\ncommand = "y"\n',
])
def test_a_user_config_that_does_not_parse_is_never_overwritten(
    cli: Cli, user_config: Path, broken: str
) -> None:
    write(user_config, broken)
    before = user_config.read_bytes()
    for argv in (["add", "b", "--", "y"], ["remove", "a"], ["add", "a", "--replace", "--", "z"]):
        result = cli(*argv)
        assert result.code == 3, argv
        assert result.err.startswith(f"mcpctl: error: {user_config}:")
        assert result.err.endswith("; the file was not changed\n")
        assert user_config.read_bytes() == before


def test_exact_message_for_an_unparseable_config(cli: Cli, user_config: Path) -> None:
    write(user_config, '[servers.a]\ncommand = "x\n')
    result = cli("add", "b", "--", "y")
    assert result.err == (f"mcpctl: error: {user_config}:2:13: Illegal character '\\n'; "
                          "the file was not changed\n")


def test_add_output_json(cli: Cli, user_config: Path) -> None:
    result = cli("add", "a", "--output", "json", "--", "x", "y")
    assert result.code == 0
    assert json.loads(result.out) == {"schema_version": 1, "name": "a", "status": "added",
                                      "path": str(user_config),
                                      "entry": {"command": "x", "args": ["y"]}, "secrets": []}


def test_thirty_concurrent_adds_all_land(user_config: Path) -> None:
    write(user_config, "# shared by many shells\n")
    with ExitStack() as stack:
        procs = [stack.enter_context(started(
            [sys.executable, "-m", "mcpctl", "add", f"s{i:02d}", "--", "cmd", str(i)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)) for i in range(30)]
        outcomes = [(proc.wait(timeout=60), *proc.communicate(timeout=10)) for proc in procs]
    assert [code for code, _, _ in outcomes] == [0] * 30, outcomes
    text = user_config.read_text()
    servers = tomllib.loads(text)["servers"]
    assert servers == {f"s{i:02d}": {"command": "cmd", "args": [str(i)]} for i in range(30)}
    assert text.startswith("# shared by many shells\n")
    assert sorted(p.name for p in user_config.parent.iterdir()) == [
        "config.toml", "config.toml.lock"]


WRITER = """
import sys
from pathlib import Path
from mcpctl.files.atomic import atomic_write_text
target = Path(sys.argv[1])
payloads = [sys.argv[2] * 3_000_000, sys.argv[3] * 3_000_000]
i = 0
while True:
    atomic_write_text(target, payloads[i % 2])
    i += 1
"""


def replaced(path: Path, inode: int) -> bool:
    return path.stat().st_ino != inode


def test_a_write_killed_midway_leaves_the_old_or_the_new_file(tmp_path: Path) -> None:
    target = tmp_path / "state" / "file.txt"
    old, new = "A", "B"
    write(target, old * 3_000_000)
    allowed = {old * 3_000_000, new * 3_000_000}
    rng = random.Random(1234)
    seen = set()
    killed_mid_write = 0
    for _ in range(12):
        # An assertion failing mid-loop must not orphan the writer: it loops forever.
        first = target.stat().st_ino
        with started([sys.executable, "-c", WRITER, str(target), new, old]) as writer:
            # A loaded machine may take seconds to start the writer: the random window
            # opens once its first write has landed (os.replace makes a new inode).
            wait_for(partial(replaced, target, first), within=30,
                     what="the writer's first write")
            deadline = time.monotonic() + 0.05 + rng.random() * 0.25
            while time.monotonic() < deadline:  # read while the writer writes
                content = target.read_text()
                assert content in allowed, f"torn file of {len(content)} characters"
                seen.add(content[0])
            os.kill(writer.pid, signal.SIGKILL)
            writer.wait(timeout=10)
        content = target.read_text()
        assert content in allowed, f"torn file of {len(content)} characters after SIGKILL"
        # A kill mid-write leaves the writer's temp file; the target itself is always whole.
        leftovers = list(target.parent.glob(".file.txt.*.tmp"))
        killed_mid_write += bool(leftovers)
        for leftover in leftovers:
            leftover.unlink()
    assert seen == {"A", "B"}
    assert killed_mid_write > 0  # the kills did land inside writes


def test_add_as_a_real_process_with_no_terminal(user_config: Path) -> None:
    result = run_mcpctl(["add", "p", "--", "npx", "-y", "pkg"])
    assert (result.code, result.err) == (0, "")
    assert user_config.read_text() == '[servers.p]\ncommand = "npx"\nargs = ["-y", "pkg"]\n'
