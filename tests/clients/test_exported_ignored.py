"""A path that its work tree's git ignores is not held by that work tree (issue 26 item
5): pyenv is installed as a clone (`~/.pyenv`) whose `.gitignore` leaves out
`versions/`, where the interpreter of a `uv tool` venv lives; exporting from such an
install must not warn that a checkout holds mcpctl. A tracked path there still does.

With `_ignored` in exported_command.py answering False, the first assertion fails with
the warning naming `~/.pyenv`.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from mcpctl.clients.exported_command import ExportedCommand, default_command
from tests.clients.test_exported_command import executable, in_work_tree
from tests.components import require_program


def pyenv_clone(home: Path) -> Path:
    require_program("git")
    root = home / ".pyenv"
    subprocess.run(["git", "init", "-q", str(root)], check=True, timeout=60)
    (root / ".gitignore").write_text("/versions/\n/shims/\n")
    executable(root / "bin" / "pyenv")
    return root


def test_a_uv_tool_install_on_a_pyenv_python_gets_no_warning(tmp_path: Path) -> None:
    home = tmp_path / "home"
    pyenv = pyenv_clone(home)
    python = executable(pyenv / "versions" / "3.11.7" / "bin" / "python3.11")
    tool = home / ".local" / "share" / "uv" / "tools" / "mcpctl"
    venv_python = tool / "bin" / "python"
    venv_python.parent.mkdir(parents=True)
    venv_python.symlink_to(python)
    script = executable(tool / "bin" / "mcpctl", f"#!{venv_python}\n")
    link = home / ".local" / "bin" / "mcpctl"
    link.parent.mkdir(parents=True)
    link.symlink_to(script)
    code = tool / "lib" / "python3.11" / "site-packages" / "mcpctl"
    assert default_command([str(link)], interpreter=str(venv_python), code=str(code),
                           search_path="") == ExportedCommand(str(link))


def test_a_tracked_path_of_the_same_clone_still_warns(tmp_path: Path) -> None:
    home = tmp_path / "home"
    pyenv = pyenv_clone(home)
    script = executable(pyenv / "bin" / "mcpctl")  # not ignored: a pull may change it
    assert default_command([str(script)], interpreter=str(executable(
        tmp_path / "python" / "bin" / "python3")), code=str(tmp_path / "site" / "mcpctl"),
        search_path="") == ExportedCommand(str(script), warning=in_work_tree(script, pyenv))


def test_the_code_folder_is_judged_by_its_own_files(tmp_path: Path) -> None:
    """An installed package in the ignored folder is not held; one the clone tracks (or
    could, untracked and not ignored) is, even with ignored bytecode beside it."""
    home = tmp_path / "home"
    pyenv = pyenv_clone(home)
    (pyenv / ".gitignore").write_text("/versions/\n__pycache__/\n")
    script = executable(home / ".local" / "bin" / "mcpctl")
    python = str(executable(tmp_path / "python" / "bin" / "python3"))
    installed = pyenv / "versions" / "3.11.7" / "lib" / "site-packages" / "mcpctl"
    checkout = pyenv / "src" / "mcpctl"
    for code in (installed, checkout):
        (code / "__pycache__").mkdir(parents=True)
        (code / "__init__.py").write_text("")
        (code / "__pycache__" / "__init__.cpython-311.pyc").write_bytes(b"")
    assert default_command([str(script)], interpreter=python, code=str(installed),
                           search_path="") == ExportedCommand(str(script))
    assert default_command([str(script)], interpreter=python, code=str(checkout),
                           search_path="") == ExportedCommand(
        str(script), warning=in_work_tree(script, pyenv))
