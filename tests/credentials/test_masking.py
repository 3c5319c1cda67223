"""Literal credentials in a repo's config are masked wherever mcpctl shows them
(issue 14): judged by the field they sit in, not only by their look."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_mcpctl
from tests.tier_files import write_servers

PLAIN = "orange4242tree"  # no known shape, not random: only the field says "secret"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    write_servers(root, {
        "remote": {"type": "http", "url": "https://api.example.com/mcp",
                   "headers": {"Authorization": f"Bearer {PLAIN}", "X-Team": "core"}},
        "opts": {"command": "srv", "args": [f"--api-key={PLAIN}", f"--password={PLAIN}",
                                            "--mode=fast"]},
    })
    return root


def test_show_of_a_remote_server_masks_a_literal_authorization_header(repo: Path) -> None:
    shown = run_mcpctl(["show", "remote", "--workspace", str(repo)])
    as_json = run_mcpctl(["show", "remote", "--json", "--workspace", str(repo)])
    assert (shown.code, as_json.code) == (0, 0)
    assert "  header:    Authorization: Bearer ora***\n  header:    X-Team: core\n" in shown.out
    definition = json.loads(as_json.out)["definitions"][0]
    assert definition["headers"] == {"Authorization": "Bearer ora***", "X-Team": "core"}
    for result in (shown, as_json):
        assert PLAIN not in result.out + result.err


@pytest.mark.parametrize("argv", [["list"], ["list", "--json"], ["show", "opts"],
                                  ["show", "opts", "--json"], ["trust", "opts", "--yes"]])
def test_option_values_are_masked_by_their_option_name(repo: Path, argv: list[str]) -> None:
    result = run_mcpctl([*argv, "--workspace", str(repo)])
    assert result.code == 0, result.err
    assert PLAIN not in result.out + result.err
    if argv[0] != "list" or "--json" in argv:
        assert "--api-key=ora***" in result.out
        assert "--password=ora***" in result.out
        assert "--mode=fast" in result.out
