"""Tests of the client tier: other clients' files, import, export, sync, weak approvals.

Helpers shared by these tests live here. Fixture homes are under fixtures/<client>/home
and mirror a real home folder; `@PYTHON@`, `@TOKEN_SERVER@` and `@WORKSPACE@` in them
are filled in when a test installs them, so the servers they define really start.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

from tests.conftest import REPO

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TOKEN_SERVER = REPO / "tests" / "servers" / "token_server.py"

# Where each client's user file sits below a Linux home (XDG_CONFIG_HOME = ~/.config).
USER_FILE = {
    "claude-code": ".claude.json",
    "claude-desktop": ".config/Claude/claude_desktop_config.json",
    "cursor": ".cursor/mcp.json",
    "vscode": ".config/Code/User/mcp.json",
    "codex": ".codex/config.toml",
    "gemini": ".gemini/settings.json",
    "windsurf": ".codeium/windsurf/mcp_config.json",
}
TOKENS = {  # the secret each fixture's `tokens` server carries
    "claude-code": "sk-live-claudecode0123456789abcdefABCDEF",
    "claude-desktop": "sk-live-desktop0123456789abcdefABCDEFghij",
    "cursor": "sk-live-cursor0123456789abcdefABCDEFghijkl",
    "vscode": "sk-live-vscode0123456789abcdefABCDEFghijkl",
    "codex": "sk-live-codex0123456789abcdefABCDEFghijklm",
    "gemini": "sk-live-gemini0123456789abcdefABCDEFghijkl",
    "windsurf": "sk-live-windsurf0123456789abcdefABCDEFghij",
}


def fill(text: str, workspace: Path) -> str:
    for marker, value in (("@PYTHON@", sys.executable), ("@TOKEN_SERVER@", str(TOKEN_SERVER)),
                          ("@WORKSPACE@", str(workspace))):
        text = text.replace(marker, json.dumps(value)[1:-1])
    return text


def install_home(client: str, home: Path, workspace: Path | None = None) -> Path:
    """Copy the client's fixture home into `home`; returns the client's user file."""
    source = FIXTURES / client / "home"
    for path in sorted(source.rglob("*")):
        if path.is_file():
            target = home / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(fill(path.read_text(), workspace or home).encode())
    return home / USER_FILE[client]


def install_workspace(root: Path) -> Path:
    source = FIXTURES / "claude-code" / "workspace"
    for path in sorted(source.rglob("*")):
        if path.is_file():
            target = root / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    (root / ".git").mkdir(exist_ok=True)
    return root


def guard_key(mcpctl_home: Path | None = None) -> str:
    """The machine's guard key mcpctl made for this test (its data folder, 0600)."""
    home = mcpctl_home or Path(os.environ["MCPCTL_HOME"])
    return (home / "data" / "guard.key").read_text(encoding="ascii").strip()


def mcpctl_shim(directory: Path) -> Path:
    """A `mcpctl` on PATH for real clients: runs this checkout's mcpctl with this Python."""
    directory.mkdir(parents=True, exist_ok=True)
    shim = directory / "mcpctl"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m mcpctl "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return shim


def single_insertion(old: str, new: str) -> str:
    """The text `new` inserts at one place into `old`; fails when any byte of `old`
    changed or went missing (the bytes outside mcpctl's entries stay as they were)."""
    prefix = 0
    while prefix < min(len(old), len(new)) and old[prefix] == new[prefix]:
        prefix += 1
    rest = len(old) - prefix
    assert len(new) >= len(old), "old text was dropped"
    assert new.endswith(old[prefix:]), "old text was changed"
    return new[prefix:len(new) - rest]


def write_config(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def env_for_home(home: Path) -> dict[str, str]:
    """The environment that points clients (and mcpctl's view of them) at `home`."""
    return {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
            "PATH": os.environ.get("PATH", "")}
