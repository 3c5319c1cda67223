"""The command exported entries run: `mcpctl` where every client finds it, else the
absolute path of the running mcpctl, and `mcpctl clients command` to set it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mcpctl.clients.settings import DEFAULT_COMMAND, default_command
from tests.clients import TOKEN_SERVER, write_config
from tests.conftest import Cli
from tests.sdk_client import list_tools

CONSOLE_SCRIPT = Path(sys.executable).with_name("mcpctl")  # this checkout's, installed


def executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_the_console_script_outside_the_system_folders_is_named_absolutely(
        tmp_path: Path) -> None:
    script = executable(tmp_path / "home" / ".local" / "bin" / "mcpctl")
    assert default_command([str(script), "sync"]) == str(script)


def test_a_symlinked_script_keeps_the_path_it_was_started_by(tmp_path: Path) -> None:
    target = executable(tmp_path / "tools" / "mcpctl" / "bin" / "mcpctl")
    link = tmp_path / "bin" / "mcpctl"
    link.parent.mkdir()
    link.symlink_to(target)
    assert default_command([str(link)]) == str(link)


def test_a_script_in_a_system_folder_is_found_by_name(tmp_path: Path) -> None:
    script = executable(tmp_path / "usr" / "bin" / "mcpctl")
    assert default_command([str(script)], standard=[str(script.parent)]) == DEFAULT_COMMAND


def test_run_another_way_the_name_is_all_there_is(tmp_path: Path) -> None:
    main = executable(tmp_path / "mcpctl" / "__main__.py")
    assert default_command([str(main)]) == DEFAULT_COMMAND
    assert default_command([str(tmp_path / "missing" / "mcpctl")]) == DEFAULT_COMMAND
    assert default_command([]) == DEFAULT_COMMAND


def test_clients_command_sets_shows_and_resets_keeping_comments(
        cli: Cli, user_config: Path) -> None:
    write_config(user_config, '# mine\n[clients]\nsync = ["cursor"] # both\n')
    set_it = cli("clients", "command", "/opt/mcpctl/bin/mcpctl", "--json")
    assert set_it.code == 0, set_it.err
    assert json.loads(set_it.out) == {
        "schema_version": 1, "command": "/opt/mcpctl/bin/mcpctl",
        "exported_command": "/opt/mcpctl/bin/mcpctl", "changed": True,
        "path": str(user_config)}
    assert user_config.read_text() == ('# mine\n[clients]\nsync = ["cursor"] # both\n'
                                       'command = "/opt/mcpctl/bin/mcpctl"\n')
    again = cli("clients", "command", "/opt/mcpctl/bin/mcpctl")
    assert again.out.endswith("(already so)\n")
    reset = cli("clients", "command", "--reset")
    assert reset.code == 0, reset.err
    assert user_config.read_text() == '# mine\n[clients]\nsync = ["cursor"] # both\n'
    both = cli("clients", "command", "/x", "--reset")
    assert (both.code, both.err) == (2, "mcpctl: error: give a PATH or --reset, not both\n")


def test_an_exported_entry_starts_in_a_client_whose_path_lacks_mcpctl(
        tmp_path: Path, user_config: Path, isolated_home: Path) -> None:
    """The installed console script exports its own absolute path; a client with only
    the system folders on PATH then starts the server through it."""
    write_config(user_config, f'[servers.tokens]\ncommand = "{sys.executable}"\n'
                              f'args = ["{TOKEN_SERVER}"]\nenv = {{ API_TOKEN = "plain" }}\n')
    exported = subprocess.run([str(CONSOLE_SCRIPT), "export", "--to", "cursor", "tokens"],
                              capture_output=True, text=True, timeout=60, check=False,
                              env=dict(os.environ))
    assert (exported.returncode, exported.stderr) == (0, "")
    entry = json.loads((isolated_home / ".cursor" / "mcp.json").read_text())["mcpServers"][
        "tokens"]
    assert entry == {"command": str(CONSOLE_SCRIPT), "args": ["run", "tokens"]}
    tools = list_tools(entry["command"], entry["args"], {"PATH": "/usr/bin:/bin"})
    assert [name for name, _ in tools] == ["whoami"]
