"""End to end, per client: import from a fixture home, export to another home, and a
real MCP client (the official SDK) starts the exported entry and lists the tools.

The exported entries say `mcpctl`; the test puts a `mcpctl` shim on the client's PATH
that runs this checkout's mcpctl (`python -m mcpctl`), as an installed mcpctl would be.
The token reaches the server from the keyring: the tool's description carries its
SHA-256, and no client file holds it.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.clients import (
    TOKENS,
    USER_FILE,
    env_for_home,
    guard_key,
    install_home,
    mcpctl_shim,
)
from tests.conftest import run_mcpctl
from tests.sdk_client import list_tools

IMPORTED = {
    "claude-code": {"docs": "added", "notes": "added", "tokens": "added", "vault": "refused"},
    "claude-desktop": {"filesystem": "added", "journal": "refused", "tokens": "added"},
    "cursor": {"figma": "refused", "linear": "added", "tokens": "added"},
    "vscode": {"github": "refused", "playwright": "added", "tokens": "added",
               "work-tracker": "added"},
    "codex": {"context7": "refused", "figma": "added", "tokens": "added"},
    "gemini": {"docs": "added", "search": "refused", "tokens": "added"},
    "windsurf": {"events": "added", "legacy": "refused", "tokens": "added"},
}


def exported_entry(client: str, path: Path) -> dict[str, Any]:
    text = path.read_text()
    if client == "codex":
        servers: dict[str, Any] = tomllib.loads(text)["mcp_servers"]
    else:
        key = "servers" if client == "vscode" else "mcpServers"
        servers = json.loads(text)[key]
    entry: dict[str, Any] = servers["tokens"]
    return entry


@pytest.mark.usefixtures("secret_service")
@pytest.mark.parametrize("client", list(USER_FILE))
def test_import_export_and_a_real_client_lists_the_tools(
        client: str, isolated_home: Path, tmp_path: Path, user_config: Path) -> None:
    (tmp_path / "repo").mkdir()  # --workspace must exist
    install_home(client, isolated_home, tmp_path / "repo")
    imported = run_mcpctl(["import", "--from", client, "--json", "-w", str(tmp_path / "repo")])
    assert imported.code == 1, imported.err  # the fixture's unsupported entry is refused
    document = json.loads(imported.out)
    assert {s["name"]: s["status"] for s in document["servers"]} == IMPORTED[client]
    tokens = next(s for s in document["servers"] if s["name"] == "tokens")
    assert tokens["secrets"] == ["tokens-API_TOKEN"]
    assert TOKENS[client] not in user_config.read_text()
    assert 'API_TOKEN = "${secret:tokens-API_TOKEN}"' in user_config.read_text()

    other_home = tmp_path / "other-home"
    other_home.mkdir()
    exported = run_mcpctl(["export", "--to", client, "tokens"], env=env_for_home(other_home))
    assert (exported.code, exported.err) == (0, "")
    client_file = other_home / USER_FILE[client]
    assert TOKENS[client] not in client_file.read_text()
    entry = exported_entry(client, client_file)
    # Claude Code's entries carry the machine's guard key (issue 22).
    keyed = ["--key", guard_key()] if client == "claude-code" else []
    assert (entry["command"], entry["args"]) == ("mcpctl", ["run", "tokens", *keyed])

    shim = mcpctl_shim(tmp_path / "bin")
    tools = list_tools(entry["command"], entry["args"],
                       {"PATH": f"{shim.parent}{os.pathsep}{os.environ['PATH']}"})
    digest = hashlib.sha256(TOKENS[client].encode()).hexdigest()
    assert tools == [("whoami", f"token-sha256:{digest}")]
