"""Messages that say what is true (issue 27, class 6), and the field judged with its
value's shape (class 2), on the pure linter."""

from __future__ import annotations

import json

from mcpctl.credentials.secretlike import find_secret
from mcpctl.lint.checks import CLAUDE_SETTINGS, lint_bytes


def messages(document: object, kind: str, path: str) -> dict[str, str]:
    found = lint_bytes(json.dumps(document).encode(), kind, path)
    return {f.code: f.message for f in found}


def test_an_approval_names_what_it_approves_without_claiming_it_exists() -> None:
    said = messages({"enabledMcpjsonServers": ["docs"]}, CLAUDE_SETTINGS,
                    ".claude/settings.json")["MCP060"]
    assert said == ("enabledMcpjsonServers: approves by name whatever server this repo's "
                    ".mcp.json defines as 'docs', now or later")


def test_servers_in_a_settings_file_are_ignored_not_rejected() -> None:
    said = messages({"mcpServers": {"a": {"command": "x"}}}, CLAUDE_SETTINGS,
                    ".claude/settings.json")["MCP006"]
    assert "ignores" in said
    assert "rejects" not in said


def test_a_sk_test_key_is_not_called_a_stripe_key_alone() -> None:
    match = find_secret("sk_test_" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF")
    assert match is not None
    assert match.kind == "Stripe or Clerk secret key"


def test_a_key_field_is_judged_by_its_value_too() -> None:
    assert find_secret("cmd+shift+l", name="key") is None
    assert find_secret("OPENAI_API_KEY", name="env_key") is None
    assert find_secret("WEB", name="JIRA_PROJECT_KEY") is None
    # ...while a password's name keeps every literal, and a key's a real-looking key.
    assert find_secret("cmd+shift+l", name="password") is not None
    assert find_secret("orange-tree", name="X-Api-Key") is not None
    assert find_secret("cr_5f0c1e9a7b3d2c4e6f8a0b1c", name="env_key") is not None
