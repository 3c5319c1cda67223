"""The invocation's facts (environment, home, current folder, OS) are read once, into
one `Machine`, and passed down (issue 10): a module that reads them on its own could
pin files with one environment and launch with another."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from mcpctl.machine import Machine, os_name
from mcpctl.paths import Paths

PACKAGE = Path(__file__).resolve().parent.parent / "mcpctl"

# Who may still read them, and why.
ALLOWED = {
    "machine.py": "builds the Machine",
    "cli/context.py": "finds the workspace root and mcpctl's paths to build the Machine",
    "cli/run_start.py": "`run --guard`: the server and folder the guard's entry names (its "
                        "env, else the client's folder), which decide the Machine's root",
    "cli/handler.py": "the crash log's folder, when building the Machine may have failed",
    "cli/render.py": "paths shown relative to the current folder or ~",
    "lint/__init__.py": "check's fast path: the workspace root from the current folder",
    "paths.py": "~ in MCPCTL_HOME",
    "launch.py": "~ in a server's cwd or envFile (Path.expanduser)",
    "config/user_config.py": "~ in a per-workspace server's `workspace`, as launch.py's cwd",
    "clients/folder_trust.py": "~ in Gemini's trustedFolders.json entries, as Gemini reads them",
    "protocol/process.py": "whether the platform has a child subreaper (Linux)",
    "clients/exported_command.py": "the PATH mcpctl was started with, for an mcpctl outside "
                                   "any checkout (the default exported command, as sys.argv)",
    "files/atomic.py": "the platform's way to lock a file",
    "cli/completion.py": "whether a shell asked for completions (_MCPCTL_COMPLETE)",
    "cli/top_help.py": "its generator renders typer's help at 80 columns (COLUMNS)",
    # A comparison only, never a path read: the home folder is not a workspace.
    "config/workspace.py": "~/.cursor/mcp.json is Cursor's own file, not a repo's",
    # The keyring's own configuration, found the way the keyring package finds it.
    "credentials/keyring_store.py": "whether the Secret Service shortcut applies",
    "credentials/secret_service.py": "the D-Bus session and keyringrc, as keyring reads them",
}
READS = {("os", "environ"), ("Path", "home"), ("os", "getcwd"), ("Path", "cwd"),
         ("sys", "platform"), ("os", "getenv"), ("path", "expanduser")}


def reads_in(source: str) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name | ast.Attribute):
            owner = node.value.id if isinstance(node.value, ast.Name) else node.value.attr
            if (owner, node.attr) in READS:
                found.add(f"{owner}.{node.attr}")
        if isinstance(node, ast.Attribute) and node.attr == "expanduser":
            found.add("expanduser")
    return found


def test_only_the_edges_read_the_invocation_facts() -> None:
    readers = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        found = reads_in(path.read_text(encoding="utf-8"))
        if found:
            readers[path.relative_to(PACKAGE).as_posix()] = sorted(found)
    assert set(readers) <= set(ALLOWED), {k: v for k, v in readers.items() if k not in ALLOWED}


def test_the_guard_finds_a_planted_read() -> None:
    assert reads_in("import os\nx = os.environ.get('A')\n") == {"os.environ"}
    assert reads_in("from pathlib import Path\nh = Path.home()\n") == {"Path.home"}
    assert reads_in("import sys\np = sys.platform\n") == {"sys.platform"}


def test_the_machine_is_a_snapshot(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MCPCTL_MACHINE_TEST", "before")
    monkeypatch.chdir(tmp_path)
    paths = Paths.from_environment({"MCPCTL_HOME": str(tmp_path / "h")})
    machine = Machine.current(paths, paths.config_file, tmp_path)
    monkeypatch.setenv("MCPCTL_MACHINE_TEST", "after")
    assert machine.environ["MCPCTL_MACHINE_TEST"] == "before"
    assert (machine.home, machine.cwd) == (Path(os.environ["HOME"]), tmp_path)
    assert machine.os_key == "linux"


def test_os_names() -> None:
    assert [os_name(p) for p in ("linux", "darwin", "win32", "cygwin", "freebsd14")] == \
        ["linux", "macos", "windows", "linux", "linux"]
