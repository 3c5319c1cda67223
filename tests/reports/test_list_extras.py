"""What `list` shows beside each server without starting anything: the last probe's
cost, and the name-only approvals another client keeps for this workspace."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from tests.cli.test_run import SERVER, marker_server, workspace_with, write_user_config
from tests.conftest import Cli


def test_list_shows_the_last_probe_without_starting_anything(
    user_config: Path, tmp_path: Path, cli: Cli
) -> None:
    marker = tmp_path / "started-by-list"
    write_user_config(user_config, f'[servers.tok]\ncommand = "{sys.executable}"\n'
                                   f'args = ["{SERVER}", "--marker", "{marker}"]\n')
    before = json.loads(cli("list", "-w", str(tmp_path), "--json").out)
    assert before["servers"][0]["last_probe"] is None
    assert cli("cost", "-w", str(tmp_path)).code == 0
    marker.unlink()
    after = json.loads(cli("list", "-w", str(tmp_path), "--json").out)
    probe = after["servers"][0]["last_probe"]
    assert (probe["tools"], probe["tokens"], probe["capabilities"]) == (1, 27, ["roots"])
    assert probe["tokenizer"] == "o200k_base"
    assert 0 <= probe["age_seconds"] < 60
    plain = cli("list", "-w", str(tmp_path)).out.splitlines()[1]
    assert re.search(r"  27 tok, 1 tools \(\d+ s ago\)$", plain), plain
    assert not marker.exists()  # listing never starts a server


def test_weak_approvals_are_flagged_and_need_attention(tmp_path: Path, cli: Cli) -> None:
    root = workspace_with(tmp_path, {"docs": marker_server(tmp_path / "m")})
    settings = root / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{\n  "enabledMcpjsonServers": ["docs"]\n}\n')
    assert cli("trust", "docs", "--yes", "-w", str(root)).code == 0
    result = cli("list", "-w", str(root), "--needs-attention")
    assert result.code == 1
    assert result.err.startswith(
        f"warning: {settings}:2: the repo approves its own server 'docs' for Claude Code by "
        "name only (enabledMcpjsonServers")
    assert "1 workspace server(s) need attention: docs (approved by name in " in result.err
    document = json.loads(cli("list", "-w", str(root), "--json").out)
    [approval] = document["weak_approvals"]
    assert (approval["server"], approval["setting"], approval["line"]) == (
        "docs", "enabledMcpjsonServers", 2)


def test_doctor_warns_about_a_name_only_approval(tmp_path: Path, cli: Cli) -> None:
    root = workspace_with(tmp_path, {"docs": marker_server(tmp_path / "m"),
                                     "other": marker_server(tmp_path / "m2")})
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.local.json").write_text(
        '{"enableAllProjectMcpServers": true}')
    document = json.loads(cli("doctor", "--no-probe", "-w", str(root), "--json").out)
    for server in document["servers"]:
        [weak] = [c for c in server["checks"] if c["check"] == "other clients"]
        assert weak["status"] == "warn"
        assert "enableAllProjectMcpServers" in weak["message"]
    assert not (tmp_path / "m").exists()


def test_a_local_false_overrides_the_repos_enable_all(tmp_path: Path, cli: Cli) -> None:
    root = workspace_with(tmp_path, {"docs": marker_server(tmp_path / "m")})
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text('{"enableAllProjectMcpServers": true}')
    before = json.loads(cli("list", "-w", str(root), "--json").out)["weak_approvals"]
    assert [(a["server"], a["setting"]) for a in before] == [
        (None, "enableAllProjectMcpServers")]
    (root / ".claude" / "settings.local.json").write_text(
        '{"enableAllProjectMcpServers": false}')
    after = json.loads(cli("list", "-w", str(root), "--json").out)["weak_approvals"]
    assert after == []
