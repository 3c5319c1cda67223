"""The one secret detector: what it finds, what it leaves alone, how it masks."""

from __future__ import annotations

import pytest

from mcpctl.credentials.secretlike import find_secret, looks_secret, mask

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
    match = find_secret(value)
    assert match is not None
    assert match.kind == kind
    assert looks_secret(value)


@pytest.mark.parametrize(("name", "value"), [
    ("API_KEY", "hunter2-but-longer"),
    ("DB_PASSWORD", "correct-horse"),
    ("PASSWORD", "short"),
    ("PGPASSWORD", "hunter2"),
    ("Authorization", "Basic dXNlcjpwYXNzd29yZA=="),
    ("X-Api-Key", "abcdef123456"),
    ("--token", "abcdef123456"),
    ("token", "abc123def456ghi789"),
    ("githubToken", "abcdef123456"),
    ("apiToken", "abcdef123456"),
    ("clientSecret", "correct-horse"),
    ("--apiToken", "abcdef123456"),
    ("APIKey", "abcdef123456"),
    (None, "Authorization: Bearer abcdef123456"),
    ("--header", "Authorization: Bearer abcdef123456"),
    ("-H", "X-Api-Key: abcdef123456"),
    (None, "x-auth-token:abcdef123456"),
    (None, "X-Custom: Bearer abc123def456"),
])
def test_a_literal_under_a_secret_name_is_a_credential(name: str | None, value: str) -> None:
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
    ("maxTokens", "4096"),
    ("tokenizerPath", "./models/tokenizer.json"),
    ("useOAuth", "true"),
    ("--header", "Authorization: Bearer ${input:token}"),
    ("--header", "Authorization:${AUTH_HEADER}"),
    ("Authorization", "Negotiate ${KERBEROS_TICKET}"),
    ("-H", "Content-Type: application/json"),
    (None, "Note: Basic authentication"),
    (None, "C:\\Users\\runner\\server\\index.js"),
    (None, "sha256:" + "9f86d081884c7d659a2feaa0c55ad015" * 2),
    (None, "git+https://example.com/r.git@3f2a9c1b7e4d6a8f0b2c4d6e8f0a1b3c5d7e9f01"),
    (None, "0" * 32),
    (None, "deadbeefdeadbeefdeadbeefdeadbeef"),
    (None, "cache d41d8cd98f00b204e9800998ecf8427e"),
    (None, "https://cdn.example/assets/9f86d081884c7d659a2feaa0c55ad015/app.js"),
    (None, "@scope/server-0f8c2a1e-6b3d-4e5f-9a7b-1c2d3e4f5a6b@1.2.3"),
])
def test_ordinary_values_are_left_alone(name: str | None, value: str) -> None:
    assert find_secret(value, name=name) is None


@pytest.mark.parametrize(("name", "value"), [
    ("API_KEY", "your-api-key-here"),
    ("API_KEY", "Ask the platform team for one"),
    ("API_KEY", "k7Qz9Pw2\nLm4xR8vT"),
])
def test_check_calls_no_placeholder_or_prose_under_a_keys_name_a_credential(
        name: str, value: str) -> None:
    """`check` asks with placeholders allowed, so that a placeholder under a key's
    name is reported as a blank to fill in, not as a committed secret; prose of more
    than four words and a text of several lines are not one credential either. With
    either check left out of the named-credential rule, each was a credential."""
    assert find_secret(value, name=name, placeholders=True) is None


@pytest.mark.parametrize("value", [
    "9f86d081884c7d659a2feaa0c55ad015",
    "a3c1e9f0b27d4c58e6a1f0d93b7c2e45d6f8a0b1c",  # 41 characters: not a commit id
    " 4b9e2c7a1f3d8e6b0c5a9f2d7e1b4c8a ",
])
def test_random_lowercase_hex_is_a_guess(value: str) -> None:
    match = find_secret(value)
    assert match is not None
    assert (match.kind, match.certain) == ("high-entropy string", False)


@pytest.mark.parametrize(("value", "masked"), [
    (GITHUB, "ghp_***"),
    ("correct-horse", "cor***"),
    ("abcdefgh", "ab***"),
    ("abc", "***"),
    ("", "***"),
])
def test_mask_keeps_at_most_four_characters(value: str, masked: str) -> None:
    assert mask(value) == masked
