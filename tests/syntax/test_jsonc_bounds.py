"""The JSON reader stays linear whatever the text holds (issue 23, item 9): a file of
many duplicate keys, nested deep, used to cost a path copy of the nesting depth per
token and a problem per duplicate (a 2.4 MB `.mcp.json` took 21 s of a user-tier `run`;
a 14 MB one, minutes). Without MAX_DUPLICATES the CLI test reports 20,000 problems;
without MAX_INDEXED_DEPTH the document keeps a 400-long path per token."""

from __future__ import annotations

import json
from pathlib import Path

from mcpctl.syntax.jsonc import MAX_DUPLICATES, MAX_INDEXED_DEPTH, parse
from tests.conftest import run_mcpctl

DEPTH = 400


def deep_duplicates(count: int) -> str:
    body = "{" + ", ".join('"k": 1' for _ in range(count)) + "}"
    return ('{"mcpServers": {"a": {"command": "true"}}, "x": ' + '{"a": ' * DEPTH + body
            + "}" * DEPTH + "}")


def test_deep_duplicates_are_found_with_bounded_paths() -> None:
    document = parse(deep_duplicates(5000), jsonc=False)
    assert len(document.duplicates) == MAX_DUPLICATES
    assert document.more_duplicates == 4999 - MAX_DUPLICATES
    placed = [*document.key_positions, *document.value_positions,
              *(d.path for d in document.duplicates)]
    assert max(len(path) for path in placed) <= MAX_INDEXED_DEPTH + 2
    assert len(placed) < 3 * MAX_INDEXED_DEPTH + MAX_DUPLICATES + 10


def test_a_deep_value_is_placed_at_its_nearest_placed_ancestor() -> None:
    text = '{"a": ' * 100 + '"v"' + "}" * 100
    document = parse(text, jsonc=False)
    path = ("a",) * 100
    assert document.nearest(path) == document.position(("a",) * MAX_INDEXED_DEPTH)


def test_a_file_of_duplicates_is_refused_with_a_bounded_report(tmp_path: Path,
                                                                user_config: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / ".mcp.json").write_text(deep_duplicates(20_000))
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text('[servers.u]\ncommand = "true"\n')
    listed = run_mcpctl(["list", "--json", "-w", str(root)])
    problems = json.loads(listed.out)["problems"]
    assert len(problems) == MAX_DUPLICATES + 1
    assert problems[0]["message"].startswith("duplicate key x.a.a.")
    assert problems[-1]["message"] == f"… and {19_999 - MAX_DUPLICATES:,} more duplicate keys"
    assert run_mcpctl(["run", "u", "-w", str(root)]).code == 0  # the user's own server
