"""The pinning attacks end to end: approve a server, then swap the workspace code behind
it. Each case is a way a launch reaches code that pinning once missed (variables, PATH,
code-loading options and env, modules and program folders, the bounds); each shows the
approved code run (the control), then `list` says `changed` and `mcpctl run` refuses
with exit 4 — and a marker file the swapped code would write proves nothing started.
"""

from __future__ import annotations

import json
import os
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from mcpctl.pinning.digests import MAX_BYTES, MAX_FILES
from mcpctl.pinning.workspace import MAX_BYTES as WORKSPACE_BYTES
from tests.cli.test_run import workspace_with
from tests.components import require_program
from tests.conftest import Result, run_mcpctl
from tests.pinning.repos import git_repo

PYTHON = sys.executable
SH = "touch 'MARKER'\n"
JS = 'require("fs").writeFileSync("MARKER", "")\n'
PY = "open('MARKER', 'w').close()\n"
# A program that loads code named by its options' values, like many do (`-rFILE`,
# `--rcfile=FILE`); it lives outside the workspace, so only what it loads is at stake.
LOADER = '''\
import subprocess, sys
for arg in sys.argv[1:]:
    if arg.startswith("-r"):
        subprocess.run(["sh", arg[2:]], check=True)
    elif arg.startswith("--rcfile="):
        subprocess.run(["sh", arg.partition("=")[2]], check=True)
'''


@dataclass(frozen=True)
class Attack:
    server: dict[str, Any]  # "ROOT" and "LOADER" in values are replaced
    files: dict[str, str]  # relative path → text; "MARKER" is where the code proves it ran
    swapped: str  # the file the repo swaps after approval
    env: dict[str, str] = field(default_factory=dict)  # the client's environment for mcpctl
    pinned: str = ""  # the pinned path that changes, when not `swapped` (a program folder)
    executable: tuple[str, ...] = ()


ATTACKS: dict[str, Attack] = {
    # A1: variables the launch expands used to hide a path from pinning.
    "default-value": Attack({"command": "bash", "args": ["${NOPE:-evil.sh}"]},
                            {"evil.sh": SH}, "evil.sh"),
    "env-var": Attack({"command": "bash", "args": ["${PWD}/evil.sh"]}, {"evil.sh": SH},
                      "evil.sh", env={"PWD": "ROOT"}),
    "basename": Attack({"command": "bash", "args": ["../${workspaceFolderBasename}/evil.sh"]},
                       {"evil.sh": SH}, "evil.sh"),
    "cwd-variable": Attack({"command": "bash", "args": ["server.sh"], "cwd": "${NOPE:-sub}"},
                           {"sub/server.sh": SH}, "sub/server.sh"),
    # A2: the program the child's PATH finds.
    "server-path": Attack({"command": "fakenode", "env": {"PATH": "bin:/usr/bin:/bin"}},
                          {"bin/fakenode": "#!/bin/sh\n" + SH}, "bin/fakenode",
                          executable=("bin/fakenode",)),
    "user-path-dot": Attack({"command": "fakenode"}, {"fakenode": "#!/bin/sh\n" + SH},
                            "fakenode", env={"PATH": ".:" + os.environ["PATH"]},
                            executable=("fakenode",)),
    "user-path-relative": Attack({"command": "fakenode"},
                                 {"tools/fakenode": "#!/bin/sh\n" + SH}, "tools/fakenode",
                                 env={"PATH": os.environ["PATH"] + ":tools"},
                                 executable=("tools/fakenode",)),
    # A3: options and env values that load code, modules, program folders.
    "require-equals": Attack({"command": "node", "args": ["--require=./hook.js", "server.js"]},
                             {"hook.js": JS, "server.js": ""}, "hook.js"),
    "import-equals": Attack({"command": "node", "args": ["--import=./x.mjs", "server.js"]},
                            {"x.mjs": JS.replace("require(\"fs\")", "(await import('fs'))"),
                             "server.js": ""}, "x.mjs"),
    "joined-short-option": Attack({"command": PYTHON, "args": ["LOADER", "-r./hook.sh"]},
                                  {"hook.sh": SH}, "hook.sh"),
    "rcfile-equals": Attack({"command": PYTHON, "args": ["LOADER", "--rcfile=./x.sh"]},
                            {"x.sh": SH}, "x.sh"),
    "node-options": Attack({"command": "node", "args": ["server.js"],
                            "env": {"NODE_OPTIONS": "--require ./hook.js"}},
                           {"hook.js": JS, "server.js": ""}, "hook.js"),
    "node-options-in-env-file": Attack({"command": "node", "args": ["server.js"],
                                        "envFile": ".env"},
                                       {".env": "NODE_OPTIONS=--require ./hook.js\n",
                                        "hook.js": JS, "server.js": ""}, "hook.js"),
    "bash-env": Attack({"command": "bash", "args": ["server.sh"],
                        "env": {"BASH_ENV": "./evil.sh"}},
                       {"server.sh": "true\n", "evil.sh": SH}, "evil.sh"),
    "python-m-module": Attack({"command": PYTHON, "args": ["-m", "evilmod"]},
                              {"evilmod.py": PY}, "evilmod.py"),
    "python-m-package": Attack({"command": PYTHON, "args": ["-m", "evilpkg.tool"]},
                               {"evilpkg/__init__.py": "", "evilpkg/tool/__init__.py": "",
                                "evilpkg/tool/__main__.py": PY}, "evilpkg/tool/__main__.py"),
    "python-folder": Attack({"command": PYTHON, "args": ["srvdir"]},
                            {"srvdir/__main__.py": "import helper\n", "srvdir/helper.py": PY},
                            "srvdir/helper.py", pinned="srvdir/"),
    "node-dot": Attack({"command": "node", "args": ["."]},
                       {"package.json": '{"main": "lib/index.js"}\n', "lib/index.js": JS},
                       "lib/index.js", pinned="./"),
}
NODE_ATTACKS = {"require-equals", "import-equals", "node-options", "node-options-in-env-file",
                "node-dot"}


