"""Issue 13: severities pinned without the rule table, the rules page, the hook's paths,
--fail-on, and the new formats as the workspace tier reads them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mcpctl.config.formats import hook_pattern
from mcpctl.config.workspace import load_workspace
from mcpctl.lint import rules_doc
from mcpctl.lint.rules import RULES
from tests.conftest import Cli
from tests.lint.helpers import CORPUS, corpus_files, expected_findings

REPO = Path(__file__).resolve().parents[2]

# Written out by hand on purpose: changing a rule's severity must fail this test.
SEVERITIES = {
    "MCP001": "error", "MCP002": "error", "MCP003": "error", "MCP004": "error",
    "MCP005": "info", "MCP006": "error", "MCP007": "error", "MCP008": "error",
    "MCP010": "error", "MCP011": "warning", "MCP012": "info", "MCP013": "warning",
    "MCP020": "warning",
    "MCP021": "warning", "MCP022": "info", "MCP030": "warning", "MCP031": "error",
    "MCP032": "error", "MCP033": "error", "MCP034": "warning", "MCP040": "warning",
    "MCP041": "warning", "MCP042": "error", "MCP043": "warning", "MCP050": "error",
    "MCP051": "warning", "MCP052": "info", "MCP060": "error",
    # issue 27
    "MCP009": "info", "MCP024": "warning", "MCP044": "error", "MCP045": "error",
    "MCP046": "warning", "MCP065": "warning",
}


def test_every_rule_reports_the_severity_written_here(cli: Cli, monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    """What `check` prints for the fixtures, not what the table says, is compared."""
    monkeypatch.chdir(CORPUS)
    result = cli("check", *sorted(expected_findings()))
    reported = dict(re.findall(r": (MCP\d{3}) (error|warning|info): ", result.out))
    assert reported == SEVERITIES


def test_the_rules_page_is_generated_from_the_table() -> None:
    page = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    assert page == rules_doc.render(RULES.values()), \
        "regenerate: uv run python -m mcpctl.lint.rules_doc > docs/rules.md"
    assert all(rule.bad and rule.good for rule in RULES.values())


def test_the_rules_page_module_prints_the_page() -> None:
    done = subprocess.run([sys.executable, "-m", "mcpctl.lint.rules_doc"], capture_output=True,
                          text=True, check=True, timeout=60)
    assert done.stdout == rules_doc.render(RULES.values())


def test_the_hook_matches_exactly_the_known_paths() -> None:
    hooks = (REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    written = re.search(r"^  files: (.*)$", hooks, re.MULTILINE)
    assert written is not None
    pattern = written[1]  # a plain YAML scalar: the text is the value
    assert pattern == hook_pattern((".claude/settings.json", ".claude/settings.local.json"))
    claimed = [".mcp.json", "mcp.json", ".vscode/mcp.json", ".cursor/mcp.json",
               ".kiro/settings/mcp.json", ".roo/mcp.json", ".gemini/settings.json",
               ".codex/config.toml", ".claude/settings.json", ".claude/settings.local.json",
               "claude_desktop_config.json", "docs/claude_desktop_config.json"]
    left_alone = ["examples/mcp.json", "pkg/.mcp.json", "sub/.vscode/mcp.json", "mcp.jsonc",
                  ".kiro/mcp.json", "x.mcp.json", "a/.codex/config.toml", "my_claude_desktop_"
                  "config.json", ".gemini/settings.json.bak"]
    assert [p for p in claimed if not re.search(pattern, p)] == []
    assert [p for p in left_alone if re.search(pattern, p)] == []


def test_fail_on_sets_the_threshold(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CORPUS)
    warning_only = "bad/032-npx-without-version/.mcp.json"
    info_only = "bad/039-docker-tag-without-digest/.mcp.json"
    assert [cli("check", warning_only, *option).code for option in
            ([], ["--fail-on", "error"], ["--fail-on", "warning"], ["--fail-on", "info"])] == [
        0, 0, 1, 1]
    assert [cli("check", info_only, "--fail-on", level).code
            for level in ("error", "warning", "info")] == [0, 0, 1]
    bad = cli("check", "--fail-on", "never", warning_only)
    assert bad.code == 2
    assert "argument --fail-on: invalid choice: 'never'" in bad.err


def test_the_workspace_tier_reads_kiro_roo_gemini_and_codex(tmp_path: Path) -> None:
    files = {
        ".kiro/settings/mcp.json": '{"mcpServers": {"kiro-srv": {"command": "a", '
                                   '"timeout": 100000}}}',
        ".roo/mcp.json": '{"mcpServers": {"roo-srv": {"type": "streamable-http", '
                         '"url": "https://r.example/mcp"}}}',
        ".gemini/settings.json": '{"theme": "x", "mcpServers": {"gemini-srv": '
                                 '{"httpUrl": "https://g.example/mcp", "timeout": 30000}}}',
        ".codex/config.toml": 'model = "m"\n\n[mcp_servers.codex-srv]\ncommand = "c"\n'
                              'args = ["--x"]\n',
        "claude_desktop_config.json": '{"mcpServers": {"desktop-srv": {"command": "d"}}}',
        "mcp.json": '{"name": "a tool manifest", "tools": []}',
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    load = load_workspace(tmp_path)
    assert load.problems == []
    found = {d.spec.name: (d.source.format_id, d.source.line, d.spec.timeout)
             for d in load.definitions}
    assert found == {
        "kiro-srv": ("kiro", 1, 100.0), "roo-srv": ("roo", 1, None),
        "gemini-srv": ("gemini", 1, 30.0), "codex-srv": ("codex", 3, None),
    }, "Claude Desktop's file is only linted; a tool manifest holds no servers"


def test_every_fixture_class_is_in_the_corpus() -> None:
    assert len(corpus_files("bad")) >= 84
    assert len(corpus_files("good")) >= 18


def test_list_and_trust_see_codex_and_gemini_servers(cli: Cli, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".codex").mkdir()
    (root / ".codex" / "config.toml").write_text(
        '[mcp_servers.codex-srv]\ncommand = "codex-server"\nargs = ["--stdio"]\n')
    (root / ".gemini").mkdir()
    (root / ".gemini" / "settings.json").write_text(
        '{"theme": "Default", "mcpServers": {"gemini-srv": {"command": "gemini-server"}}}')
    listed = json.loads(cli("list", "--json", "--workspace", str(root)).out)
    assert {(s["name"], s["source"]["format"], s["state"]) for s in listed["servers"]} == {
        ("codex-srv", "codex", "untrusted"), ("gemini-srv", "gemini", "untrusted")}
    assert cli("trust", "codex-srv", "--yes", "--workspace", str(root)).code == 0
    listed = json.loads(cli("list", "--json", "--workspace", str(root)).out)
    assert {s["name"]: s["state"] for s in listed["servers"]} == {
        "codex-srv": "trusted", "gemini-srv": "untrusted"}
