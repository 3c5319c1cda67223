"""Where the managed files are, per OS as the Machine names it (issue 22).

`Machine.os_key` is `os_name(sys.platform)`: "macos" on a Mac, never "darwin". The
tables of managed paths were keyed "darwin", so on a Mac both `guard --system` and the
guard's report looked for Claude Code's and Gemini CLI's system files at the Linux
paths (found by hand: with the keys back to "darwin" the macOS case below fails).
"""

from __future__ import annotations

import pytest

from mcpctl.clients.system_guard import system_files
from mcpctl.machine import os_name


@pytest.mark.parametrize(("platform", "claude", "gemini"), [
    ("darwin", "/Library/Application Support/ClaudeCode/managed-settings.json",
     "/Library/Application Support/GeminiCli/settings.json"),
    ("linux", "/etc/claude-code/managed-settings.json", "/etc/gemini-cli/settings.json"),
])
def test_the_managed_files_are_where_each_os_keeps_them(platform: str, claude: str,
                                                         gemini: str) -> None:
    files = system_files({}, "mcpctl", ["memory"], "k" * 32, os_key=os_name(platform))
    paths = {file.client: file.path for file in files}
    assert paths["claude-code"] == claude
    assert paths["gemini"] == gemini
