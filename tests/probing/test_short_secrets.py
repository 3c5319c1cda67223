"""A credential-named value is hidden in what a probed server says however short it is
(issue 30: planted by hand, `len(match.text) >= 8` beside `match.certain` in
`hidden_values` showed `hunter2` and `k9` in the stderr tail of `doctor` and `cost`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_run import write_user_config
from tests.conftest import run_mcpctl

CONFIG = """[servers.db]
command = "sh"
args = ["-c", "echo \\"connecting with $DB_PASSWORD and $API_KEY\\" >&2; exit 1"]
env = { DB_PASSWORD = "hunter2", API_KEY = "k9" }
"""


@pytest.mark.parametrize("command", ["doctor", "cost"])
def test_short_credentials_are_hidden_in_the_stderr_tail(user_config: Path, command: str
                                                         ) -> None:
    write_user_config(user_config, CONFIG)
    result = run_mcpctl([command, "db"])
    assert result.code == 6
    shown = result.out + result.err
    assert "stderr: connecting with *** and ***" in shown
    assert "hunter2" not in shown
    assert "k9" not in shown
