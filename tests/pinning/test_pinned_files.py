"""Pinned files: the workspace files a server runs are part of its fingerprint."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from mcpctl.model import ServerSpec, Transport
from mcpctl.pinning.digests import MAX_BYTES, MAX_FILES, MAX_TREE_ENTRIES, digests
from mcpctl.pinning.pinned_files import pinned_files, unpinned_reason
from mcpctl.trust.fingerprint import canonical_form, fingerprint_of
from tests.tier_files import make_workspace, write


def digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def stdio(command: str, *args: str, cwd: str | None = None,
          env_file: str | None = None) -> ServerSpec:
    return ServerSpec("s", Transport.STDIO, command=command, args=args, cwd=cwd,
                      env_file=env_file, env={"PATH": "/usr/bin:/bin"})


def test_an_argument_naming_a_workspace_script(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"scripts/server.sh": "#!/bin/sh\necho hi\n"})
    assert pinned_files(stdio("bash", "scripts/server.sh"), root) == [
        ("scripts/server.sh", digest("#!/bin/sh\necho hi\n"))]


def test_command_and_env_file(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"bin/server": "binary", ".env": "A=1\n"})
    spec = stdio("./bin/server", "--port", "1", env_file=".env")
    assert pinned_files(spec, root) == [(".env", digest("A=1\n")), ("bin/server", digest("binary"))]


def test_workspace_folder_variable_is_expanded(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"s.py": "print(1)\n"})
    spec = stdio("python", "${workspaceFolder}/s.py", env_file="${workspaceFolder}/missing")
    assert pinned_files(spec, root) == [("s.py", digest("print(1)\n"))]


def test_relative_to_cwd_then_to_the_root(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"sub/run.sh": "in sub", "tools/t.sh": "at root",
                                     "run.sh": "root run"})
    spec = stdio("bash", "run.sh", "tools/t.sh", cwd="sub")
    assert pinned_files(spec, root) == [
        ("run.sh", digest("root run")), ("sub/run.sh", digest("in sub")),
        ("tools/t.sh", digest("at root"))]
    spec = stdio("bash", "run.sh", cwd="${workspaceFolder}/sub")
    assert ("sub/run.sh", digest("in sub")) in pinned_files(spec, root)


def test_symlinks_are_followed(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"scripts/real.sh": "real"})
    os.symlink("scripts/real.sh", root / "link.sh")
    write(tmp_path / "outside.sh", "outside")
    os.symlink(tmp_path / "outside.sh", root / "escape.sh")
    spec = stdio("bash", "link.sh", "escape.sh")
    assert pinned_files(spec, root) == [("scripts/real.sh", digest("real"))]


def test_files_outside_the_workspace_are_not_pinned(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {})
    outside = write(tmp_path / "outside.sh", "x")
    spec = stdio(str(outside), "../outside.sh", "/etc/hostname", cwd="..")
    assert pinned_files(spec, root) == []


def test_absolute_path_inside_the_workspace_is_pinned(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"s.sh": "x"})
    assert pinned_files(stdio(str(root / "s.sh")), root) == [("s.sh", digest("x"))]


def test_what_is_not_a_file_to_pin(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"dir/x": "", "-v": "a file named like a flag",
                                     "cfg": "c"})
    os.mkfifo(root / "pipe")
    # `bash` cannot run a folder, so `dir` is no program; HOME is outside the workspace.
    spec = stdio("bash", "dir", "-v", "--config=nope", "${env:HOME}/cfg", "pipe", "nope.sh",
                 "", "--")
    assert pinned_files(spec, root, environ={"HOME": str(tmp_path / "home")}) == []


def test_a_file_swapped_for_a_pipe_before_it_is_read_is_not_pinned(tmp_path: Path) -> None:
    """Pinning found a regular file; by the time it is read it is a FIFO (a repo's script
    swapping it). The digest is taken of what was opened, checked again: a pipe is
    unpinned, never the empty file's digest a read with no writer gives. Planted by
    hand: without the check after the open (`digests.py:63`) `pipe` was pinned as
    empty, and a later writer could feed the server anything."""
    root = make_workspace(tmp_path, {"s.sh": "x"})
    os.mkfifo(root / "pipe")
    assert digests({root / "pipe": False, root / "s.sh": False}, root) == [
        ("pipe", "unpinned:not a regular file any more"), ("s.sh", digest("x"))]


def test_a_long_flag_is_not_a_file_named_without_its_dashes(tmp_path: Path) -> None:
    """`--inspect` is a flag, never the path `inspect`; a short option glued to its value
    (`-rhook.js`) names `hook.js`. Planted by hand: every option without `=` read as
    glued to its value pinned `inspect` too."""
    root = make_workspace(tmp_path, {"inspect": "a file named like the flag", "hook.js": "h"})
    assert pinned_files(stdio("node", "--inspect", "-rhook.js"), root) == [
        ("hook.js", digest("h"))]


def test_remote_servers_pin_nothing(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"x": ""})
    assert pinned_files(ServerSpec("r", Transport.HTTP, url="x"), root) == []


def test_a_root_reached_through_a_symlink(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"s.sh": "x"})
    os.symlink(root, tmp_path / "alias")
    assert pinned_files(stdio("bash", "s.sh"), tmp_path / "alias") == [("s.sh", digest("x"))]


def test_past_max_files_the_set_says_so_and_cannot_be_trusted(tmp_path: Path) -> None:
    names = [f"f{i:02d}.js" for i in range(MAX_FILES + 8)]
    root = make_workspace(tmp_path, {name: name for name in names})
    pinned = pinned_files(stdio("node", *names), root)
    assert pinned == sorted([(name, digest(name)) for name in names[:MAX_FILES]] + [
        (names[MAX_FILES], "unpinned:one of 40 workspace files the server names; mcpctl pins "
                           "at most 32 per server")])
    assert unpinned_reason(pinned) == (
        "f32.js: one of 40 workspace files the server names; mcpctl pins at most 32 per server")
    assert unpinned_reason(pinned[:MAX_FILES]) is None
    assert MAX_FILES == 32


def test_past_the_byte_budget_a_file_is_a_marker_never_a_size(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"a.bin": "", "b.bin": "", "c.txt": "eleven byte",
                                     "small.sh": "s"})
    for name, size in (("a.bin", MAX_BYTES - 10), ("b.bin", MAX_BYTES + 1)):
        with (root / name).open("r+b") as handle:
            handle.truncate(size)  # sparse
    pinned = pinned_files(stdio("x", "small.sh", "c.txt", "b.bin", "a.bin"), root)
    # Hashed in path order against one budget per server: a.bin leaves 10 bytes.
    assert pinned == [
        ("a.bin", "sha256:" + hashlib.sha256(bytes(MAX_BYTES - 10)).hexdigest()),
        ("b.bin", f"unpinned:{MAX_BYTES + 1} bytes, past the 64 MiB mcpctl hashes per server"),
        ("c.txt", "unpinned:11 bytes, past the 64 MiB mcpctl hashes per server"),
        ("small.sh", digest("s")),
    ]
    assert unpinned_reason(pinned) == (
        f"b.bin: {MAX_BYTES + 1} bytes, past the 64 MiB mcpctl hashes per server")
    assert MAX_BYTES == 64 * 1024 * 1024


# ---- A1: variables are expanded as the launch will, except secrets and inputs ------------

HOME_OUTSIDE = {"HOME": "/nonexistent-home"}


@pytest.mark.parametrize(("args", "cwd", "environ", "expected"), [
    (["${NOPE:-evil.sh}"], None, {}, "evil.sh"),
    (["${NOPE:-x}"], None, {"NOPE": "evil.sh"}, "evil.sh"),
    (["${PWD}/evil.sh"], None, {"PWD": "ROOT"}, "evil.sh"),
    (["${env:DIR}/evil.sh"], None, {"DIR": "ROOT/sub"}, "sub/evil.sh"),
    (["../${workspaceFolderBasename}/evil.sh"], None, {}, "evil.sh"),
    (["${userHome}/evil.sh"], None, {}, "evil.sh"),
    (["./evil.sh"], "${NOPE:-sub}", {}, "sub/evil.sh"),
    (["./evil.sh"], "~/sub", {}, "sub/evil.sh"),
    (["evil${.sh"], None, {}, "evil${.sh"),  # not a reference: a literal file name
], ids=["default", "set", "pwd", "env-prefix", "basename", "home", "cwd-default", "cwd-home",
        "literal"])
def test_variables_are_expanded_before_pinning(
    tmp_path: Path, args: list[str], cwd: str | None, environ: dict[str, str], expected: str
) -> None:
    root = make_workspace(tmp_path, {"evil.sh": "e", "sub/evil.sh": "s", "evil${.sh": "l"})
    environ = {key: value.replace("ROOT", str(root)) for key, value in environ.items()}
    spec = stdio("bash", *args, cwd=cwd)
    content = (root / expected).read_text()
    pinned = pinned_files(spec, root, environ=environ, home=root)
    # A relative path is tried against the cwd and the root: the root's is pinned too.
    root_one = [("evil.sh", digest("e"))] if cwd else []
    assert pinned == sorted([*root_one, (expected, digest(content))])


@pytest.mark.parametrize("arg", [
    "${secret:x}/evil.sh", "${input:path}", "${NOPE}/evil.sh", "${userHome}/evil.sh"])
def test_what_is_known_only_at_launch_is_not_pinned_here(tmp_path: Path, arg: str) -> None:
    root = make_workspace(tmp_path, {"evil.sh": "e"})
    # No home given: `${userHome}` is not guessed (the launch checks it again).
    assert pinned_files(stdio("bash", arg), root, environ={}) == []


def test_the_fingerprint_keeps_values_as_written(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"a/evil.sh": "a", "b/evil.sh": "b"})
    spec = stdio("bash", "${env:WHERE}/evil.sh")
    in_a = pinned_files(spec, root, environ={"WHERE": str(root / "a")})
    in_b = pinned_files(spec, root, environ={"WHERE": str(root / "b")})
    assert (in_a, in_b) == ([("a/evil.sh", digest("a"))], [("b/evil.sh", digest("b"))])
    assert canonical_form(spec, in_a)["args"] == ["${env:WHERE}/evil.sh"]
    assert fingerprint_of(spec, in_a) != fingerprint_of(spec, in_b)


# ---- A2: the program the child's PATH finds ---------------------------------------------

def executable(path: Path, text: str = "#!/bin/sh\n") -> Path:
    write(path, text)
    path.chmod(0o755)
    return path


@pytest.mark.parametrize(("server_path", "user_path", "expected"), [
    ("bin:/usr/bin:/bin", "/usr/bin", "bin/fakenode"),
    (None, ".:/usr/bin", "fakenode"),
    (None, "/usr/bin:tools", "tools/fakenode"),
    (None, "/usr/bin::/bin", "fakenode"),  # an empty entry is the cwd
    ("${workspaceFolder}/bin", "/usr/bin", "bin/fakenode"),
    ("${env:EXTRA}:/usr/bin", "/usr/bin", "bin/fakenode"),
], ids=["server-relative", "user-dot", "user-relative", "user-empty", "server-variable",
        "server-env-reference"])
def test_the_program_found_on_path_is_pinned(
    tmp_path: Path, server_path: str | None, user_path: str, expected: str
) -> None:
    root = make_workspace(tmp_path, {})
    executable(root / expected)
    env = {"PATH": server_path} if server_path else {}
    spec = ServerSpec("s", Transport.STDIO, command="fakenode", env=env)
    pinned = pinned_files(spec, root, environ={"PATH": user_path, "EXTRA": "bin"})
    assert pinned == [(expected, digest("#!/bin/sh\n"))]
    assert pinned_files(spec, root, environ={"PATH": "/usr/bin", "EXTRA": "bin"}) == ([
        (expected, digest("#!/bin/sh\n"))] if server_path else [])


def test_path_entries_are_relative_to_the_cwd_and_the_first_match_wins(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"sub/bin/notexec": "x"})
    executable(root / "sub" / "bin" / "tool")
    executable(root / "bin" / "tool")
    executable(root / "later" / "notexec")
    spec = ServerSpec("s", Transport.STDIO, command="tool", cwd="sub", env={"PATH": "bin"})
    assert pinned_files(spec, root) == [("sub/bin/tool", digest("#!/bin/sh\n"))]
    # `sh` is found in /bin first: a workspace `bin/sh` later on PATH never runs.
    executable(root / "bin" / "sh")
    spec = ServerSpec("s", Transport.STDIO, command="sh", env={"PATH": "/bin:bin"})
    assert pinned_files(spec, root) == []
    # A file that is not executable is passed over, as the launch does.
    spec = ServerSpec("s", Transport.STDIO, command="notexec",
                      env={"PATH": "sub/bin:later"})
    assert pinned_files(spec, root) == [("later/notexec", digest("#!/bin/sh\n"))]


def test_a_program_linked_into_the_workspace_is_pinned(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {})
    executable(root / "cli.js", "#!/usr/bin/env node\n")
    (tmp_path / "global-bin").mkdir()
    os.symlink(root / "cli.js", tmp_path / "global-bin" / "my-mcp")  # as `npm link` does
    spec = ServerSpec("s", Transport.STDIO, command="my-mcp")
    assert pinned_files(spec, root, environ={"PATH": str(tmp_path / "global-bin")}) == [
        ("cli.js", digest("#!/usr/bin/env node\n"))]


# ---- A3: options' values, env values, modules, program folders --------------------------

@pytest.mark.parametrize("args", [
    ["--require=./hook.js", "server.js"], ["-r./hook.js", "server.js"],
    ["--import=./hook.js", "server.js"], ["--rcfile=./hook.js"], ["-r=hook.js"],
])
def test_an_option_value_is_tried_as_a_path(tmp_path: Path, args: list[str]) -> None:
    root = make_workspace(tmp_path, {"hook.js": "h"})
    assert pinned_files(stdio("node", *args), root) == [("hook.js", digest("h"))]


@pytest.mark.parametrize("env", [
    {"NODE_OPTIONS": "--require ./hook.js"}, {"NODE_OPTIONS": "--require=./hook.js"},
    {"NODE_OPTIONS": "--max-old-space-size=99 -r ./hook.js"}, {"BASH_ENV": "./hook.js"},
    {"LOADERS": "/usr/lib/a.js:hook.js"}, {"NODE_OPTIONS": "${env:OPTS}"},
])
def test_each_token_of_an_env_value_is_tried_as_a_path(
    tmp_path: Path, env: dict[str, str]
) -> None:
    root = make_workspace(tmp_path, {"hook.js": "h"})
    spec = ServerSpec("s", Transport.STDIO, command="node", env=env)
    assert pinned_files(spec, root, environ={"OPTS": "--import ./hook.js"}) == [
        ("hook.js", digest("h"))]


def test_env_file_values_are_tried_too(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"hook.js": "h",
                                     ".env": "NODE_OPTIONS='--require ./hook.js'\n"})
    spec = stdio("node", env_file=".env")
    assert pinned_files(spec, root) == [
        (".env", digest("NODE_OPTIONS='--require ./hook.js'\n")), ("hook.js", digest("h"))]


@pytest.mark.parametrize(("args", "expected"), [
    (["-m", "evilmod"], ["evilmod.py"]),
    (["-mevilmod"], ["evilmod.py"]),
    (["-u", "-m", "evilmod"], ["evilmod.py"]),
    (["-um", "evilmod"], ["evilmod.py"]),
    (["-m", "evilpkg"], ["evilpkg/__init__.py", "evilpkg/__main__.py"]),
    (["-m", "evilpkg.sub"], ["evilpkg/__init__.py", "evilpkg/sub.py"]),
    (["-m", "native"], ["native.cpython-399-x86_64-linux-gnu.so"]),
    (["-c", "import x", "evilpkg"], []),
], ids=["module", "joined", "flag-before", "cluster", "package", "dotted", "extension",
        "inline-code"])
def test_python_m_pins_the_module_files(tmp_path: Path, args: list[str],
                                        expected: list[str]) -> None:
    files = {"evilmod.py": "m", "evilpkg/__init__.py": "i", "evilpkg/__main__.py": "mm",
             "evilpkg/sub.py": "s", "native.cpython-399-x86_64-linux-gnu.so": "n",
             "native.txt": "not a module"}
    root = make_workspace(tmp_path, files)
    assert pinned_files(stdio("python3", *args), root) == [
        (path, digest(files[path])) for path in expected]


def test_python_m_after_a_wrapper(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"evilmod.py": "m"})
    spec = stdio("uv", "run", "--python", "3.12", "python", "-m", "evilmod")
    assert pinned_files(spec, root) == [("evilmod.py", digest("m"))]


def test_python_m_searches_pythonpath(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"lib/evilmod.py": "m"})
    spec = ServerSpec("s", Transport.STDIO, command="python3", args=("-m", "evilmod"),
                      env={"PYTHONPATH": "lib"})
    assert pinned_files(spec, root) == [("lib/evilmod.py", digest("m"))]


def tree(root: Path, folder: str) -> str:
    [(path, found)] = pinned_files(stdio("python3", folder), root)
    assert path == (folder.rstrip("/") + "/" if folder != "." else "./")
    assert found.startswith("sha256-tree:")
    return found


def test_a_folder_run_as_the_program_is_pinned_as_a_tree(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"srvdir/__main__.py": "import helper\n",
                                     "srvdir/helper.py": "x = 1\n", "other.txt": ""})
    before = tree(root, "srvdir")
    write(root / "srvdir" / "__pycache__" / "helper.cpython-311.pyc", "cache")
    assert tree(root, "srvdir") == before  # what Python writes by running does not count
    (root / "srvdir" / "helper.py").write_text("x = 2\n")
    changed = tree(root, "srvdir")
    assert changed != before
    write(root / "srvdir" / "new.py", "")
    assert tree(root, "srvdir") not in (before, changed)
    assert tree(root, ".") != tree(root, "srvdir")


@pytest.mark.parametrize(("command", "args", "pinned"), [
    ("node", ["."], ["./"]),
    ("python3", ["srvdir"], ["srvdir/"]),
    ("python3.11", ["-X", "dev", "-W", "error", "srvdir"], ["srvdir/"]),
    ("node", ["--require", "x.js", "srvdir"], ["srvdir/", "x.js"]),
    ("npx", ["-y", "./srvdir"], ["srvdir/"]),
    ("node", ["server.js", "srvdir"], ["server.js"]),  # a folder argument to the program
    ("bash", ["srvdir"], []),  # bash cannot run a folder
    ("node", ["-e", "1", "srvdir"], []),
    ("python3", ["-c", "srvdir"], []),  # the code itself, not a program (issue 30)
    ("uv", ["run", "--with", "x", "python", "srvdir"], ["srvdir/"]),
    ("env", ["A=1", "/usr/bin/node", "."], ["./"]),
], ids=["node-dot", "python", "python-options", "node-require", "npx", "data-folder", "bash",
        "inline", "inline-code-names-a-folder", "uv-run", "env"])
def test_only_the_program_position_pins_a_folder(
    tmp_path: Path, command: str, args: list[str], pinned: list[str]
) -> None:
    root = make_workspace(tmp_path, {"srvdir/__main__.py": "", "server.js": "", "x.js": ""})
    assert [path for path, _ in pinned_files(stdio(command, *args), root)] == pinned


def test_a_program_folder_is_bounded(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {f"srvdir/m{i:04d}.py": "" for i in range(MAX_TREE_ENTRIES)})
    assert tree(root, "srvdir")
    write(root / "srvdir" / "one-more.py", "")
    assert pinned_files(stdio("python3", "srvdir"), root) == [(
        "srvdir/", f"unpinned:more than {MAX_TREE_ENTRIES} files and folders in this program "
                   f"folder; mcpctl pins at most {MAX_TREE_ENTRIES}")]
    assert MAX_TREE_ENTRIES == 1000


def test_a_program_folder_links_fifos_and_loops(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"srvdir/__main__.py": "", "lib/real.py": "r"})
    write(tmp_path / "outside.py", "o")
    os.symlink(tmp_path / "outside.py", root / "srvdir" / "out.py")
    os.symlink(root / "lib" / "real.py", root / "srvdir" / "in.py")
    os.symlink(root / "srvdir", root / "srvdir" / "loop")
    # A loop below the top as well: with the folders walked not remembered
    # (`digests.py:104`, planted by hand) it was walked until the bound, unpinned.
    write(root / "srvdir" / "sub" / "m.py", "")
    os.symlink(root / "srvdir" / "sub", root / "srvdir" / "sub" / "back")
    os.mkfifo(root / "srvdir" / "pipe")
    before = tree(root, "srvdir")  # finishes: no FIFO is opened, no loop is walked twice
    (root / "lib" / "real.py").write_text("swapped")  # reached through the link
    assert tree(root, "srvdir") != before
    after = tree(root, "srvdir")
    (tmp_path / "outside.py").write_text("outside is not pinned")
    assert tree(root, "srvdir") == after


def test_a_program_folder_covers_its_subfolders_and_where_its_links_lead(
        tmp_path: Path) -> None:
    """Every file below a program folder counts, at any depth, and so does where a link
    in it leads out of the workspace. Planted by hand: subfolders not walked (the
    folder test forced false; `_kind` not telling a folder); a link out left out of the
    tree."""
    root = make_workspace(tmp_path, {"srvdir/__main__.py": "", "srvdir/sub/deep/x.py": "1"})
    write(tmp_path / "a.py", "a")
    write(tmp_path / "b.py", "b")
    os.symlink(tmp_path / "a.py", root / "srvdir" / "out.py")
    before = tree(root, "srvdir")
    (root / "srvdir" / "sub" / "deep" / "x.py").write_text("2")
    deeper = tree(root, "srvdir")
    assert deeper != before
    (root / "srvdir" / "out.py").unlink()
    os.symlink(tmp_path / "b.py", root / "srvdir" / "out.py")  # another file outside
    assert tree(root, "srvdir") != deeper


def test_a_program_folders_digest_is_its_entries_as_compact_json(tmp_path: Path) -> None:
    """A tree digest is part of a fingerprint, so it has one definition: SHA-256 of the
    sorted (path, digest) pairs as compact JSON, names in UTF-8, a folder marked
    `folder`. Planted by hand: the JSON's separators, or its `ensure_ascii`, left at
    their defaults (every approval of a program folder would go stale)."""
    root = make_workspace(tmp_path, {"srvdir/__main__.py": "m", "srvdir/café/é.py": "e"})
    text = (f'[["__main__.py","{digest("m")}"],["café/","folder"],'
            f'["café/é.py","{digest("e")}"]]')
    assert tree(root, "srvdir") == "sha256-tree:" + hashlib.sha256(text.encode()).hexdigest()


def test_the_folder_budget_is_the_server_budget(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"srvdir/__main__.py": "", "srvdir/big.bin": ""})
    with (root / "srvdir" / "big.bin").open("r+b") as handle:
        handle.truncate(MAX_BYTES + 1)
    assert pinned_files(stdio("python3", "srvdir"), root) == [(
        "srvdir/", f"unpinned:{MAX_BYTES + 1} bytes, past the 64 MiB mcpctl hashes per server "
                   "(big.bin)")]