def mcpctl(root: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    """As a client starts it: from the workspace, with the client's environment."""
    return run_mcpctl([*args, "--workspace", str(root)], cwd=root, env=env)


def state(root: Path, name: str, env: dict[str, str] | None = None) -> tuple[str, str]:
    rows = json.loads(mcpctl(root, "list", "--json", env=env).out)["servers"]
    [row] = [r for r in rows if r["name"] == name]
    return row["state"], row["note"]


def substituted(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        for name, text in names.items():
            value = value.replace(name, text)
        return value
    if isinstance(value, list):
        return [substituted(item, names) for item in value]
    if isinstance(value, dict):
        return {key: substituted(item, names) for key, item in value.items()}
    return value


@pytest.mark.parametrize("label", list(ATTACKS))
def test_swapping_the_code_behind_an_approved_server_is_refused(
    tmp_path: Path, label: str
) -> None:
    if label in NODE_ATTACKS:
        require_program("node")  # on CI a missing node fails these cases, never skips
    attack = ATTACKS[label]
    loader = tmp_path / "loader.py"
    loader.write_text(LOADER)
    root = tmp_path / "repo"
    names = {"ROOT": str(root), "LOADER": str(loader)}
    workspace_with(tmp_path, {"srv": substituted(attack.server, names)})
    approved, evil = tmp_path / "approved-ran", tmp_path / "evil-ran"
    for relative, text in attack.files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text.replace("MARKER", str(approved)))
    for relative in attack.executable:
        (root / relative).chmod(0o755)
    env = substituted(attack.env, names)
    assert mcpctl(root, "trust", "srv", "--yes", env=env).code == 0
    # The control: the approved command line runs the approved code.
    control = mcpctl(root, "run", "srv", env=env)
    assert (control.code, control.err) == (0, "")
    assert approved.exists()
    # The attack: the repo swaps the code; the command line is untouched.
    (root / attack.swapped).write_text(attack.files[attack.swapped].replace("MARKER", str(evil)))
    pinned = attack.swapped  # the whole workspace is pinned: the file itself is named
    assert state(root, "srv", env) == ("changed", f"file {pinned} modified")
    result = mcpctl(root, "run", "srv", env=env)
    assert (result.code, result.out) == (4, "")
    assert result.err == (
        f"mcpctl: error: server 'srv' changed since it was approved (file {pinned} "
        f"modified); review the change with: mcpctl trust srv --workspace {root}\n")
    assert not evil.exists()


def test_run_from_a_subfolder_runs_what_was_pinned_at_the_root(tmp_path: Path) -> None:
    """A client started in a subfolder must not make `bash server.sh` mean sub/server.sh."""
    root = workspace_with(tmp_path, {"srv": {"command": "bash", "args": ["server.sh"]}})
    approved, evil = tmp_path / "approved-ran", tmp_path / "evil-ran"
    (root / "server.sh").write_text(SH.replace("MARKER", str(approved)))
    (root / "sub").mkdir()
    (root / "sub" / "server.sh").write_text(SH.replace("MARKER", str(evil)))
    assert mcpctl(root, "trust", "srv", "--yes").code == 0
    result = run_mcpctl(["run", "srv"], cwd=root / "sub")
    assert (result.code, result.err) == (0, "")
    assert approved.exists()
    assert not evil.exists()


# ---- A4: past a bound, the server is unpinnable: never approved, never started -----------

def unpinnable(name: str, reason: str) -> str:
    return (f"server {name!r} is unpinnable: mcpctl cannot pin all the workspace code it could "
            f"run ({reason}), so a swapped file could go unnoticed; it is not started or "
            f"approved until that changes (see: mcpctl show {name})")


def test_a_file_created_after_approval_is_a_change(tmp_path: Path) -> None:
    """A server that sources whatever scripts exist: the 33rd appearing used to be dropped
    silently past the named-file bound; the whole workspace is pinned now."""
    scripts = [f"a{i:02d}.sh" for i in range(1, MAX_FILES + 1)]
    root = workspace_with(tmp_path, {"srv": {"command": "bash", "args": ["main.sh", *scripts]}})
    approved, evil = tmp_path / "approved-ran", tmp_path / "evil-ran"
    (root / "main.sh").write_text(SH.replace("MARKER", str(approved)) +
                                  'for f in "$@"; do if [ -f "$f" ]; then . "./$f"; fi; done\n')
    for script in scripts[:-1]:
        (root / script).write_text("true\n")
    assert mcpctl(root, "trust", "srv", "--yes").code == 0
    assert mcpctl(root, "run", "srv").code == 0
    assert approved.exists()
    (root / scripts[-1]).write_text(SH.replace("MARKER", str(evil)))
    listed = state(root, "srv")
    assert listed[0] == "changed"
    assert listed[1].endswith("(+1 more)")
    shown = json.loads(mcpctl(root, "show", "srv", "--json").out)["definitions"][0]
    assert shown["changes"][-1] == f"file {scripts[-1]} added"
    result = mcpctl(root, "run", "srv")
    assert (result.code, result.out) == (4, "")
    assert not evil.exists()


def test_a_big_file_is_pinned_by_content_and_a_same_size_swap_is_refused(
    tmp_path: Path
) -> None:
    """It used to be pinned as `unhashed:size=N`: a same-size swap went unnoticed."""
    root = workspace_with(tmp_path, {"srv": {"command": "bash", "args": ["big.sh"]}})
    approved, evil = tmp_path / "approved-ran", tmp_path / "evil-ran"

    def big_script(marker: Path) -> None:
        (root / "big.sh").write_text(f"touch '{marker}'\nexit 0\n")
        os.truncate(root / "big.sh", MAX_BYTES + 1)  # past the named-file bound, hashed

    big_script(approved)
    assert mcpctl(root, "trust", "srv", "--yes").code == 0
    assert mcpctl(root, "run", "srv").code == 0
    assert approved.exists()
    big_script(evil)  # the same size, other code
    assert state(root, "srv") == ("changed", "file big.sh modified")
    result = mcpctl(root, "run", "srv")
    assert (result.code, result.out) == (4, "")
    assert not evil.exists()


def test_past_the_workspace_byte_bound_the_server_is_unpinnable(tmp_path: Path) -> None:
    root = workspace_with(tmp_path, {"srv": {"command": "bash", "args": ["run.sh"]}})
    evil = tmp_path / "evil-ran"
    (root / "run.sh").write_text(SH.replace("MARKER", str(evil)))
    (root / "huge.bin").touch()
    os.truncate(root / "huge.bin", WORKSPACE_BYTES)  # sparse: never read, only counted
    total = sum(path.stat().st_size for path in root.rglob("*") if path.is_file())
    assert total > WORKSPACE_BYTES
    reason = f"{total:,} bytes in the workspace; mcpctl hashes at most 4 GiB"
    trusted = mcpctl(root, "trust", "srv", "--yes")
    assert (trusted.code, trusted.err) == (4, f"mcpctl: error: {unpinnable('srv', reason)}\n")
    assert state(root, "srv") == ("unpinnable", reason)
    result = mcpctl(root, "run", "srv")
    assert (result.code, result.out, result.err) == (
        4, "", f"mcpctl: error: {unpinnable('srv', reason)}\n")
    stale = json.loads(run_mcpctl(["revoke", "--stale", "--json"]).out)["revoked"]
    assert stale == []  # never approved, so nothing to forget
    assert not evil.exists()


# ---- defence in depth: the resolved launch is pinned again -------------------------------

@pytest.mark.usefixtures("secret_service")
@pytest.mark.parametrize("command", ["run", "cost"])
def test_an_ignored_file_named_only_through_a_secret_is_refused_at_launch(
    tmp_path: Path, command: str
) -> None:
    """Status-time pinning cannot see inside `${secret:…}`, and an ignored file that is not
    code by its name or mode is not in the workspace set; the launch pins what it
    resolved, and refuses."""
    name = f"where-{uuid.uuid4().hex[:8]}"
    assert run_mcpctl(["secret", "set", name, "--stdin"], stdin="sub\n").code == 0
    root = git_repo(tmp_path / "repo", {".gitignore": "sub/\n"})
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": {
        "command": "bash", "args": [f"${{secret:{name}}}/run"]}}}))
    evil = tmp_path / "evil-ran"
    (root / "sub").mkdir()
    (root / "sub" / "run").write_text(SH.replace("MARKER", str(evil)))
    assert mcpctl(root, "trust", "srv", "--yes").code == 0
    assert state(root, "srv") == ("trusted", "")
    result = mcpctl(root, command, "srv")
    message = ("server 'srv' not started: its resolved command line reaches workspace file "
               f"sub/run, which was not pinned when it was approved; review it with: "
               f"mcpctl trust srv --workspace {root}")
    assert result.code == 4
    if command == "run":
        assert (result.out, result.err) == ("", f"mcpctl: error: {message}\n")
    else:
        assert message in result.out
    assert not evil.exists()
