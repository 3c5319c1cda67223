"""The suite's own guards, each shown failing a run that breaks it (issue 16).

A test that leaves a process running, hangs, or eats memory must fail its run clearly
and soon; a missing component must fail on CI. Each case runs a small test file in a
pytest of its own with this suite's conftest as a plugin, and reads the outcome.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.components import missing
from tests.processes import lingering

REPO = Path(__file__).resolve().parent.parent


def run_pytest(tmp_path: Path, code: str, env: dict[str, str] | None = None,
               ) -> subprocess.CompletedProcess[str]:
    test_file = tmp_path / "test_guarded.py"
    test_file.write_text(code, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.conftest",
         "--rootdir", str(tmp_path), "-c", str(REPO / "pyproject.toml"), str(test_file)],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})})


def test_a_test_that_leaves_a_process_running_fails_and_the_process_is_killed(
    tmp_path: Path,
) -> None:
    marker = f"mcpctl-leak-{uuid.uuid4().hex}"
    done = run_pytest(tmp_path, f"""
import subprocess, sys
KEPT = []
def test_leaks():
    KEPT.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)",
                                  "{marker}"]))
""")
    assert done.returncode == 1, done.stdout
    assert "1 passed, 1 error" in done.stdout
    assert "the test left 1 process(es) running, now killed: pid " in done.stdout
    assert marker in done.stdout
    assert not [pid for pid, command in lingering(os.environ["MCPCTL_TEST_SESSION"]).items()
                if marker in command]


def test_a_hanging_test_fails_at_its_timeout(tmp_path: Path) -> None:
    started = time.monotonic()
    done = run_pytest(tmp_path, """
import time, pytest
@pytest.mark.timeout(1)
def test_hangs():
    time.sleep(60)
""")
    assert done.returncode == 1
    assert "Failed: Timeout (>1.0s) from pytest-timeout." in done.stdout
    assert time.monotonic() - started < 30


def test_the_default_timeout_is_set() -> None:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert "\ntimeout = 120\n" in text
    assert '\ntimeout_method = "signal"\n' in text


def test_a_test_that_eats_memory_fails_at_the_bound(tmp_path: Path) -> None:
    started = time.monotonic()
    done = run_pytest(tmp_path, """
def test_grows():
    kept = []
    while True:
        kept.append(b"x" * (8 * 2**20))
""", env={"MCPCTL_TEST_MEMORY_MIB": "400"})
    assert done.returncode == 1
    assert "MemoryBoundExceeded: the test process grew to " in done.stdout
    assert "MiB, past the bound of 400 MiB" in done.stdout
    assert time.monotonic() - started < 60


@pytest.mark.parametrize(("ci", "outcome"), [("true", "1 failed"), ("", "1 skipped")])
def test_a_missing_component_fails_on_ci_and_skips_elsewhere(
    tmp_path: Path, ci: str, outcome: str
) -> None:
    done = run_pytest(tmp_path, """
from tests.components import require_program
def test_needs():
    require_program("mcpctl-no-such-program")
""", env={"CI": ci})
    assert outcome in done.stdout
    assert done.returncode == (1 if ci else 0)
    if ci:
        assert "mcpctl-no-such-program (not on PATH) is missing (.ci/run installs it)" in (
            done.stdout)


def test_missing_raises_the_outcome_of_the_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"^node is missing \(x\)$"):
        missing("node", "x")
    monkeypatch.setenv("CI", "false")
    with pytest.raises(pytest.skip.Exception, match=r"^node is missing \(x\)$"):
        missing("node", "x")


def skips_in(path: Path) -> list[str]:
    """Calls of pytest.skip/importorskip and skipif marks, by line."""
    return [f"{path.relative_to(REPO)}:{node.lineno} {node.attr}"
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Attribute)
            and node.attr in ("skip", "skipif", "importorskip")]


def test_every_skip_goes_through_components() -> None:
    """A bare skip would vanish on CI unnoticed, as the node attack cases once did."""
    files = sorted((REPO / "tests").rglob("*.py"))
    allowed = {REPO / "tests" / "components.py", Path(__file__)}
    found = [skip for path in files if path not in allowed and ".npm" not in path.parts
             for skip in skips_in(path)]
    assert found == []
