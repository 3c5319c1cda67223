"""Each client's own tool filter, as `sync` writes it, checked with the real clients
(pinned in real_clients.py) and the real everything server.

Codex: its app-server's `mcpServerStatus/list` reports the tools it will offer; it is
asked twice, once through the exported `mcpctl run` entry and once with the same filter
keys on an entry that starts the server directly, so the reduction is shown to be
Codex's own and not only `run`'s. Gemini CLI: `gemini mcp list` connects the exported
entry, and Gemini's own filter function (`isEnabled`, imported from the installed CLI's
bundle) applied to the server's full tool list keeps exactly the tools that are on.
Claude Code: its user settings hold one `permissions.deny` rule per tool that is off,
and `claude mcp list` still connects with them in place.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.clients import guard_key
from tests.clients.real_clients import (
    BIN,
    claude_statuses,
    client,
    client_env,
    gemini_statuses,
    run_client,
)
from tests.conftest import REPO, run_mcpctl
from tests.protocol.conftest import require_npm_server

pytestmark = pytest.mark.timeout(600)

CONSOLE_SCRIPT = Path(sys.executable).with_name("mcpctl")
GEMINI_BUNDLE = REPO / "tests" / ".clients" / "node_modules" / "@google" / "gemini-cli" / "bundle"
GEMINI_FILTER = "function isEnabled(funcDecl, mcpServerName, mcpServerConfig)"
GEMINI_HARNESS = """
const [chunk, settings, server, names] = process.argv.slice(1);
const fs = await import("node:fs");
const { isEnabled } = await import(chunk);
const config = JSON.parse(fs.readFileSync(settings, "utf8")).mcpServers[server];
const kept = JSON.parse(names).filter((name) => isEnabled({ name }, server, config));
process.stdout.write(JSON.stringify(kept));
process.exit(0);
"""


def sync() -> None:
    done = subprocess.run([str(CONSOLE_SCRIPT), "sync"], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def policy(project: Path, *args: str) -> tuple[list[str], list[str]]:
    """Set the policy with `mcpctl tools`; (every tool, the tools on)."""
    done = run_mcpctl(["tools", "everything", *args, "--json"], cwd=project, timeout=120)
    assert done.code == 0, done.err
    tools = json.loads(done.out)["tools"]
    return [t["name"] for t in tools], [t["name"] for t in tools if t["on"]]


@pytest.fixture
def project(user_config: Path, tmp_path: Path) -> Path:
    entry = require_npm_server("server-everything")
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(f'[servers.everything]\ncommand = "node"\nargs = ["{entry}"]\n'
                           'timeout = 60\n\n[clients]\nsync = ["claude-code", "gemini", '
                           '"codex"]\n')
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def codex_tools(home: Path, cwd: Path) -> dict[str, list[str]]:
    """What Codex's app-server reports per MCP server: the names of its tools."""
    lines = [{"method": "initialize", "id": 0, "params": {"clientInfo": {"name": "t",
                                                                         "version": "1"}}},
             {"method": "initialized"}, {"method": "mcpServerStatus/list", "id": 1,
                                         "params": {}}]
    process = subprocess.Popen([str(client("codex")), "app-server"], cwd=cwd,
                               env=client_env(home), stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdin is not None
    assert process.stdout is not None
    try:
        process.stdin.write("".join(json.dumps(line) + "\n" for line in lines))
        process.stdin.flush()
        for _ in range(1000):  # a bounded read: the answer comes after a few notices
            answer: dict[str, Any] = json.loads(process.stdout.readline() or "null") or {}
            if answer.get("id") == 1:
                return {s["name"]: sorted(s["tools"]) for s in answer["result"]["data"]}
            if not answer:
                break
        raise AssertionError("codex app-server gave no MCP status")
    finally:
        process.stdin.close()
        process.wait(timeout=60)
        process.stdout.close()


def write_direct(config: Path, **keys: Any) -> None:
    """An entry of Codex's own that starts the everything server without mcpctl."""
    direct = {"command": "node", "args": [str(require_npm_server("server-everything"))],
              **keys}
    config.write_text("[mcp_servers.direct]\n" + "".join(
        f"{key} = {json.dumps(value)}\n" for key, value in direct.items()))


def test_codex_reports_only_the_tools_that_are_on(project: Path, isolated_home: Path) -> None:
    config = isolated_home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    # What Codex sees of the server unfiltered: it declares other capabilities than
    # mcpctl's probe (elicitation, no roots), and the server lists tools by them.
    write_direct(config)
    seen = set(codex_tools(isolated_home, project)["direct"])
    config.unlink()
    names, on = policy(project, "--disable", "echo,toggle-*")
    off = set(names) - set(on)
    sync()
    entry = tomllib.loads(config.read_text())["mcp_servers"]["everything"]
    assert entry["disabled_tools"] == [n for n in names if n in off]
    assert "enabled_tools" not in entry
    assert codex_tools(isolated_home, project) == {"everything": sorted(seen - off)}
    # An allow-list now: --only writes enabled_tools and takes disabled_tools out; what
    # the server lists only to Codex is new, so off.
    names, on = policy(project, "--only", "get-*")
    sync()
    entry = tomllib.loads(config.read_text())["mcp_servers"]["everything"]
    assert (entry["enabled_tools"], "disabled_tools" in entry) == (on, False)
    assert codex_tools(isolated_home, project) == {"everything": sorted(seen & set(on))}
    # Codex's own filter: the same key on an entry that starts the server directly.
    write_direct(config, enabled_tools=on)
    assert codex_tools(isolated_home, project) == {"direct": sorted(seen & set(on))}
    assert len(seen & set(on)) < len(seen)


def gemini_keeps(settings: Path, names: list[str]) -> list[str]:
    chunk = next(path for path in sorted(GEMINI_BUNDLE.glob("*.js"))
                 if GEMINI_FILTER in path.read_text(errors="replace"))
    done = subprocess.run(["node", "--input-type=module", "-e", GEMINI_HARNESS, str(chunk),
                           str(settings), "everything", json.dumps(names)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    kept: list[str] = json.loads(done.stdout)
    return kept


def test_gemini_connects_and_its_own_filter_keeps_only_the_tools_that_are_on(
        project: Path, isolated_home: Path) -> None:
    client("gemini")
    settings = isolated_home / ".gemini" / "settings.json"
    for args, key in ((("--disable", "echo,toggle-*"), "excludeTools"),
                      (("--only", "get-*"), "includeTools")):
        names, on = policy(project, *args)
        sync()
        entry = json.loads(settings.read_text())["mcpServers"]["everything"]
        assert set(entry) == {"command", "args", "timeout", key}
        assert gemini_keeps(settings, names) == on
        assert len(on) < len(names)
    listed = run_client("gemini", ["mcp", "list"], home=isolated_home, cwd=project,
                        env={"GEMINI_CLI_TRUST_WORKSPACE": "true"})
    assert gemini_statuses(listed.stdout + listed.stderr) == {"everything": "connected"}


def test_claude_codes_settings_deny_the_tools_that_are_off(project: Path,
                                                           isolated_home: Path) -> None:
    client("claude")
    settings = isolated_home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('{\n  "permissions": {\n    "deny": ["Bash(rm:*)"]\n  },\n'
                        '  "theme": "dark"\n}\n')
    names, on = policy(project, "--disable", "echo,toggle-*")
    sync()
    off = [f"mcp__everything__{n}" for n in names if n not in on]
    document = json.loads(settings.read_text())
    # The same file holds the guard's allowlist (issue 22): what sync exported.
    allowed = document.pop("allowedMcpServers")
    assert [item["serverCommand"][1:] for item in allowed] == [
        ["run", "--guard", "--key", guard_key()], ["run", "everything", "--key", guard_key()]]
    assert document == {"permissions": {"deny": ["Bash(rm:*)", *off]}, "theme": "dark"}
    # Switching one on again takes its rule out; the user's own rule stays.
    policy(project, "--enable", "echo")
    sync()
    assert json.loads(settings.read_text())["permissions"]["deny"] == [
        "Bash(rm:*)", *(rule for rule in off if rule != "mcp__everything__echo")]
    listed = run_client("claude", ["mcp", "list"], home=isolated_home, cwd=project)
    assert claude_statuses(listed.stdout) == {"everything": "✔ Connected"}, listed.stdout
    assert BIN.exists()
