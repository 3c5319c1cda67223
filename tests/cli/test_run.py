"""`mcpctl run NAME`: exec into the server with secrets resolved, behind the trust gate."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import uuid
from pathlib import Path

import pytest

from mcpctl.cli.run_start import RunLine, parse_fast
from tests.conftest import Result, run_mcpctl
from tests.sdk_client import list_tools

SERVER = Path(__file__).parent.parent / "servers" / "token_server.py"


def write_user_config(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def workspace_with(tmp_path: Path, servers: dict[str, object]) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True, exist_ok=True)
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2))
    return root


def marker_server(marker: Path, **extra: object) -> dict[str, object]:
    return {"command": sys.executable, "args": [str(SERVER), "--marker", str(marker)], **extra}


def run(root: Path, *args: str, stdin: str = "") -> Result:
    return run_mcpctl(["run", *args, "--workspace", str(root)], stdin=stdin)


def test_untrusted_workspace_server_is_not_started(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    root = workspace_with(tmp_path, {"evil": marker_server(marker)})
    result = run(root, "evil")
    assert (result.code, result.out) == (4, "")
    assert result.err == (
        f"mcpctl: error: server 'evil' is untrusted: the workspace defines it at "
        f"{root / '.mcp.json'}:3 and it was never approved; review and approve it with: "
        f"mcpctl trust evil --workspace {root}\n")
    assert not marker.exists()
    # The control: once approved, the very same command does start it.
    assert run_mcpctl(["trust", "evil", "--yes", "--workspace", str(root)]).code == 0
    assert run(root, "evil").code == 0
    assert marker.exists()


def test_changed_server_is_not_started_until_reapproved(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    root = workspace_with(tmp_path, {"docs": marker_server(marker)})
    assert run_mcpctl(["trust", "docs", "--yes", "--workspace", str(root)]).code == 0
    swapped = marker_server(marker, env={"NODE_OPTIONS": "--require ./evil.js"})
    workspace_with(tmp_path, {"docs": swapped})
    result = run(root, "docs")
    assert (result.code, result.out) == (4, "")
    assert "server 'docs' changed since it was approved (env NODE_OPTIONS added: " \
           '"--require ./evil.js")' in result.err
    assert not marker.exists()


def test_unreadable_trust_store_starts_nothing(tmp_path: Path, mcpctl_home: Path) -> None:
    marker = tmp_path / "started"
    root = workspace_with(tmp_path, {"docs": marker_server(marker)})
    assert run_mcpctl(["trust", "docs", "--yes", "--workspace", str(root)]).code == 0
    store = mcpctl_home / "data" / "trust.json"
    store.write_text(store.read_text()[:-20])
    result = run(root, "docs")
    assert result.code == 4
    assert f"trust store {store} is corrupt" in result.err
    assert not marker.exists()


def test_secret_reference_without_keyring_exits_5(no_keyring: None, user_config: Path,
                                                  tmp_path: Path) -> None:
    write_user_config(user_config, '[servers.gh]\ncommand = "true"\n'
                                   'env = { T = "${secret:gh-token}" }\n')
    (tmp_path / "ws").mkdir()
    result = run(tmp_path / "ws", "gh")
    assert (result.code, result.out) == (5, "")
    assert result.err.startswith("mcpctl: error: no OS keyring available")


@pytest.mark.usefixtures("secret_service")
def test_missing_secret_in_real_keyring(user_config: Path, tmp_path: Path) -> None:
    name = f"absent-{uuid.uuid4().hex[:8]}"
    write_user_config(user_config, f'[servers.gh]\ncommand = "true"\n'
                                   f'env = {{ T = "${{secret:{name}}}" }}\n')
    (tmp_path / "ws").mkdir()
    result = run(tmp_path / "ws", "gh")
    assert (result.code, result.out) == (3, "")
    assert result.err == (f"mcpctl: error: server 'gh' env T: secret {name!r} is not in the "
                          f"keyring (set it with: mcpctl secret set {name})\n")


def test_remote_server_is_bridged_and_print_shows_no_header_values(user_config: Path,
                                                                  tmp_path: Path) -> None:
    write_user_config(user_config, '[servers.docs]\nurl = "https://docs.example.com/${env:P}"\n'
                                   'headers = { X-Team = "core-team-value" }\n')
    os.environ["P"] = "mcp"
    try:
        # A bridge (tests/protocol/test_bridge.py) whose stdin closes before any message:
        # it ends cleanly without ever connecting.
        bridged = run(tmp_path, "docs")
        printed = run(tmp_path, "docs", "--print")
    finally:
        del os.environ["P"]
    assert (bridged.code, bridged.out, bridged.err) == (0, "", "")
    assert (printed.code, printed.out) == (0, "https://docs.example.com/mcp\nheader: X-Team\n")


def test_command_not_found_exits_6(user_config: Path, tmp_path: Path) -> None:
    write_user_config(user_config, '[servers.x]\ncommand = "no-such-program-here"\n')
    result = run(tmp_path, "x")
    assert (result.code, result.out) == (6, "")
    assert result.err == ("mcpctl: error: server 'x': command 'no-such-program-here' not found "
                          "on PATH\n")


def test_unknown_server(tmp_path: Path) -> None:
    result = run(tmp_path, "nope")
    assert (result.code, result.err) == (
        2, "mcpctl: error: no server named 'nope' here (see: mcpctl list)\n")


@pytest.mark.usefixtures("secret_service")
def test_real_client_through_mcpctl_run_receives_the_secret(user_config: Path) -> None:
    secret = f"sk-live-{uuid.uuid4().hex}{uuid.uuid4().hex}"
    name = f"tok-{uuid.uuid4().hex[:8]}"
    assert run_mcpctl(["secret", "set", name, "--stdin"], stdin=secret + "\n").code == 0
    write_user_config(user_config, (
        f'[servers.tok]\ncommand = "{sys.executable}"\nargs = ["{SERVER}"]\n'
        f'env = {{ API_TOKEN = "${{secret:{name}}}" }}\n'))
    tools = list_tools(sys.executable, ["-m", "mcpctl", "run", "tok"])
    digest = hashlib.sha256(secret.encode()).hexdigest()
    assert tools == [("whoami", f"token-sha256:{digest}")]


def test_print_shows_secrets_as_references_never_values(user_config: Path,
                                                         tmp_path: Path) -> None:
    write_user_config(user_config, '[servers.docs]\n'
                                   'url = "https://docs.example.com/mcp?key=${secret:docs-key}"\n'
                                   'headers = { Authorization = "Bearer ${secret:docs-token}" }\n')
    printed = run(tmp_path, "docs", "--print")
    assert (printed.code, printed.err) == (0, "")
    assert printed.out == ("https://docs.example.com/mcp?key=${secret:docs-key}\n"
                           "header: Authorization\n")


def test_real_client_lists_a_remote_servers_tools_through_the_bridge(user_config: Path,
                                                                     tmp_path: Path) -> None:
    from tests.protocol.conftest import SDK_SERVER, free_port, http_server  # noqa: PLC0415

    port = free_port()
    with http_server([sys.executable, str(SDK_SERVER), "http", str(port)], port) as url:
        write_user_config(user_config, f'[servers.remote]\nurl = "{url}"\n')
        tools = list_tools(sys.executable, ["-m", "mcpctl", "run", "remote",
                                            "--workspace", str(tmp_path)])
    assert tools == [("add", "Add two integers."), ("shout", "Upper-case the text — loudly.")]


@pytest.mark.parametrize("command", ["run", "cost"])
def test_a_user_tier_file_inside_the_workspace_starts_nothing(tmp_path: Path,
                                                              command: str) -> None:
    """The attack: the repo's own .mcp.json entry is `mcpctl run evil --config cfg.toml`,
    approved by name; the repo then edits cfg.toml, which mcpctl would start as the
    user's own, unapproved."""
    marker = tmp_path / "started"
    root = workspace_with(tmp_path, {})
    entry = f"[servers.evil]\ncommand = {json.dumps(sys.executable)}\n" \
            f"args = {json.dumps([str(SERVER), '--marker', str(marker)])}\n"
    inside = root / "cfg.toml"
    write_user_config(inside, entry)
    refused = run_mcpctl([command, "evil", "--config", str(inside), "--workspace", str(root)])
    assert refused.code == 4, refused.err
    assert (f"server 'evil' comes from {inside}, a user-tier file inside the workspace "
            f"{root}, which the repo can change") in refused.out + refused.err
    assert not marker.exists()
    # The control: the very same file outside the checkout is the user's, and starts.
    outside = tmp_path / "home-config" / "config.toml"
    write_user_config(outside, entry)
    started = run_mcpctl([command, "evil", "--config", str(outside), "--workspace", str(root)])
    assert started.code == 0, started.err
    assert marker.exists()


def test_run_lines_typer_must_parse_go_to_typer(tmp_path: Path) -> None:
    assert parse_fast(["x", f"--workspace={tmp_path}", "--print"]) == RunLine(
        "x", print_remote=True, workspace=tmp_path)
    # click reads `-w=PATH` as the path "=PATH": typer's answer, not this parser's.
    for args in (["x", f"-w={tmp_path}"], ["x", f"-w{tmp_path}"], ["x", "-w", "missing"],
                 ["x", "--help"], ["x", "y"], []):
        assert parse_fast(args) is None
