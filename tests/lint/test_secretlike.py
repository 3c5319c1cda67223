"""The one secret detector: what it finds, what it leaves alone, how it masks."""

from __future__ import annotations

import pytest

from mcpctl.secretlike import find_secret, looks_secret, mask, secret_kind

GITHUB = "ghp_0123456789abcdefghijABCDEFGHIJexampl"


@pytest.mark.parametrize(("value", "kind"), [
    (GITHUB, "GitHub token"),
    ("gho_Mcpctl0Test1Token2Abc3Def4", "GitHub token"),
    ("github_pat_11MCPCTL0Test1Token2_Abc3Def4Ghi5", "GitHub token"),
    ("sk-ant-api03-Mcpctl0Test1Key2Not3Real4", "Anthropic API key"),
    ("sk-proj-Mcpctl0Test1Key2Not3Real4", "API key (sk-)"),
    ("xoxb-1234567890-0987654321-McpctlTestToken", "Slack token"),
    ("xoxp-1234567890-McpctlTest", "Slack token"),
    ("AKIAMCPCTLTEST012345", "AWS access key"),
    ("glpat-Mcpctl0Test1Token2Abc", "GitLab token"),
    ("AIzaMcpctlTest0123456789abcdefghijklmno", "Google API key"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtY3BjdGwifQ.c2lnbmF0dXJl", "JSON web token"),
    (f"Bearer {GITHUB}", "GitHub token"),
    (f"--token={GITHUB}", "GitHub token"),
    (f"https://x-access-token:{GITHUB}@github.example/org/repo", "GitHub token"),
    ("Qm9vN2xXz4Rt8Ke3Lp0Vb6Hs1Dj5Fg2Yw", "high-entropy string"),
])
def test_known_shapes_are_found(value: str, kind: str) -> None:
    assert secret_kind(value) == kind
    assert looks_secret(value)


@pytest.mark.parametrize(("name", "value"), [
    ("API_KEY", "hunter2-but-longer"),
    ("DB_PASSWORD", "correct-horse"),
    ("Authorization", "Basic dXNlcjpwYXNzd29yZA=="),
    ("X-Api-Key", "abcdef123456"),
    ("--token", "abcdef123456"),
    ("token", "abc123def456ghi789"),
])
def test_a_literal_under_a_secret_name_is_a_credential(name: str, value: str) -> None:
    match = find_secret(value, name=name)
    assert match is not None
    assert (match.kind, match.certain) == ("credential", True)
    assert match.text in value


@pytest.mark.parametrize(("name", "value"), [
    ("GITHUB_TOKEN", "${secret:github-pat}"),
    ("GITHUB_TOKEN", "${env:GITHUB_TOKEN}"),
    ("GITHUB_TOKEN", "${GITHUB_TOKEN:-}"),
    ("Authorization", "Bearer ${input:token}"),
    ("API_KEY_FILE", "./secrets/api-key.txt"),
    ("SSH_KEY", "~/.ssh/id_ed25519"),
    ("API_KEY", "<your key here>"),
    ("PASSWORD", "short"),
    ("MAX_TOKENS", "4096"),
    ("AUTH", "true"),
    ("PWD", "/srv/app/current/working/directory"),
    ("CALLBACK_URL", "https://example.com/oauth/callback"),
    (None, "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    (None, "sk-learn"),
    (None, "AbstractSingletonProxyFactoryBean2024"),
    (None, "ModelContextProtocolServerFileSystem2024"),
    (None, "3f2a9c1b7e4d6a8f0b2c4d6e8f0a1b3c5d7e9f01"),
    (None, "0f8c2a1e-6b3d-4e5f-9a7b-1c2d3e4f5a6b"),
    (None, "/usr/local/lib/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"),
    (None, "https://registry.example.com/v2/tools/server-filesystem/manifests/2025.8.4"),
    (None, "The quick brown fox jumps over the lazy dog, again and again and again"),
])
def test_ordinary_values_are_left_alone(name: str | None, value: str) -> None:
    assert find_secret(value, name=name) is None


@pytest.mark.parametrize(("value", "masked"), [
    (GITHUB, "ghp_***"),
    ("correct-horse", "cor***"),
    ("abcdefgh", "ab***"),
    ("abc", "***"),
    ("", "***"),
])
def test_mask_keeps_at_most_four_characters(value: str, masked: str) -> None:
    assert mask(value) == masked
