"""Trees delivered with their own `.git` and repositories inside repositories (issue 23,
items 2 and 4), through the CLI.

A tarball or a copy that brings `.git` decides, through its `.gitignore`, what git
lists; a clone never holds an ignored file, a delivered tree can. Each attack is first
shown to work without mcpctl (the marker appears when the server runs directly); under
mcpctl it never does. Without `ignored_loadable` in `workspace._git_paths` the first
stays `trusted`; without the bytecode folder in `launch.child_environment` the second
runs the shipped bytecode; with a git per nested repository (as before) the gitlinks
start thousands of gits and a nested `.gitignore` hides what it names.
"""

from __future__ import annotations

import json
import os
import py_compile
import subprocess
import sys
import time
from pathlib import Path

from mcpctl.pinning.git_index import SETTLED_NS
from tests.components import require_program
from tests.pinning.repos import git, git_repo
from tests.pinning.workspace_cli import mcpctl, state

PY = "open({marker!r}, 'w').close()\n"


def python_server(root: Path) -> None:
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": {
        "command": sys.executable, "args": ["srv.py"]}}}))


def test_an_ignored_module_a_delivered_tree_brings_is_pinned(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {".gitignore": "vendor/\n", "srv.py":
                                        "import sys; sys.path.insert(0, 'vendor')\n"
                                        "import extra\n"})
    python_server(root)
    (root / "vendor").mkdir()
    (root / "vendor" / "extra.py").write_text("# benign\n")
    assert mcpctl(root, "trust", "srv", "--yes").code == 0
    marker = tmp_path / "ignored-ran"
    (root / "vendor" / "extra.py").write_text(PY.format(marker=str(marker)))
    subprocess.run([sys.executable, "srv.py"], cwd=root, check=True, timeout=60)
    assert marker.exists()  # the server loads what git ignores
    marker.unlink()
    assert state(root) == ("changed", "file vendor/extra.py modified")
    result = mcpctl(root, "run", "srv")
    assert (result.code, result.out) == (4, "")
    assert not marker.exists()


def shipped_bytecode(root: Path, module: str, evil: str) -> None:
    """`__pycache__` bytecode of `evil` that Python accepts for the benign `module.py`:
    its header carries the benign source's mtime and size, as a tarball can."""
    source = root / f"{module}.py"
    evil_source = root.parent / f"{module}.py"
    evil_source.write_text(evil)
    cache = root / "__pycache__" / f"{module}.{sys.implementation.cache_tag}.pyc"
    cache.parent.mkdir(exist_ok=True)
    py_compile.compile(str(evil_source), cfile=str(cache), doraise=True)
    status = source.stat()
    data = bytearray(cache.read_bytes())
    data[8:12] = int(status.st_mtime).to_bytes(4, "little")
    data[12:16] = (status.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    cache.write_bytes(bytes(data))
    evil_source.unlink()


def test_bytecode_a_delivered_tree_ships_is_never_loaded(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {".gitignore": "__pycache__/\n",
                                        "srv.py": "import helper\n", "helper.py": "# benign\n"})
    python_server(root)
    marker = tmp_path / "bytecode-ran"
    shipped_bytecode(root, "helper", PY.format(marker=str(marker)))
    direct = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}
    subprocess.run([sys.executable, "srv.py"], cwd=root, check=True, timeout=60, env=direct)
    assert marker.exists()  # Python ran the shipped bytecode, not the reviewed source
    marker.unlink()
    assert mcpctl(root, "trust", "srv", "--yes").code == 0
    assert state(root) == ("trusted", "")
    result = mcpctl(root, "run", "srv", env={"PYTHONPYCACHEPREFIX": ""})
    assert result.code == 0, result
    assert not marker.exists()


