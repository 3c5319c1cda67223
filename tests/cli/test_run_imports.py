"""`mcpctl run NAME` starts every server of every client: it imports only what it needs."""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

import pytest

from tests.conftest import imported_by_mcpctl, run_mcpctl

HEAVY = ("typer", "click", "rich", "keyring", "jsonschema", "tomlkit", "httpx", "asyncio",
         "tiktoken", "secretstorage", "cryptography", "platformdirs", "dataclasses", "inspect",
         "hashlib", "_hashlib")  # OpenSSL: a user-tier server hashes nothing long


def imported_by_run(name: str, env: dict[str, str] | None = None) -> set[str]:
    """Top-level packages `mcpctl run NAME` imported before it became the server."""
    return {module.split(".")[0] for module in imported_by_mcpctl(["run", name], env)}


def test_run_without_a_secret_imports_nothing_heavy(user_config: Path) -> None:
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(f'[servers.plain]\ncommand = "{shutil.which("true")}"\n')
    assert imported_by_run("plain") & set(HEAVY) == set()


def test_run_finds_its_folders_without_platformdirs(tmp_path: Path) -> None:
    """No MCPCTL_HOME, as users run it: the XDG folders, worked out by mcpctl itself."""
    env = {key: value for key, value in os.environ.items() if key != "MCPCTL_HOME"}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    config = tmp_path / "xdg" / "mcpctl" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[servers.plain]\ncommand = "{shutil.which("true")}"\n')
    assert imported_by_run("plain", env) & set(HEAVY) == set()


@pytest.mark.usefixtures("secret_service")
def test_run_with_a_keyring_secret_skips_keyring_itself(user_config: Path) -> None:
    name = f"imports-{uuid.uuid4().hex[:12]}"
    assert run_mcpctl(["secret", "set", name, "--stdin"], stdin="value\n").code == 0
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(f'[servers.withsecret]\ncommand = "{shutil.which("true")}"\n'
                           f'env = {{ TOKEN = "${{secret:{name}}}" }}\n')
    modules = imported_by_run("withsecret")
    assert "jeepney" in modules
    assert modules & set(HEAVY) == set()
