"""After Gemini CLI's own `mcp add`, which rewrites its settings file with the `${VAR}`
placeholders of mcpctl's entries expanded to their values, the next `sync` recognises
mcpctl's entry, puts the references back and leaves no token anywhere (issue 26 item
8): not a conflict. Gemini CLI 0.61.0 is the oracle; without `_expanded_by_client` in
plan.py the second sync exits 1 with "conflict envtok" and the token stays.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clients import write_config
from tests.clients.real_clients import run_client
from tests.credentials.leaks import leaks

pytestmark = pytest.mark.timeout(600)
CONSOLE_SCRIPT = Path(sys.executable).with_name("mcpctl")
TOKEN = "svc-token-expanded-by-gemini-0123456789"


def sync() -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CONSOLE_SCRIPT), "sync"], capture_output=True, text=True,
                          timeout=120, check=False, stdin=subprocess.DEVNULL)


def test_an_entry_gemini_expanded_is_repaired_by_the_next_sync(
    user_config: Path, isolated_home: Path, tmp_path: Path
) -> None:
    write_config(user_config, '[servers.envtok]\ncommand = "srv"\n'
                              'env = { API_TOKEN = "${env:MY_SVC_TOKEN}" }\n\n'
                              '[clients]\nsync = ["gemini"]\n')
    assert sync().returncode == 0
    settings = isolated_home / ".gemini" / "settings.json"
    project = tmp_path / "project"
    project.mkdir()
    added = run_client("gemini", ["mcp", "add", "-s", "user", "theirs", "their-server"],
                       home=isolated_home, cwd=project,
                       env={"MY_SVC_TOKEN": TOKEN, "GEMINI_CLI_TRUST_WORKSPACE": "true"})
    assert added.returncode == 0, added.stdout + added.stderr
    # What Gemini CLI did to mcpctl's entry: the token is now in its file.
    assert json.loads(settings.read_text())["mcpServers"]["envtok"]["env"] == {
        "MY_SVC_TOKEN": TOKEN}
    repaired = sync()
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert ("  updated   envtok  (Gemini CLI had written the values of its variables into "
            "its file; they are references again)") in repaired.stdout
    servers = json.loads(settings.read_text())["mcpServers"]
    assert servers["envtok"]["env"] == {"MY_SVC_TOKEN": "${MY_SVC_TOKEN}"}
    assert servers["theirs"]["command"] == "their-server"  # Gemini's own, kept
    assert leaks(TOKEN, isolated_home.parent) == []  # the backup holds a reference
    assert sync().stdout.startswith("gemini: ~/.gemini/settings.json (up to date)")
