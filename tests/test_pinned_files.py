"""Pinned files: the workspace files a server runs are part of its fingerprint."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from mcpctl.model import ServerSpec, Transport
from mcpctl.pinned_files import MAX_BYTES, MAX_FILES, pinned_files
from tests.tier_files import make_workspace, write


def digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def stdio(command: str, *args: str, cwd: str | None = None,
          env_file: str | None = None) -> ServerSpec:
    return ServerSpec("s", Transport.STDIO, command=command, args=args, cwd=cwd,
                      env_file=env_file)


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
    spec = stdio("node", "dir", "-v", "--config=cfg", "${env:HOME}/cfg", "pipe", "nope.sh", "")
    assert pinned_files(spec, root) == []


def test_remote_servers_pin_nothing(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"x": ""})
    assert pinned_files(ServerSpec("r", Transport.HTTP, url="x"), root) == []


def test_a_root_reached_through_a_symlink(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"s.sh": "x"})
    os.symlink(root, tmp_path / "alias")
    assert pinned_files(stdio("bash", "s.sh"), tmp_path / "alias") == [("s.sh", digest("x"))]


def test_at_most_max_files(tmp_path: Path) -> None:
    names = [f"f{i:02d}.js" for i in range(MAX_FILES + 8)]
    root = make_workspace(tmp_path, {name: name for name in names})
    pinned = pinned_files(stdio("node", *names), root)
    assert [path for path, _ in pinned] == names[:MAX_FILES]
    assert MAX_FILES == 32


def test_byte_budget_leaves_larger_files_unhashed_but_sized(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {"a.bin": "", "b.bin": "", "c.txt": "eleven byte",
                                     "small.sh": "s"})
    for name, size in (("a.bin", MAX_BYTES - 10), ("b.bin", MAX_BYTES + 1)):
        with (root / name).open("r+b") as handle:
            handle.truncate(size)  # sparse
    pinned = pinned_files(stdio("x", "small.sh", "c.txt", "b.bin", "a.bin"), root)
    # Hashed in path order against one budget per server: a.bin leaves 10 bytes.
    assert pinned == [
        ("a.bin", "sha256:" + hashlib.sha256(bytes(MAX_BYTES - 10)).hexdigest()),
        ("b.bin", f"unhashed:size={MAX_BYTES + 1}"),
        ("c.txt", "unhashed:size=11"),
        ("small.sh", digest("s")),
    ]
    assert MAX_BYTES == 64 * 1024 * 1024
