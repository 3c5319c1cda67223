"""Issue 11's attack classes end to end: each ran changed code while `list` said `trusted`.

Each case approves a benign workspace, runs it (the control: the approved code runs),
then makes the change the attack needs. The same command run directly, without
mcpctl, proves the change would run (its marker appears); through mcpctl the server
is `changed` and `run` refuses with exit 4, and the marker never appears.
"""

from __future__ import annotations

import json
import os
import py_compile
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.components import require_program
from tests.pinning.repos import git, git_repo
from tests.pinning.workspace_cli import mcpctl, state

PYTHON = sys.executable
JS = 'require("fs").writeFileSync("MARKER", "")\n'
PY = "open('MARKER', 'w').close()\n"
SH = "touch 'MARKER'\n"
LOCALPKG = '{"name": "localpkg", "version": "1.0.0", "bin": {"localpkg": "cli.js"}}'


@pytest.fixture(autouse=True)
def _quiet_npm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("npm_config_update_notifier", "false")


@dataclass(frozen=True)
class Attack:
    server: dict[str, Any]
    before: dict[str, str]  # relative path → text; MARKER is where it proves it ran
    after: dict[str, str]  # what the repo adds or changes after approval
    git: bool = False  # a work tree (Python's own bytecode is left out of it)
    control: bool = True  # the approved server can run here (offline)


ATTACKS: dict[str, tuple[Attack, str]] = {
    # Module resolution: the literal path does not exist, Node finds the file.
    "node-extension": (Attack({"command": "node", "args": ["server"]},
                              {"server.js": JS}, {"server.js": JS}), "node"),
    "require-no-extension": (Attack({"command": "node", "args": ["--require", "./hook", "s.js"]},
                                    {"hook.js": "", "s.js": ""}, {"hook.js": JS}), "node"),
    "node-options-quoted": (Attack({"command": "node", "args": ["s.js"],
                                    "env": {"NODE_OPTIONS": '--require "./hook.js"'}},
                                   {"hook.js": "", "s.js": ""}, {"hook.js": JS}), "node"),
    # Code loaded indirectly.
    "stdlib-shadow": (Attack({"command": PYTHON, "args": ["srv.py"]},
                             {"srv.py": "import json\n"}, {"json.py": PY}, git=True), "python3"),
    "sourced-script": (Attack({"command": "bash", "args": ["main.sh"]},
                              {"main.sh": ". ./lib.sh\n", "lib.sh": "true\n"},
                              {"lib.sh": SH}), "bash"),
    "bash-c": (Attack({"command": "bash", "args": ["-c", "bash ./x.sh"]},
                      {"x.sh": "true\n"}, {"x.sh": SH}), "bash"),
    "python-c-exec": (Attack({"command": PYTHON, "args": ["-c", "exec(open('x.py').read())"]},
                             {"x.py": "pass\n"}, {"x.py": PY}, git=True), "python3"),
    # Project launchers.
    "npm-run": (Attack({"command": "npm", "args": ["run", "--silent", "x"]},
                       {"package.json": '{"scripts": {"x": "node s.js"}}', "s.js": ""},
                       {"s.js": JS}), "npm"),
    "make": (Attack({"command": "make", "args": ["-s", "x"]},
                    {"Makefile": "x:\n\t@true\n"}, {"Makefile": "x:\n\t@touch 'MARKER'\n"}),
             "make"),
    # The interpreter's environment.
    "pythonpath-sitecustomize": (Attack({"command": PYTHON, "args": ["-c", "pass"],
                                         "env": {"PYTHONPATH": "lib"}},
                                        {"lib/README": ""}, {"lib/sitecustomize.py": PY},
                                        git=True), "python3"),
    # The repo's .npmrc injects code even into a local package run by npx.
    "npmrc-node-options": (Attack({"command": "npx", "args": ["-y", "./localpkg"]},
                                  {"localpkg/package.json": LOCALPKG,
                                   "localpkg/cli.js": "#!/usr/bin/env node\n"},
                                  {".npmrc": "node-options=--require ./hook.js\n",
                                   "hook.js": JS}), "npx"),
}


