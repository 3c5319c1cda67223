"""Secrets in the real OS keyring (gnome-keyring over a private D-Bus session)."""

from __future__ import annotations

import json
import stat
import sys
import uuid
from pathlib import Path

import pytest

from tests.conftest import Result, run_mcpctl

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def mcpctl(*args: str, stdin: str | None = None) -> Result:
    return run_mcpctl(list(args), stdin=stdin)


@pytest.mark.usefixtures("secret_service")
def test_set_get_list_rm_roundtrip(mcpctl_home: Path) -> None:
    name = unique("api")
    stored = mcpctl("secret", "set", name, "--stdin", stdin="s3cr3t-value\n")
    assert (stored.code, stored.err) == (0, "")
    assert stored.out == f"stored secret {name} in the OS keyring (reference it as " \
                         f"${{secret:{name}}})\n"
    assert mcpctl("secret", "get", name, "--reveal").out == "s3cr3t-value\n"
    listed = json.loads(mcpctl("secret", "list", "--json").out)
    assert listed == {"schema_version": 1, "problems": [],
                      "secrets": [{"name": name, "stored": True, "referenced_by": [],
                                   "unreferenced": True}]}
    index = mcpctl_home / "data" / "secrets.json"
    assert stat.S_IMODE(index.stat().st_mode) == 0o600
    assert "s3cr3t" not in index.read_text()
    removed = mcpctl("secret", "rm", name)
    assert (removed.code, removed.out) == (0, f"removed secret {name}\n")
    gone = mcpctl("secret", "get", name, "--reveal")
    assert (gone.code, gone.err) == (2, f"mcpctl: error: no secret named {name!r} in the "
                                        "keyring\n")


@pytest.mark.usefixtures("secret_service")
def test_stdin_strips_exactly_one_trailing_newline() -> None:
    name = unique("nl")
    assert mcpctl("secret", "set", name, "--stdin", stdin="value\n\n").code == 0
    assert mcpctl("secret", "get", name, "--reveal").out == "value\n\n"


def test_get_without_reveal_is_refused() -> None:
    result = mcpctl("secret", "get", "anything")
    assert (result.code, result.out) == (2, "")
    assert result.err == "mcpctl: error: mcpctl prints a secret's value only with --reveal\n"


@pytest.mark.parametrize("name", ["has space", "a/b", "x" * 129, "${secret:x}"])
def test_invalid_secret_names(name: str) -> None:
    result = mcpctl("secret", "set", name, "--stdin", stdin="v\n")
    assert result.code == 2
    assert result.err == (f"mcpctl: error: invalid secret name {name!r}: use 1-128 of "
                          "A-Z a-z 0-9 _ . -\n")


def test_set_without_terminal_or_stdin_flag_is_refused() -> None:
    result = mcpctl("secret", "set", "x", stdin="")
    assert result.code == 2
    assert "no terminal to prompt on; pass the value on stdin with --stdin" in result.err


@pytest.mark.usefixtures("secret_service")
def test_rm_warns_when_still_referenced(user_config: Path) -> None:
    name = unique("gh")
    user_config.parent.mkdir(parents=True)
    user_config.write_text(f'[servers.gh]\ncommand = "x"\nenv = {{ T = "${{secret:{name}}}" }}\n')
    mcpctl("secret", "set", name, "--stdin", stdin="v\n")
    listed = json.loads(mcpctl("secret", "list", "--json").out)
    assert listed["secrets"] == [{"name": name, "stored": True, "referenced_by": ["gh"],
                                  "unreferenced": False}]
    result = mcpctl("secret", "rm", name)
    assert result.code == 0
    assert result.err == (f"warning: still referenced by gh; those servers will not start "
                          f"until it is set again (mcpctl secret set {name})\n")


