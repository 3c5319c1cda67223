"""What `check` says Codex refuses, Codex's own CLI refuses (issue 27).

Each project file is put in a trusted project of a throwaway home and `codex mcp list`
is run there (no chat, no network): a file `check` reports with MCP006 "Codex refuses
the whole file" must make Codex fail to load its configuration, and the good fixture
must load. Found this way, against the pinned Codex: fields of the other transport
(`http_headers` on a command entry, `env` on a URL entry) and an entry with neither
`command` nor `url` refuse the file; a key Codex does not know (`alwaysAllow`) does not,
so `check` does not report one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpctl.lint.checks import lint_bytes
from tests.clients.real_clients import run_client
from tests.lint.helpers import CORPUS

ENTRIES = {
    "http_headers on a command entry": '[mcp_servers.x]\ncommand = "srv"\n'
                                       'http_headers = { A = "b" }\n',
    "env on a URL entry": '[mcp_servers.x]\nurl = "https://mcp.example.com/mcp"\n'
                          'env = { A = "b" }\n',
    "neither command nor url": '[mcp_servers.x]\nenabled = false\n',
    "approval_policy as a table": 'approval_policy = { mode = "on-request" }\n',
}
ACCEPTED = {
    "a key Codex does not know": '[mcp_servers.x]\ncommand = "srv"\nalwaysAllow = ["a"]\n',
    "the good fixture": (CORPUS / "good" / "23-codex-provider-and-servers" / ".codex"
                         / "config.toml").read_text(),
}


def codex_loads(config: str, tmp_path: Path) -> tuple[bool, str]:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".codex").mkdir(parents=True)
    (project / ".codex").mkdir(parents=True)
    (project / ".git").mkdir()  # Codex finds the project root by it
    (home / ".codex" / "config.toml").write_text(
        f'[projects."{project}"]\ntrust_level = "trusted"\n')
    (project / ".codex" / "config.toml").write_text(config)
    result = run_client("codex", ["mcp", "list"], home=home, cwd=project, timeout=120)
    output = result.stdout + result.stderr
    return "failed to load" not in output, output


def codes(config: str) -> list[str]:
    return [f.code for f in lint_bytes(config.encode(), "codex", ".codex/config.toml")]


@pytest.mark.parametrize("label", sorted(ENTRIES))
def test_what_check_says_codex_refuses_codex_refuses(label: str, tmp_path: Path) -> None:
    assert "MCP006" in codes(ENTRIES[label])
    loads, output = codex_loads(ENTRIES[label], tmp_path)
    assert not loads, output


@pytest.mark.parametrize("label", sorted(ACCEPTED))
def test_what_check_lets_pass_codex_loads(label: str, tmp_path: Path) -> None:
    assert "MCP006" not in codes(ACCEPTED[label])
    loads, output = codex_loads(ACCEPTED[label], tmp_path)
    assert loads, output
