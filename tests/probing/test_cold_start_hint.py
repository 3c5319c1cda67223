"""A probe that times out before a package runner's first answer says a first download
may be the cause and how to wait longer (issue 26 item 6); other commands do not."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.conftest import run_mcpctl

HINT = ("(npx's first start may be downloading the package: wait longer with --timeout 180, "
        "or set `timeout = 180` on the server in config.toml, or start it once by hand to "
        "fill the cache)")


def silent(path: Path) -> Path:
    """A program that never answers, as a cold runner seems while it downloads."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!{sys.executable}\nimport time\ntime.sleep(60)\n")
    path.chmod(0o755)
    return path


@pytest.mark.parametrize(("program", "hinted"), [("npx", True), ("slowserver", False)])
def test_a_timeout_before_the_first_answer_of_a_runner_carries_the_hint(
    program: str, hinted: bool, tmp_path: Path
) -> None:
    folder = silent(tmp_path / "bin" / program).parent
    env = {"PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}
    assert run_mcpctl(["add", "cold", "--", program, "-y", "some-server@1.0.0"],
                      env=env).code == 0
    for argv in (["cost", "cold", "--timeout", "1", "--json"],
                 ["doctor", "cold", "--timeout", "1", "--json"]):
        done = run_mcpctl(argv, env=env, timeout=120)
        assert done.code == 6, (argv, done.err)
        text = json.dumps(json.loads(done.out))
        assert "timed out after 1.0 s waiting for the first answer" in text, text
        assert (HINT.replace("npx", program) in done.out + done.err) is hinted, argv
