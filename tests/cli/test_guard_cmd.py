"""`mcpctl guard`: one mode at a time, each with its own options (issue 22). What each
mode writes is tested with the real clients in tests/clients (test_guard_system.py,
test_guard_off.py, test_codex_requirements.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_mcpctl


@pytest.mark.parametrize(("flags", "said"), [
    ([], "guard: say --system or --off (the user-level guard is `mcpctl sync`)"),
    (["--system", "--off"], "guard: say --system or --off (the user-level guard is `mcpctl "
                            "sync`)"),
    (["--off", "--write"], "guard --off: --write, --root and --command go with --system"),
    (["--off", "--root", "/tmp"], "guard --off: --write, --root and --command go with "
                                  "--system"),
    (["--system", "--dry-run"], "guard --system: --dry-run goes with --off (without --write "
                                "nothing is written)"),
])
def test_guard_needs_one_mode_and_its_own_options(tmp_path: Path, flags: list[str],
                                                  said: str) -> None:
    done = run_mcpctl(["guard", *flags], cwd=tmp_path, timeout=120)
    assert (done.code, done.out, done.err) == (2, "", f"mcpctl: error: {said}\n")
