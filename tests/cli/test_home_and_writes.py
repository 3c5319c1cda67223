"""Exit codes of a home that is not there and a folder that cannot be written (issue 26
item 9): a read-only config folder is exit 8 (cannot write), not 3 (a broken file);
HOME unset or empty is exit 2 with the fix, never a silent write under the account's
home or paths shown as `~/root/…`; `run`, which clients start with whatever
environment they have, still starts its server without HOME.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.components import missing, require_program
from tests.conftest import REPO, run_mcpctl

HOME_FIX = ("mcpctl keeps its files and finds the clients' files in the home folder; set "
            "HOME to that folder")


def read_only(folder: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """mcpctl with `folder` on a read-only file system: a bind mount remounted read-only
    in a mount namespace of its own as root (root writes through any mode), a folder
    without write permission otherwise."""
    command = [sys.executable, "-m", "mcpctl", *argv]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            return subprocess.run(command, capture_output=True, text=True, timeout=60,
                                  check=False, env=env)
        finally:
            folder.chmod(0o755)
    require_program("unshare")
    script = ('mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" || exit 99; '
              'shift; exec "$@"')
    done = subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", str(folder), *command],
                          capture_output=True, text=True, timeout=60, check=False, env=env)
    if done.returncode == 99:
        missing("a mount namespace (unshare -m) for a read-only folder")
    return done


def test_a_read_only_config_folder_is_exit_8_and_changes_nothing(user_config: Path) -> None:
    user_config.parent.mkdir(parents=True)
    user_config.write_text('[servers.a]\ncommand = "x"\n')
    done = read_only(user_config.parent, ["add", "b", "--", "y"])
    assert done.returncode == 8, done.stderr
    assert done.stdout == ""
    assert done.stderr.startswith(f"mcpctl: error: cannot lock {user_config}.lock: ")
    assert "Read-only file system" in done.stderr or "Permission denied" in done.stderr
    assert user_config.read_text() == '[servers.a]\ncommand = "x"\n'
    as_json = read_only(user_config.parent, ["add", "b", "--json", "--", "y"])
    document = json.loads(as_json.stdout)
    assert (document["error"]["type"], document["exit_code"]) == ("cannot_write", 8)


@pytest.mark.parametrize(("home", "state"), [(None, "not set"), ("", "empty"),
                                             ("relative/home", "not absolute ('relative/home')")])
def test_home_unset_or_empty_is_a_usage_error_and_nothing_is_written(
    home: str | None, state: str, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items()
           if k not in ("HOME", "MCPCTL_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME")}
    if home is not None:
        env["HOME"] = home
    work = tmp_path / "work"
    work.mkdir()
    for argv in (["add", "a", "--", "x"], ["list"], ["secret", "list"], ["sync"]):
        done = subprocess.run([sys.executable, "-m", "mcpctl", *argv], cwd=work, env=env,
                              capture_output=True, text=True, timeout=60, check=False)
        assert (done.returncode, done.stdout) == (2, ""), (argv, done.stderr)
        assert done.stderr == f"mcpctl: error: HOME is {state}: {HOME_FIX}\n", argv
    # Nothing written here, nor (the autouse fixture checks) under the account's home.
    assert list(work.iterdir()) == []


def test_run_starts_its_server_without_home(user_config: Path, tmp_path: Path) -> None:
    user_config.parent.mkdir(parents=True)
    user_config.write_text(f'[servers.hello]\ncommand = "{sys.executable}"\n'
                           'args = ["-c", "print(\'started\')"]\n')
    env = {k: v for k, v in os.environ.items() if k != "HOME"}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = subprocess.run([sys.executable, "-m", "mcpctl", "run", "hello"], cwd=elsewhere,
                          env=env, capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout) == (0, "started\n"), done.stderr
    assert run_mcpctl(["list"]).code == 0  # with HOME, as before
