"""`trust --ignore-changes-in DIR` never drops the server's own program (issue 23, item
3): a program folder (`python3 tools/srv`) or a Node path without its extension
(`node tools/srv`) is pinned as the interpreter resolves it, inside an excluded folder
too. Each attack edits the program after approval; run directly, the edit runs (the
marker appears); under mcpctl the server is `changed` and never started. Without the
`_overlaps` term in `pin_set` (folder) or the Node `suffixes` in `interpreters.py`
(extension), each stays `trusted` and runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.components import require_program
from tests.conftest import run_mcpctl
from tests.pinning.workspace_cli import state

PY = "open({marker!r}, 'w').close()\n"
JS = "require('fs').writeFileSync({marker}, '')\n"


@pytest.mark.parametrize(("command", "args", "program"), [
    # `python3 tools/srv` runs the folder
    (sys.executable, ["tools/srv"], "tools/srv/__main__.py"),
    (sys.executable, ["-m", "tools.srv"], "tools/srv.py"),  # a module
    # A module named in a cluster, after an option with its value in the same argument.
    (sys.executable, ["-Wignore", "-mtools.srv"], "tools/srv.py"),
    ("node", ["tools/srv"], "tools/srv.js"),  # `node tools/srv` runs tools/srv.js
    ("node", ["tools/srv"], "tools/srv/index.js"),  # or the folder's index.js
], ids=["python-folder", "python-module", "python-clustered-module", "node-extension",
        "node-index"])
def test_an_excluded_folder_keeps_the_program_pinned(tmp_path: Path, command: str,
                                                     args: list[str], program: str) -> None:
    """Planted by hand: `-m` not known as Python's module option (`interpreters.py:29`:
    the module was taken for a program named `tools.srv`, and the edit ran), and no
    option known to take the rest of its cluster (the clustered module was missed)."""
    if command == "node":
        require_program("node")
    root = tmp_path / "repo"
    (root / program).parent.mkdir(parents=True)
    (root / program).write_text("// benign\n" if command == "node" else "# benign\n")
    (root / "tools" / "notes.md").write_text("notes\n")
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": {
        "command": command, "args": args}}}))
    trusted = run_mcpctl(["trust", "srv", "--yes", "--ignore-changes-in", "tools",
                          "-w", str(root)])
    assert trusted.code == 0, trusted
    (root / "tools" / "notes.md").write_text("edited\n")  # what the exclusion is for
    row = json.loads(run_mcpctl(["list", "--json", "-w", str(root)]).out)["servers"][0]
    assert (row["state"], row["note"]) == ("trusted", "changes in tools/ ignored")
    marker = tmp_path / "program-ran"
    body = JS.format(marker=json.dumps(str(marker))) if command == "node" \
        else PY.format(marker=str(marker))
    (root / program).write_text(body)
    subprocess.run([command, *args], cwd=root, check=True, timeout=60)
    assert marker.exists()  # the interpreter resolved the edited program
    marker.unlink()
    row = json.loads(run_mcpctl(["list", "--json", "-w", str(root)]).out)["servers"][0]
    assert row["state"] == "changed", row
    result = run_mcpctl(["run", "srv", "-w", str(root)])
    assert (result.code, result.out) == (4, "")
    assert not marker.exists()


def test_an_extension_module_of_the_module_is_pinned_and_one_of_another_is_not(
        tmp_path: Path) -> None:
    """`python3 -m tools.srv` loads `tools/srv.abi3.so` before `tools/srv.py`: one added
    in the excluded folder is a change. `tools/srvx.abi3.so` is another module's.
    Planted by hand: the extension matched by the module's name without its dot
    (`paths.py:57`: the other module's extension was pinned as the program)."""
    root = tmp_path / "repo"
    (root / "tools").mkdir(parents=True)
    (root / "tools" / "srv.py").write_text("# benign\n")
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": {
        "command": sys.executable, "args": ["-m", "tools.srv"]}}}))
    assert run_mcpctl(["trust", "srv", "--yes", "--ignore-changes-in", "tools",
                       "-w", str(root)]).code == 0

    (root / "tools" / "srvx.abi3.so").write_bytes(b"another module\n")
    assert state(root) == ("trusted", "changes in tools/ ignored")
    (root / "tools" / "srv.abi3.so").write_bytes(b"loaded first\n")
    assert state(root) == ("changed", 'named: ["tools/srv.py"] → ["tools/srv.abi3.so", '
                                  '"tools/srv.py"] (+1 more)')
