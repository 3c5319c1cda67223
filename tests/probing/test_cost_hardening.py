"""`cost` and `doctor` against servers and configs that misbehave: each fails alone, in
time, shows no secret, and leaves no process behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_run import SERVER, workspace_with, write_user_config
from tests.conftest import Cli, run_mcpctl
from tests.processes import kill_all, signal_and_wait, started, wait_for
from tests.protocol.conftest import PRELUDE, refusing_port, survivors, survivors_after_settling

GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" * 2  # the detector knows this shape
PASSPHRASE = "correct-horse-battery-staple"  # it does not know this one


def toml_string(text: str) -> str:
    return json.dumps(text)  # a JSON string is a valid TOML basic string


def strict_json(text: str) -> Any:
    def refuse(constant: str) -> Any:
        raise ValueError(constant)

    return json.loads(text, parse_constant=refuse)


# --- A6: where a user-tier server runs -------------------------------------------------

TOOL_MODULE = '''\
import json, os, sys
from pathlib import Path

Path(sys.argv[1]).write_text(WHO + " " + os.getcwd())
for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue
    if request["method"] == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {}}
    elif request["method"] == "tools/list":
        result = {"tools": [{"name": WHO}]}
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": request["id"],
                          "error": {"code": -32601, "message": "no"}}), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}), flush=True)
'''


def test_a_user_server_runs_in_home_and_a_workspace_server_in_the_root(
    user_config: Path, tmp_path: Path, cli: Cli, isolated_home: Path
) -> None:
    """`python -m json_tool_srv` in the user tier must not run the repo's
    json_tool_srv.py: nobody approved it."""
    root = workspace_with(tmp_path, {"ws": {
        "command": sys.executable, "args": ["-m", "json_tool_srv", str(tmp_path / "ws.txt")]}})
    (root / "json_tool_srv.py").write_text('WHO = "repo"\n' + TOOL_MODULE)
    (isolated_home / "json_tool_srv.py").write_text('WHO = "home"\n' + TOOL_MODULE)
    write_user_config(user_config, (
        f"[servers.mine]\ncommand = {toml_string(sys.executable)}\n"
        f'args = ["-m", "json_tool_srv", {toml_string(str(tmp_path / "mine.txt"))}]\n'))
    assert cli("trust", "ws", "--yes", "--workspace", str(root)).code == 0
    result = cli("cost", "--workspace", str(root), "--json")
    assert result.code == 0, result.out
    assert (tmp_path / "mine.txt").read_text() == f"home {isolated_home.resolve()}"
    assert (tmp_path / "ws.txt").read_text() == f"repo {root.resolve()}"
    servers = json.loads(result.out)["servers"]
    assert {s["name"]: [t["name"] for t in s["tools"]] for s in servers} == {
        "mine": ["home"], "ws": ["repo"]}


# --- B2: what a server says is shown masked ---------------------------------------------

LEAKY = textwrap.dedent(f"""\
    import os, sys
    sys.stderr.write("key " + os.environ["KEY"] + "\\n")
    sys.stderr.write("arg " + sys.argv[1] + "\\n")
    sys.stderr.write("own {GHP}\\n")
    sys.stderr.flush()
    if sys.argv[2:] == ["--serve"]:
        sys.argv[1:] = []
        exec(open({str(SERVER)!r}).read())
    else:
        print("ready with " + os.environ["KEY"], flush=True)
        sys.stdin.read()  # until mcpctl closes stdin
    """)


def leaky_config(user_config: Path, tmp_path: Path, key: str) -> None:
    script = tmp_path / "leaky.py"
    script.write_text(LEAKY)
    entry = (f"command = {toml_string(sys.executable)}\nenv = {{ KEY = {toml_string(key)} }}\n")
    write_user_config(user_config, (
        f'[servers.leaky]\n{entry}args = [{toml_string(str(script))}, '
        '"--pass=${env:LEAKY_PASSPHRASE}"]\n\n'
        f'[servers.talky]\n{entry}args = [{toml_string(str(script))}, '
        '"--pass=${env:LEAKY_PASSPHRASE}", "--serve"]\n'))


MASKED_STDERR = ["key corr***", "arg --pass=corr***", "own ghp_***"]


def test_cost_and_doctor_mask_substituted_values_and_credentials(
    user_config: Path, tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEAKY_PASSPHRASE", PASSPHRASE)
    leaky_config(user_config, tmp_path, "${env:LEAKY_PASSPHRASE}")
    text = cli("cost", "--workspace", str(tmp_path), "--timeout", "5")
    as_json = cli("cost", "--workspace", str(tmp_path), "--json", "--refresh")
    doctor_text = cli("doctor", "--workspace", str(tmp_path), "--timeout", "5")
    doctor_json = cli("doctor", "--workspace", str(tmp_path), "--json")
    for result in (text, as_json, doctor_text, doctor_json):
        assert result.code == 6
        assert PASSPHRASE not in result.out + result.err
        assert GHP not in result.out + result.err
    pollution = "stdout pollution: server printed 'ready with corr***' (not JSON-RPC) on stdout"
    assert f"failed: leaky: {pollution}\n" + "".join(
        f"  stderr: {line}\n" for line in MASKED_STDERR) in text.out
    leaky = json.loads(as_json.out)["servers"][0]
    assert (leaky["name"], leaky["error"], leaky["stderr_tail"]) == (
        "leaky", pollution, MASKED_STDERR)
    assert f"  fail  probe: {pollution}\n" + "".join(
        f"        stderr: {line}\n" for line in MASKED_STDERR) in doctor_text.out
    assert "".join(f"        stderr: {line}\n" for line in MASKED_STDERR) in (
        doctor_text.out.split("talky\n")[1])
    probes = {s["name"]: s["probe"] for s in json.loads(doctor_json.out)["servers"]}
    assert probes["leaky"]["stderr_tail"] == MASKED_STDERR
    assert probes["talky"]["status"] == "ok"
    assert probes["talky"]["stderr_head"] == MASKED_STDERR


@pytest.mark.usefixtures("secret_service")
def test_a_keyring_secret_is_masked_too(user_config: Path, tmp_path: Path) -> None:
    name = f"leaky-{uuid.uuid4().hex[:8]}"
    assert run_mcpctl(["secret", "set", name, "--stdin"], stdin=PASSPHRASE).code == 0
    leaky_config(user_config, tmp_path, f"${{secret:{name}}}")
    result = run_mcpctl(["cost", "leaky", "--workspace", str(tmp_path), "--timeout", "5"],
                        env={"LEAKY_PASSPHRASE": "unrelated"})
    assert result.code == 6
    assert PASSPHRASE not in result.out + result.err
    assert ("failed: leaky: stdout pollution: server printed 'ready with corr***' (not "
            "JSON-RPC) on stdout\n  stderr: key corr***\n  stderr: arg --pass=un***\n"
            "  stderr: own ghp_***\n") in result.out


# --- B3: doctor never expands an env value into what it prints --------------------------


def test_doctor_reports_the_command_as_written(tmp_path: Path, cli: Cli,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    token = "ghs_" + "Z9y8X7w6V5u4T3s2R1q0" * 2
    monkeypatch.setenv("GH_TOKEN", token)
    root = workspace_with(tmp_path, {"evil": {"command": "${env:GH_TOKEN}"},
                                     "local": {"command": "${workspaceFolder}/bin/srv"}})
    text = cli("doctor", "--no-probe", "--workspace", str(root))
    document = cli("doctor", "--no-probe", "--workspace", str(root), "--json")
    assert token not in text.out + text.err + document.out
    checks = {s["name"]: [c for c in s["checks"] if c["check"] == "command"]
              for s in json.loads(document.out)["servers"]}
    assert checks == {
        "evil": [{"check": "command", "status": "warn", "message": (
            "'${env:GH_TOKEN}' depends on ${env:GH_TOKEN}; it is looked up on PATH only "
            "when the server starts")}],
        "local": [{"check": "command", "status": "fail", "message": (
            f"'${{workspaceFolder}}/bin/srv' ({root.resolve()}/bin/srv) is not found on PATH "
            "(install it, or give its full path)")}],
    }
    assert ("  warn  command: '${env:GH_TOKEN}' depends on ${env:GH_TOKEN}; it is looked up "
            "on PATH only when the server starts\n") in text.out


# --- C2: a tool list that is not strict JSON in UTF-8 -----------------------------------


def raw_tools_server(tmp_path: Path, name: str, tools_json: str) -> Path:
    script = tmp_path / f"{name}.py"
    script.write_text(textwrap.dedent(f"""\
        import json, sys
        for line in sys.stdin:
            request = json.loads(line)
            if "id" not in request:
                continue
            if request["method"] == "initialize":
                result = '{{"protocolVersion":"2025-11-25","capabilities":{{}},"serverInfo":{{}}}}'
            elif request["method"] == "tools/list":
                result = '{{"tools":{tools_json}}}'
            else:
                result = None
            if result is None:
                print(json.dumps({{"jsonrpc": "2.0", "id": request["id"],
                                  "error": {{"code": -32601, "message": "no"}}}}), flush=True)
            else:
                print('{{"jsonrpc":"2.0","id":%s,"result":%s}}' % (json.dumps(request["id"]),
                                                                  result), flush=True)
        """))
    return script


def test_a_tool_list_that_cannot_be_encoded_fails_that_server_alone(
    user_config: Path, tmp_path: Path, cli: Cli, mcpctl_home: Path
) -> None:
    surrogate = raw_tools_server(tmp_path, "surrogate",
                                 r'[{"name":"echo","description":"\\ud800"}]')
    nan = raw_tools_server(tmp_path, "nan",
                           '[{"name":"n","inputSchema":{"type":"number","maximum":NaN}}]')
    python = toml_string(sys.executable)
    write_user_config(user_config, "".join(
        f"[servers.{name}]\ncommand = {python}\nargs = [{toml_string(str(script))}]\n\n"
        for name, script in (("good", SERVER), ("nan", nan), ("surrogate", surrogate))))
    result = cli("cost", "--workspace", str(tmp_path), "--json")
    assert result.code == 6, result.err
    servers = {s["name"]: s for s in json.loads(result.out)["servers"]}
    assert (servers["good"]["status"], servers["good"]["tool_count"]) == ("probed", 1)
    assert servers["nan"]["error"] == (
        "tools/list: tool 1 'n' holds NaN or Infinity, which JSON does not allow")
    assert servers["surrogate"]["error"] == (
        r"tools/list: tool 1 'echo' holds a lone surrogate escape (such as \ud800) that is "
        "not valid Unicode text")
    cached = list((mcpctl_home / "cache" / "probes").glob("*.json"))
    assert len(cached) == 1
    assert strict_json(cached[0].read_text(encoding="utf-8"))["probes"]["roots"]["name"] == (
        "good")


# --- C3: a broken url, port or header fails that server alone, at once ------------------


def test_broken_urls_and_headers_fail_alone_and_at_once(user_config: Path,
                                                        tmp_path: Path) -> None:
    python = toml_string(sys.executable)
    with refusing_port() as port:
        write_user_config(user_config, (
            '[servers.v6]\nurl = "http://[::1/mcp"\n\n'
            '[servers.port]\nurl = "http://127.0.0.1:99999/mcp"\n\n'
            f'[servers.accent]\nurl = "http://127.0.0.1:{port}/mcp"\n'
            'headers = { X-Team = "café" }\n\n'
            '[servers.idna]\nurl = "https://xn--/mcp"\n\n'
            f'[servers.nul]\ncommand = {python}\nargs = ["-c", "pass", "a\\u0000b"]\n\n'
            f"[servers.tok]\ncommand = {python}\nargs = [{toml_string(str(SERVER))}]\n"))
        # "At once": with the longest timeout there is, a probe that waited it out for any of
        # these would outlast the run's own bound (60 s, over 10x its idle time) and fail.
        result = run_mcpctl(["cost", "--workspace", str(tmp_path), "--timeout", "600"],
                            env={"API_TOKEN": "abc"}, timeout=60)
    assert result.code == 6
    # What no launch can carry out is a problem where it is written (issue 23, item 7).
    assert [line.partition(": error: ")[2] for line in result.err.splitlines()] == [
        "server 'v6': 'url' is not a valid url: its IPv6 host has no closing ']'",
        "server 'port': 'url' is not a valid url: its port is not a number from 0 to 65535",
        "server 'nul': args[2] holds a NUL byte, which no launch can pass on",
    ]
    assert result.out.splitlines()[2:5] == [
        "failed: accent: header 'X-Team' has a value HTTP cannot carry (a line break, a "
        "control or non-ASCII character, or a space at either end); check the config and "
        "any secret or variable it uses",
        "failed: idna: cannot reach the server: Malformed A-label, no Punycode eligible "
        "content found",
        "total: 1 tools, 58 tokens in 1 server(s) (tokenizer o200k_base; capabilities "
        "declared: roots)",
    ]


# --- C7: a timeout must be a finite number of seconds, at most 600 ----------------------


@pytest.mark.parametrize(("command", "value", "message"), [
    ("cost", "nan", "Invalid value for '--timeout': must be a number of seconds from 0.1 "
                    "to 600"),
    ("cost", "inf", "Invalid value for '--timeout': inf is not in the range 0.1<=x<=600."),
    ("doctor", "1e300", "Invalid value for '--timeout': 1e+300 is not in the range "
                        "0.1<=x<=600."),
    ("doctor", "-nan", "Invalid value for '--timeout': must be a number of seconds from 0.1 "
                       "to 600"),
])
def test_timeout_option_must_be_finite_and_at_most_600(
    tmp_path: Path, cli: Cli, command: str, value: str, message: str
) -> None:
    result = cli(command, "--timeout", value, "--workspace", str(tmp_path))
    assert result.code == 2
    assert result.err.splitlines()[-1] == f"Error: {message}"


# --- C8: Ctrl-C, SIGTERM and SIGHUP stop every server and say so -----------------------


@pytest.mark.timeout(60)  # start 15 s + the signal's answer 10 s, with room for load
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_to_cost_stops_every_server_group(
    user_config: Path, tmp_path: Path, signum: signal.Signals
) -> None:
    marker = f"mcpctl-test-{uuid.uuid4().hex}"
    script = tmp_path / f"{marker}.py"
    script.write_text(PRELUDE + "grandchild_ignoring_sigterm()\ntime.sleep(600)\n")
    write_user_config(user_config, (
        f"[servers.stuck]\ncommand = {toml_string(sys.executable)}\n"
        f"args = [{toml_string(str(script))}, {toml_string(marker)}]\n"))
    argv = [sys.executable, "-m", "mcpctl", "cost", "--workspace", str(tmp_path), "--timeout",
            "60"]
    try:
        with started(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                     env=dict(os.environ)) as runner:
            wait_for(lambda: len(survivors(marker)) == 2, within=15,
                     what="the server and its grandchild start")
            out, err = signal_and_wait(runner, signum, within=10)
            assert (runner.returncode, out) == (128 + signum, "")
            said = "interrupted (Ctrl-C)" if signum == signal.SIGINT \
                else f"stopped by {signum.name}"
            assert err == f"mcpctl: error: {said}; the servers being probed were stopped\n"
            assert survivors_after_settling(marker) == []
    finally:
        kill_all(survivors(marker))


@pytest.mark.timeout(60)
def test_ctrl_c_kills_the_servers_at_once_without_asking_them_to_end(
    user_config: Path, tmp_path: Path
) -> None:
    """Ctrl-C is answered at once: every server gets SIGKILL, not the shutdown's EOF and
    SIGTERM first, which a server may take its grace over. Planted: without the abort
    (`StdioChannel.abort` returning early, or the probe's loop over its channels
    skipped) the servers were shut down gracefully, and the server heard SIGTERM."""
    marker = f"mcpctl-test-{uuid.uuid4().hex}"
    heard = tmp_path / "heard"
    script = tmp_path / f"{marker}.py"
    script.write_text("import signal, sys, time\n"
                      "signal.signal(signal.SIGTERM, lambda *_: open(sys.argv[2], 'a')"
                      ".write('TERM'))\n"
                      "time.sleep(600)\n")
    write_user_config(user_config, (
        f"[servers.stuck]\ncommand = {toml_string(sys.executable)}\n"
        f"args = [{toml_string(str(script))}, {toml_string(marker)}, "
        f"{toml_string(str(heard))}]\n"))
    argv = [sys.executable, "-m", "mcpctl", "cost", "--workspace", str(tmp_path), "--timeout",
            "60"]
    try:
        with started(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                     env=dict(os.environ)) as runner:
            wait_for(lambda: len(survivors(marker)) == 1, within=15, what="the server starts")
            signal_and_wait(runner, signal.SIGINT, within=10)
            assert runner.returncode == 128 + signal.SIGINT
            assert survivors_after_settling(marker) == []
    finally:
        kill_all(survivors(marker))
    assert not heard.exists()