def test_no_keyring_backend_exits_5_and_writes_nothing(
    no_keyring: None, mcpctl_home: Path, user_config: Path
) -> None:
    result = mcpctl("secret", "set", "x", "--stdin", stdin="v\n")
    assert result.code == 5
    assert result.err.startswith("mcpctl: error: no OS keyring available (keyring chose ")
    assert "gnome-keyring" in result.err
    assert "mcpctl never stores secrets in a file" in result.err
    added = mcpctl("add", "gh", "--env", f"GITHUB_TOKEN={TOKEN}", "--", "gh-server")
    assert added.code == 5
    assert not user_config.exists()
    assert not (mcpctl_home / "data" / "secrets.json").exists()


@pytest.mark.usefixtures("secret_service")
def test_add_moves_secret_looking_env_and_header_values_to_keyring(user_config: Path) -> None:
    added = mcpctl("add", "gh", "--env", f"GITHUB_TOKEN={TOKEN}", "--env", "MODE=fast",
                   "--", "gh-server", "--stdio")
    assert added.code == 0
    assert added.err == ("stored a secret-looking value in the OS keyring as 'gh-GITHUB_TOKEN'; "
                         "config.toml references it as ${secret:gh-GITHUB_TOKEN}\n")
    assert user_config.read_text() == (
        '[servers.gh]\ncommand = "gh-server"\nargs = ["--stdio"]\n'
        'env = {GITHUB_TOKEN = "${secret:gh-GITHUB_TOKEN}", MODE = "fast"}\n')
    assert mcpctl("secret", "get", "gh-GITHUB_TOKEN", "--reveal").out == TOKEN + "\n"
    remote = mcpctl("add", "docs", "--url", "https://docs.example.com/mcp",
                    "--header", f"Authorization=Bearer {TOKEN}")
    assert remote.code == 0
    assert 'headers = {Authorization = "Bearer ${secret:docs-Authorization}"}' in \
        user_config.read_text()
    again = mcpctl("add", "gh", "--env", f"GITHUB_TOKEN={TOKEN}", "--env", "MODE=fast",
                   "--", "gh-server", "--stdio")
    assert (again.code, again.out.endswith("(already defined like this)\n")) == (0, True)


@pytest.mark.usefixtures("secret_service")
def test_plain_keeps_value_and_secret_env_prompts_from_stdin(user_config: Path) -> None:
    plain = mcpctl("add", "p", "--plain", "--env", f"NOT_SECRET={TOKEN}", "--", "srv")
    assert plain.code == 0
    assert TOKEN in user_config.read_text()
    asked = mcpctl("add", "q", "--secret-env", "API_KEY", "--stdin", "--", "srv",
                   stdin="typed-value\n")
    assert asked.code == 0
    assert 'env = {API_KEY = "${secret:q-API_KEY}"}' in user_config.read_text()
    assert mcpctl("secret", "get", "q-API_KEY", "--reveal").out == "typed-value\n"