def counting_git(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A PATH whose first git logs each start, then runs the real one."""
    real = subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True,
                          check=True).stdout.strip()
    folder, log = tmp_path / "bin", tmp_path / "git-starts"
    folder.mkdir()
    (folder / "git").write_text(f'#!/bin/sh\necho x >> "{log}"\nexec "{real}" "$@"\n')
    (folder / "git").chmod(0o755)
    return {"PATH": f"{folder}:{os.environ['PATH']}"}, log


def starts(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_empty_gitlinks_start_no_git_of_their_own(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"srv.py": "print()\n"})
    sha = git(root, "rev-parse", "HEAD").strip()
    links = "".join(f"160000 {sha}\tlink{index}\n" for index in range(500))
    subprocess.run(["git", "-C", str(root), "update-index", "--index-info"], input=links,
                   text=True, check=True, timeout=60)
    for index in range(500):
        (root / f"link{index}").mkdir()
    python_server(root)
    env, log = counting_git(tmp_path)
    assert mcpctl(root, "trust", "srv", "--yes", env=env).code == 0
    log.unlink()
    assert state(root, env=env) == ("trusted", "")
    # The root's gits (four, or three while its index is settled and as it was: its path
    # list is not read again, issue 24); none for a folder without `.git`.
    assert starts(log) in (3, 4)


def test_nested_repositories_start_no_git_and_their_gitignore_hides_nothing(
    tmp_path: Path
) -> None:
    root = git_repo(tmp_path / "repo", {"srv.py": "print()\n"})
    for index in range(50):
        git_repo(root / f"inner{index}", {"a.py": "a\n", ".gitignore": "hidden.py\n"})
    (root / "inner0" / "hidden.py").write_text("# benign\n")
    (root / "inner0" / "node_modules").mkdir()  # what a tool makes: left out
    (root / "inner0" / "node_modules" / "x.js").write_text("x\n")
    python_server(root)
    env, log = counting_git(tmp_path)
    assert mcpctl(root, "trust", "srv", "--yes", env=env).code == 0
    log.unlink()
    assert state(root, env=env) == ("trusted", "")
    assert starts(log) in (3, 4)  # the root's (see above); a repository inside is walked
    (root / "inner0" / "node_modules" / "x.js").write_text("y\n")
    assert state(root) == ("trusted", "")
    (root / "inner0" / "hidden.py").write_text("# changed\n")
    assert state(root) == ("changed", "file inner0/hidden.py modified")


def test_nested_repositories_within_the_bound_are_listed(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo", {"srv.py": "print()\n"})
    git_repo(root / "inner", {"a.py": "a\n"})
    python_server(root)
    assert mcpctl(root, "trust", "srv", "--yes").code == 0
    (root / "inner" / "a.py").write_text("changed\n")
    assert state(root) == ("changed", "file inner/a.py modified")


def test_a_link_to_a_large_outside_file_is_read_once(tmp_path: Path) -> None:
    """Its target's digest is cached like a file's (issue 23, item 9): the second `list`
    opens it no more (strace sees every open); changing it is still a change. Without
    `_Hasher._target` every command reads the target again."""
    require_program("strace")
    outside = tmp_path / "data.bin"
    outside.write_bytes(b"\1" * (8 * 1024 * 1024))
    # A file written moments before it is hashed is hashed again until it has settled
    # (the racy rule, `git_index.SETTLED_NS`), a link's target too.
    time.sleep(SETTLED_NS / 1e9 + 0.1)
    root = git_repo(tmp_path / "repo", {"srv.py": "print()\n"})
    (root / "big").symlink_to(outside)
    git(root, "add", "big")
    git(root, "commit", "-qm", "link")
    python_server(root)
    assert mcpctl(root, "trust", "srv", "--yes").code == 0
    assert state(root) == ("trusted", "")  # the cache holds the target's row now
    log = tmp_path / "opens"
    traced = subprocess.run(
        ["strace", "-f", "-qq", "-e", "trace=open,openat", "-o", str(log), sys.executable,
         "-m", "mcpctl", "list", "--json", "--workspace", str(root)],
        capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path)
    assert traced.returncode == 0, traced.stderr
    assert json.loads(traced.stdout)["servers"][0]["state"] == "trusted"
    assert str(outside) not in log.read_text()
    with outside.open("r+b") as handle:  # same size; the ctime moves
        handle.write(b"\2")
    assert state(root) == ("changed", "file big modified")


def test_a_gitlink_that_is_a_link_out_is_not_walked(tmp_path: Path) -> None:
    """A gitlink's folder swapped for a symlink to a folder outside: digested as a link
    (unpinnable), never walked as if its files were the workspace's."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.py").write_text("x\n")
    root = git_repo(tmp_path / "repo", {"srv.py": "print()\n"})
    sha = git(root, "rev-parse", "HEAD").strip()
    git(root, "update-index", "--add", "--cacheinfo", f"160000,{sha},vendor")
    (root / "vendor").symlink_to(outside)
    python_server(root)
    assert mcpctl(root, "trust", "srv", "--yes").code == 4
    row_state, note = state(root)
    assert row_state == "unpinnable"
    assert note.startswith("vendor: a symlink to a folder outside the workspace")


def test_an_ignored_virtual_environment_of_any_name_is_not_pinned(tmp_path: Path) -> None:
    """A folder holding `pyvenv.cfg` is a virtual environment whatever its name: what
    the user's own pip installs there is the residual the threat model states, so it
    never reads `changed`, while an ignored module beside it still does. With the
    `pyvenv.cfg` check of `ignored_loadable` dropped, the install reads `changed`."""
    root = git_repo(tmp_path / "repo", {".gitignore": "env311/\nvendor/\n",
                                        "srv.py": "print(1)\n"})
    python_server(root)
    site = root / "env311" / "lib" / "site-packages"
    site.mkdir(parents=True)
    (root / "env311" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (site / "dep.py").write_text("# 1.0\n")
    (root / "vendor").mkdir()
    (root / "vendor" / "extra.py").write_text("# benign\n")
    assert mcpctl(root, "trust", "srv", "--yes").code == 0
    (site / "dep.py").write_text("# 1.1\n")
    (site / "added.py").write_text("")
    assert state(root)[0] == "trusted"
    (root / "vendor" / "extra.py").write_text("# changed\n")
    assert state(root) == ("changed", "file vendor/extra.py modified")
