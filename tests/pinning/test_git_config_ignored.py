"""The git that pinning runs reads neither the system's nor the user's git
configuration: an `excludesFile` there would hide an untracked script from the
approval (issue 30: planted by hand, dropping `GIT_CONFIG_NOSYSTEM` or
`GIT_CONFIG_GLOBAL` from `git_environment` left the script unpinned, and its change
ran under the approval).

The script is `lib.inc`, a name with no code suffix and no executable bit: an ignored
file that looks like code is pinned anyway (issue 23), so a `lib.sh` stopped telling
the two apart once that was built, and both drops survived the structural run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.components import missing, require_program
from tests.conftest import Result
from tests.pinning.repos import git_repo

SERVER = {"mcpServers": {"srv": {"command": "bash", "args": ["run.sh"]}}}


def repo_with_untracked_script(tmp_path: Path) -> Path:
    root = git_repo(tmp_path / "repo", {".mcp.json": json.dumps(SERVER),
                                        "run.sh": ". ./lib.inc\n"})
    (root / "lib.inc").write_text("true\n")  # untracked, not ignored by the repo
    return root


def excludes(tmp_path: Path) -> Path:
    ignore = tmp_path / "ignore-all-scripts"
    ignore.write_text("lib.inc\n")
    return ignore


def attack(root: Path, tmp_path: Path, mcpctl: list[str]) -> list[Result]:
    """Approve, change the untracked script, then list and run: what mcpctl said."""
    def call(*args: str) -> Result:
        done = subprocess.run([*mcpctl, *args, "--workspace", str(root)], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120, check=False,
                              env=dict(os.environ))
        return Result(done.returncode, done.stdout, done.stderr)

    approved = call("trust", "srv", "--yes")
    (root / "lib.inc").write_text(f"touch {tmp_path / 'MARKER'}\n")
    return [approved, call("list", "--json"), call("run", "srv")]


def check_refused(results: list[Result], tmp_path: Path) -> None:
    approved, listed, ran = results
    assert approved.code == 0, approved.err
    assert json.loads(listed.out)["servers"][0]["state"] == "changed"
    assert ran.code == 4
    assert not (tmp_path / "MARKER").exists()


def test_the_users_git_configuration_hides_nothing(tmp_path: Path) -> None:
    root = repo_with_untracked_script(tmp_path)
    (Path(os.environ["HOME"]) / ".gitconfig").write_text(
        f"[core]\n\texcludesFile = {excludes(tmp_path)}\n")
    # The control: git itself, reading the user's configuration, hides the script.
    shown = subprocess.run(["git", "-C", str(root), "ls-files", "--others",
                            "--exclude-standard"], capture_output=True, text=True,
                           check=True, timeout=60, env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1"})
    assert shown.stdout == ""
    check_refused(attack(root, tmp_path, [sys.executable, "-m", "mcpctl"]), tmp_path)


def test_the_systems_git_configuration_hides_nothing(tmp_path: Path) -> None:
    """The system file is replaced inside a private mount namespace only (an overlay
    over /etc that this test's processes alone see), never on the machine."""
    require_program("unshare")
    if os.geteuid() != 0:
        missing("root, for a private mount namespace over /etc")
    root = repo_with_untracked_script(tmp_path)
    upper, work = tmp_path / "upper", tmp_path / "work"
    upper.mkdir()
    work.mkdir()
    (upper / "gitconfig").write_text(f"[core]\n\texcludesFile = {excludes(tmp_path)}\n")
    script = (f"mount -t overlay overlay -o lowerdir=/etc,upperdir={upper},workdir={work} "
              '/etc && exec "$@"')
    inside = ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh"]
    control = subprocess.run([*inside, "git", "-C", str(root), "ls-files", "--others",
                              "--exclude-standard"], capture_output=True, text=True,
                             check=False, timeout=60)
    assert (control.returncode, control.stdout) == (0, ""), control.stderr
    check_refused(attack(root, tmp_path, [*inside, sys.executable, "-m", "mcpctl"]), tmp_path)