@pytest.mark.usefixtures("secret_service")
def test_token_is_nowhere_on_disk_or_in_output(tmp_path: Path, mcpctl_home: Path) -> None:
    """After add, run, show, list --json and secret list, no file under the mcpctl home and
    no captured output holds the token (masking keeps at most 4 characters)."""
    server = Path(__file__).parent.parent / "servers" / "token_server.py"
    token = "github_pat_" + uuid.uuid4().hex + uuid.uuid4().hex
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"leaky": {
        "command": "srv", "env": {"API_TOKEN": token}}}}))
    outputs = [
        mcpctl("add", "gh", "--env", f"API_TOKEN={token}", "--", sys.executable, str(server)),
        run_mcpctl(["run", "gh", "--workspace", str(root)], stdin=""),
        run_mcpctl(["show", "gh", "--workspace", str(root)]),
        run_mcpctl(["show", "leaky", "--workspace", str(root)]),
        run_mcpctl(["list", "--json", "--workspace", str(root)]),
        run_mcpctl(["trust", "leaky", "--yes", "--workspace", str(root)]),
        run_mcpctl(["show", "leaky", "--json", "--workspace", str(root)]),
        mcpctl("secret", "list"),
        mcpctl("secret", "list", "--json"),
    ]
    assert [r.code for r in outputs] == [0] * len(outputs)
    masked = token[:4] + "***"
    assert masked in outputs[3].out
    for result in outputs:
        assert token[4:12] not in result.out + result.err
    files = [p for p in mcpctl_home.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {"config.toml", "secrets.json", "trust.json"}
    for path in files:
        assert token[4:12].encode() not in path.read_bytes(), path


@pytest.mark.usefixtures("secret_service")
def test_a_refused_add_stores_no_secret_and_a_new_value_needs_replace(
    user_config: Path,
) -> None:
    old, new, third = (f"ghp_{c * 4}A1b2C3d4E5f6G7h8I9j0K1l2M3n4" for c in "QRS")
    assert mcpctl("add", "gh", "--env", f"GITHUB_TOKEN={old}", "--", "srv", "1").code == 0
    refused = mcpctl("add", "gh", "--env", f"GITHUB_TOKEN={new}", "--", "srv", "2")
    assert refused.code == 2
    assert "already exists" in refused.err
    assert mcpctl("secret", "get", "gh-GITHUB_TOKEN", "--reveal").out == old + "\n"
    same = mcpctl("add", "gh", "--env", f"GITHUB_TOKEN={third}", "--", "srv", "1")
    assert (same.code, same.out) == (2, "")
    assert same.err == ("mcpctl: error: secret 'gh-GITHUB_TOKEN' in the OS keyring holds a "
                        "different value than the one given; nothing was changed; use "
                        "--replace to replace it (or: mcpctl secret set gh-GITHUB_TOKEN)\n")
    assert mcpctl("secret", "get", "gh-GITHUB_TOKEN", "--reveal").out == old + "\n"


def test_conflict_message_masks_plain_secret_values(user_config: Path) -> None:
    assert mcpctl("add", "gh", "--plain", "--env", f"GITHUB_TOKEN={TOKEN}", "--", "a").code == 0
    other = TOKEN.replace("A1b2", "Z9y8")
    refused = mcpctl("add", "gh", "--plain", "--env", f"GITHUB_TOKEN={other}", "--", "b")
    assert refused.code == 2
    assert TOKEN[4:12] not in refused.err
    assert other[4:12] not in refused.err
    assert '"GITHUB_TOKEN": "ghp_***"' in refused.err


@pytest.mark.usefixtures("secret_service")
def test_tokens_in_arguments_and_urls_go_to_the_keyring(user_config: Path) -> None:
    key = "sk-ant-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"
    cli_result = mcpctl("add", "cl", "--command-line", f"srv --token {TOKEN} --key={key} -v")
    url_result = mcpctl("add", "docs", "--url", f"https://docs.example.com/mcp?api_key={key}&x=1")
    assert (cli_result.code, url_result.code) == (0, 0)
    text = user_config.read_text()
    assert TOKEN not in text
    assert key not in text
    assert 'args = ["--token", "${secret:cl-arg1}", "--key=${secret:cl-arg2}", "-v"]' in text
    assert 'url = "https://docs.example.com/mcp?api_key=${secret:docs-url-api_key}&x=1"' in text
    assert mcpctl("secret", "get", "cl-arg2", "--reveal").out == key + "\n"


def test_list_and_show_mask_literal_tokens_in_args_and_urls(tmp_path: Path) -> None:
    key = "sk-ant-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "a": {"command": "srv", "args": ["--token", TOKEN]},
        "b": {"url": f"https://u:{key}@docs.example.com/mcp?api_key={key}"}}}))
    for argv in (["list"], ["list", "--json"], ["show", "a"], ["show", "b", "--json"]):
        result = run_mcpctl([*argv, "--workspace", str(root)])
        assert result.code == 0
        assert TOKEN[4:12] not in result.out
        assert key[7:15] not in result.out
