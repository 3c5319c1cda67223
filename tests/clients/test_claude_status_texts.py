"""Both texts Claude Code prints for a server that did not connect read as one status
(issue 26 item 10): the pinned 2.1.197 prints "✘ Failed to connect", 2.1.332 and later
add the reason after it."""

from __future__ import annotations

from tests.clients.real_clients import claude_statuses

OLD = "bad: /usr/bin/mcpctl run bad - ✘ Failed to connect"
NEW = "bad: /usr/bin/mcpctl run bad - ✘ Failed to connect: MCP error -32000: Connection closed"
GOOD = "good: /usr/bin/mcpctl run good - ✔ Connected"


def test_old_and_new_failure_texts_read_alike() -> None:
    header = "Checking MCP server health...\n\n"
    for line in (OLD, NEW):
        assert claude_statuses(f"{header}{GOOD}\n{line}\n") == {
            "good": "✔ Connected", "bad": "✘ Failed to connect"}


def test_other_statuses_are_kept_as_printed() -> None:
    assert claude_statuses("x: cmd - ⏸ Needs authentication\n") == {
        "x": "⏸ Needs authentication"}
    assert claude_statuses("x: cmd - ✘ Failed\n") == {"x": "✘ Failed"}
