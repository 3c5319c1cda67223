"""What the trust store and `run --print` say of a secret is judged with its field's
name (issue 30: each test was shown to fail with the bug planted by hand)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_run import workspace_with, write_user_config
from tests.conftest import run_mcpctl


def test_a_password_that_does_not_look_random_is_hashed_under_a_password_name(
    tmp_path: Path, mcpctl_home: Path
) -> None:
    """`PGPASSWORD=hunter2` has no secret's shape; its name makes it one, so the store
    keeps only its hash. Planted by hand, `looks_secret(value)` without the name in
    `_stored_value` wrote `hunter2` into trust.json."""
    root = workspace_with(tmp_path, {"db": {"command": "true",
                                            "env": {"PGPASSWORD": "hunter2", "PGUSER": "ada"}}})
    assert run_mcpctl(["trust", "db", "--yes", "-w", str(root)]).code == 0
    text = (mcpctl_home / "data" / "trust.json").read_text()
    assert "hunter2" not in text
    env = json.loads(text)["workspaces"][str(root.resolve())]["db"]["definition"]["env"]
    assert env["PGUSER"] == "ada"
    assert set(env["PGPASSWORD"]) == {"sha256"}


def test_run_print_masks_the_url_password_and_a_password_query_value(
    user_config: Path
) -> None:
    """Planted by hand, printing `spec.url` as resolved (not masked) in `run --print`
    showed both values, and this failed."""
    write_user_config(user_config, '[servers.r]\n'
                      'url = "https://ada:s3cr3tpw@h.example/mcp?password=qu3ryp4ss&x=1"\n')
    printed = run_mcpctl(["run", "r", "--print"])
    assert printed.code == 0, printed.err
    assert "s3cr3tpw" not in printed.out + printed.err
    assert "qu3ryp4ss" not in printed.out + printed.err
    assert printed.out.startswith("https://ada:***@h.example/mcp?password=")