def write_files(root: Path, files: dict[str, str], marker: Path) -> None:
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text.replace("MARKER", str(marker)))


def make_root(tmp_path: Path, attack: Attack) -> Path:
    root = tmp_path / "repo"
    if attack.git:
        git_repo(root, {".gitignore": "__pycache__/\n"})
    else:
        (root / ".git").mkdir(parents=True)
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": attack.server}}))
    return root


def direct(root: Path, server: dict[str, Any]) -> None:
    """The server's command as a client would start it, without mcpctl."""
    subprocess.run([server["command"], *server.get("args", [])], cwd=root,
                   env={**os.environ, **server.get("env", {})}, capture_output=True,
                   timeout=120, check=False)


@pytest.mark.parametrize("label", list(ATTACKS))
def test_a_change_anywhere_in_the_workspace_is_refused(tmp_path: Path, label: str) -> None:
    attack, program = ATTACKS[label]
    require_program(program)  # a skip locally, a failure on CI
    root = make_root(tmp_path, attack)
    approved, evil = tmp_path / "approved-ran", tmp_path / "evil-ran"
    write_files(root, attack.before, approved)
    if attack.git:
        git(root, "add", "-A")
        git(root, "commit", "-qm", "approved")
    assert mcpctl(root, "trust", "srv", "--yes").code == 0
    run = mcpctl(root, "run", "srv")
    assert (run.code, run.err) == (0, "")
    assert state(root, "srv")[0] == "trusted"
    write_files(root, attack.after, evil)
    direct(root, attack.server)
    assert evil.exists(), "the attack must work without mcpctl"
    evil.unlink()
    assert state(root, "srv")[0] == "changed"
    refused = mcpctl(root, "run", "srv")
    assert (refused.code, refused.out) == (4, "")
    assert refused.err.startswith("mcpctl: error: server 'srv' changed since it was approved (")
    assert not evil.exists()


def test_committed_unchecked_bytecode_is_pinned(tmp_path: Path) -> None:
    """An unchecked-hash .pyc replaces the reviewed source whatever the source says."""
    root = git_repo(tmp_path / "repo", {"mod.py": "pass\n"})
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": {
        "command": PYTHON, "args": ["-c", "import mod"],
        "env": {"PYTHONDONTWRITEBYTECODE": "1"}}}}))
    evil = tmp_path / "evil-ran"
    assert mcpctl(root, "trust", "srv", "--yes").code == 0
    assert mcpctl(root, "run", "srv").code == 0
    (root / "evil.py").write_text(PY.replace("MARKER", str(evil)))
    pyc = root / "__pycache__" / f"mod.{sys.implementation.cache_tag}.pyc"
    py_compile.compile(str(root / "evil.py"), cfile=str(pyc),
                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    (root / "evil.py").unlink()
    git(root, "add", "-A")
    git(root, "commit", "-qm", "bytecode")
    direct(root, {"command": PYTHON, "args": ["-c", "import mod"]})
    assert evil.exists()
    evil.unlink()
    assert state(root, "srv")[0] == "changed"
    assert mcpctl(root, "run", "srv").code == 4
    assert not evil.exists()


def test_a_committed_venv_pth_file_is_pinned(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    subprocess.run([PYTHON, "-m", "venv", "--without-pip", str(root / ".venv")], check=True,
                   timeout=120)
    python = str(root / ".venv" / "bin" / "python")
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": {
        "command": python, "args": ["-c", "pass"]}}}))
    evil = tmp_path / "evil-ran"
    assert mcpctl(root, "trust", "srv", "--yes").code == 0
    assert mcpctl(root, "run", "srv").code == 0
    [site] = (root / ".venv" / "lib").glob("python*/site-packages")
    (site / "evil.pth").write_text(f"import os; open({str(evil)!r}, 'w').close()\n")
    direct(root, {"command": python, "args": ["-c", "pass"]})
    assert evil.exists()
    evil.unlink()
    assert state(root, "srv")[0] == "changed"
    assert mcpctl(root, "run", "srv").code == 4
    assert not evil.exists()
