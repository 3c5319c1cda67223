"""`mcpctl run NAME` with a tool policy: every client, filter or not, gets only the tools
that are on, and a call to one that is off is a JSON-RPC error. Real servers, the
official SDK as the client (it has no tool filter of its own)."""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.shared.exceptions import MCPError

from tests.cli.test_run import SERVER as TOKEN_SERVER
from tests.cli.test_tools import TOOLS_SERVER, configure, tools_file
from tests.conftest import Result, run_mcpctl
from tests.protocol.conftest import SDK_SERVER, free_port, http_server, require_npm_server
from tests.protocol.test_bridge import INITIALIZE, INITIALIZED, sdk_session, texts

pytestmark = pytest.mark.timeout(300)


def everything(user_config: Path) -> None:
    entry = require_npm_server("server-everything")
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(f'[servers.everything]\ncommand = "node"\nargs = ["{entry}"]\n')


async def list_and_call(session: ClientSession) -> tuple[list[str], str, list[str]]:
    """The tool names listed, the error a call to `echo` gets, a call to `get-sum`."""
    listed = await session.list_tools()
    try:
        echoed = await session.call_tool("echo", {"message": "hi"})
        refusal = f"answered: {texts(echoed)}"
    except MCPError as error:
        refusal = f"{error.error.code}: {error.error.message}"
    summed = await session.call_tool("get-sum", {"a": 2, "b": 40})
    return [tool.name for tool in listed.tools], refusal, texts(summed)


def test_a_client_without_a_filter_sees_only_enabled_tools_of_a_real_server(
        user_config: Path, tmp_path: Path) -> None:
    everything(user_config)
    run = ["run", "everything", "--workspace", str(tmp_path)]
    # The attack without the policy: the client sees echo and calls it.
    names, refusal, summed = sdk_session(run, list_and_call)
    assert "echo" in names
    assert refusal.startswith("answered: ")
    switched = run_mcpctl(["tools", "everything", "--disable", "echo,toggle-*"], cwd=tmp_path)
    assert switched.code == 0, switched.err
    names, refusal, summed = sdk_session(run, list_and_call)
    assert "echo" not in names
    assert not [name for name in names if name.startswith("toggle-")]
    assert "get-sum" in names
    assert refusal == ("-32602: mcpctl: tool 'echo' of server 'everything' is switched off "
                       "(disabled); switch it on with: mcpctl tools everything --enable echo")
    assert summed == ["The sum of 2 and 40 is 42."]


def test_a_refused_call_never_reaches_the_server(user_config: Path, tmp_path: Path) -> None:
    calls = tmp_path / "calls.log"
    configure(user_config, tools_file(tmp_path / "tools.json", ["read_a", "write_b"]))
    text = user_config.read_text().replace('"]\n', f'", "--calls", "{calls}"]\n', 1)
    user_config.write_text(text)
    assert run_mcpctl(["tools", "fs", "--only", "read_*"], cwd=tmp_path).code == 0

    async def work(session: ClientSession) -> tuple[list[str], str]:
        listed = await session.list_tools()
        await session.call_tool("read_a", {})
        try:
            await session.call_tool("write_b", {})
        except MCPError as error:
            return [t.name for t in listed.tools], error.error.message
        return [t.name for t in listed.tools], "answered"

    names, message = sdk_session(["run", "fs", "--workspace", str(tmp_path)], work)
    assert names == ["read_a"]
    assert message.endswith("is switched off (not in only); switch it on with: "
                            "mcpctl tools fs --enable write_b")
    assert calls.read_text() == "read_a\n"


def _listed_once(tmp_path: Path) -> Result:
    """`mcpctl run fs` given a handshake and one `tools/list` (id 2) on its stdin."""
    lines = [INITIALIZE, INITIALIZED, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    return run_mcpctl(["run", "fs", "--workspace", str(tmp_path)],
                      stdin="".join(json.dumps(m) + "\n" for m in lines))


def test_a_tool_added_later_is_held_back_and_reported_on_stderr(
        user_config: Path, tmp_path: Path) -> None:
    listed = tools_file(tmp_path / "tools.json", ["read_a"])
    configure(user_config, listed)
    assert run_mcpctl(["tools", "fs", "--only", "read_*"], cwd=tmp_path).code == 0
    tools_file(listed, ["read_a", "read_all_the_secrets"])
    done = _listed_once(tmp_path)
    assert done.code == 0, done.err
    answers = [json.loads(line) for line in done.out.splitlines()]
    assert [t["name"] for t in answers[1]["result"]["tools"]] == ["read_a"]
    assert done.err == ("mcpctl: server 'fs' lists a new tool 'read_all_the_secrets'; it is "
                        "off until you switch it on: mcpctl tools fs --enable "
                        "read_all_the_secrets\n")


def _cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def _started(tmp_path: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "mcpctl", "run", "fs", "--workspace",
                             str(tmp_path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            env={**os.environ})


def _wait_for(predicate: object, within: float = 30) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if callable(predicate) and predicate():
            return True
        time.sleep(0.05)
    return False


def _relayed_server(process: subprocess.Popen[bytes]) -> int:
    """The pid of the server `run` relays (its child), once it is the server."""
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children")
    assert _wait_for(lambda: children.read_text().split())
    child = int(children.read_text().split()[0])
    # Until its exec the spawned child still shows the relay's command line.
    assert _wait_for(lambda: str(TOOLS_SERVER) in _cmdline(child))
    return child


def test_run_keeps_the_tools_the_budget_keeps_in_tools(user_config: Path,
                                                         tmp_path: Path) -> None:
    """A budget is spent on the last probe `tools` cached, so `run` offers the very tools
    `tools` says are on. With the cached probe never loaded (`run_start.py:262`, planted
    by hand) the budget kept nothing and the client saw no tool at all."""
    listed = tmp_path / "tools.json"
    listed.write_text(json.dumps([{"name": name, "description": "word " * words,
                                   "inputSchema": {"type": "object"}}
                                  for name, words in (("small", 2), ("large", 400))]))
    configure(user_config, listed)
    probed = json.loads(run_mcpctl(["tools", "fs", "--json"], cwd=tmp_path).out)
    tokens = {tool["name"]: tool["tokens"] for tool in probed["tools"]}
    budget = run_mcpctl(["tools", "fs", "--budget", str(tokens["small"] + 1), "--json"],
                        cwd=tmp_path)
    assert budget.code == 0, budget.err
    assert {t["name"]: t["on"] for t in json.loads(budget.out)["tools"]} == {
        "small": True, "large": False}
    done = _listed_once(tmp_path)
    assert done.code == 0, done.err
    answers = [json.loads(line) for line in done.out.splitlines()]
    assert [t["name"] for t in answers[1]["result"]["tools"]] == ["small"]


def test_the_ids_the_relay_sends_in_the_client_s_place_cannot_be_guessed(
        user_config: Path, tmp_path: Path) -> None:
    """A client's `tools/list` reaches the server under an id of the gate's own, with a
    random part, so no id a client picks can be taken for the gate's (the server's answer
    to it would be filtered as a list and handed to another request). With the nonce
    left at its default (`run_start.py:282`, planted by hand) every run sent
    `mcpctl-0-1`."""
    configure(user_config, tools_file(tmp_path / "tools.json", ["read_a", "write_b"]))
    ids = tmp_path / "ids.jsonl"
    user_config.write_text(user_config.read_text().replace(
        '"]\n', f'", "--ids", "{ids}"]\n', 1))
    assert run_mcpctl(["tools", "fs", "--disable", "write_b"], cwd=tmp_path).code == 0
    ids.unlink()
    sent = []
    for _ in range(2):
        done = _listed_once(tmp_path)
        assert done.code == 0, done.err
        assert [t["name"] for t in json.loads(done.out.splitlines()[1])["result"]["tools"]] \
            == ["read_a"]
        seen = [json.loads(line) for line in ids.read_text().splitlines()]
        ids.unlink()
        assert seen[0] == 1  # the handshake passes as it is
        sent.append(seen[1])
    assert all(re.fullmatch(r"mcpctl-[0-9a-f]{16}-1", slot) for slot in sent), sent
    assert sent[0] != sent[1]


def test_run_execs_the_server_unless_a_tool_is_off(user_config: Path, tmp_path: Path) -> None:
    configure(user_config, tools_file(tmp_path / "tools.json", ["read_a", "write_b"]))
    process = _started(tmp_path)
    try:
        assert _wait_for(lambda: str(TOOLS_SERVER) in _cmdline(process.pid))  # exec'd
    finally:
        process.communicate(timeout=30)
    assert run_mcpctl(["tools", "fs", "--disable", "write_b"], cwd=tmp_path).code == 0
    process = _started(tmp_path)
    try:
        _relayed_server(process)
        assert "mcpctl" in _cmdline(process.pid)
    finally:
        process.communicate(timeout=30)
    assert process.returncode == 0


def test_the_relayed_server_gets_its_definition_s_environment(
        user_config: Path, tmp_path: Path) -> None:
    """Behind the filter the server is a child, not an exec: it must get the environment
    mcpctl resolved for it (its `env`), not mcpctl's own. With `os.environ` passed
    instead (`run_start.py:127` or `:291`, planted by hand) the child had no MARK."""
    configure(user_config, tools_file(tmp_path / "tools.json", ["read_a", "write_b"]))
    with user_config.open("a") as config:
        config.write('env = { MARK = "from-the-definition" }\n')
    assert run_mcpctl(["tools", "fs", "--disable", "write_b"], cwd=tmp_path).code == 0
    process = _started(tmp_path)
    try:
        child = _relayed_server(process)
        environ = Path(f"/proc/{child}/environ").read_bytes().split(b"\0")
    finally:
        process.communicate(timeout=30)
    assert b"MARK=from-the-definition" in environ
    assert "MARK" not in os.environ


@pytest.mark.parametrize("filtered", [False, True])
def test_a_server_that_cannot_start_is_an_error_with_or_without_the_filter(
        user_config: Path, tmp_path: Path, filtered: bool) -> None:
    """A command that is found but cannot be executed (its interpreter is missing) is
    the server failing, exit 6 with the reason, whether `run` execs it or relays it.
    With the relay's `raise` dropped (`run_start.py:293`, planted by hand) `run` ended
    in a traceback, exit 1."""
    script = tmp_path / "no-interpreter-mcp"
    script.write_text("#!/nonexistent/interpreter\n")
    script.chmod(0o755)
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(f'[servers.fs]\ncommand = "{script}"\n')
    if filtered:
        with user_config.open("a") as config:
            config.write('[tools.fs]\ndisabled = ["write_b"]\n')
    done = run_mcpctl(["run", "fs", "--workspace", str(tmp_path)], cwd=tmp_path, stdin="")
    assert (done.code, done.err) == (
        6, f"mcpctl: error: server 'fs': cannot start {script}: No such file or directory\n")


def test_a_remote_server_is_filtered_through_the_bridge(user_config: Path,
                                                        tmp_path: Path) -> None:
    port = free_port()
    with http_server([sys.executable, str(SDK_SERVER), "http", str(port)], port) as url:
        user_config.parent.mkdir(parents=True, exist_ok=True)
        user_config.write_text(f'[servers.remote]\nurl = "{url}"\ntype = "http"\n')
        assert run_mcpctl(["tools", "remote", "--disable", "shout"], cwd=tmp_path).code == 0

        async def work(session: ClientSession) -> tuple[list[str], list[str], str]:
            listed = await session.list_tools()
            added = await session.call_tool("add", {"a": 2, "b": 40})
            try:
                await session.call_tool("shout", {"text": "x"})
            except MCPError as error:
                return [t.name for t in listed.tools], texts(added), error.error.message
            return [t.name for t in listed.tools], texts(added), "answered"

        names, added, refusal = sdk_session(["run", "remote", "--workspace", str(tmp_path)],
                                            work)
    assert (names, added) == (["add"], ["42"])
    assert "tool 'shout' of server 'remote' is switched off (disabled)" in refusal


def test_sigterm_reaches_the_relayed_server_and_run_exits_as_it_did(
        user_config: Path, tmp_path: Path) -> None:
    configure(user_config, tools_file(tmp_path / "tools.json", ["read_a", "write_b"]))
    assert run_mcpctl(["tools", "fs", "--disable", "write_b"], cwd=tmp_path).code == 0
    process = _started(tmp_path)
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children")
    try:
        assert _wait_for(lambda: children.read_text().split())
        child = int(children.read_text().split()[0])
        process.send_signal(15)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=30)
    assert process.returncode == 143  # the server's own end: killed by SIGTERM
    assert not Path(f"/proc/{child}").exists() or \
        Path(f"/proc/{child}/stat").read_text().split()[2] == "Z"


def test_stdin_eof_ends_the_relayed_server(user_config: Path, tmp_path: Path) -> None:
    configure(user_config, tools_file(tmp_path / "tools.json", ["read_a", "write_b"]))
    assert run_mcpctl(["tools", "fs", "--disable", "write_b"], cwd=tmp_path).code == 0
    done = run_mcpctl(["run", "fs", "--workspace", str(tmp_path)], stdin="")
    assert (done.code, done.out, done.err) == (0, "", "")


def test_a_policy_does_not_let_an_unapproved_server_start(user_config: Path,
                                                          tmp_path: Path) -> None:
    """The relay starts only what the gate admitted: the policy is read after it."""
    marker = tmp_path / "started"
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"evil": {
        "command": sys.executable, "args": [str(TOKEN_SERVER), "--marker", str(marker)]}}}))
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text('[tools.evil]\ndisabled = ["echo"]\n')
    done = run_mcpctl(["run", "evil", "--workspace", str(root)], stdin="")
    assert done.code == 4
    assert "is untrusted" in done.err
    assert not marker.exists()


class Session:
    """One `mcpctl run fs` the test talks to line by line (each wait bounded)."""

    def __init__(self, tmp_path: Path):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mcpctl", "run", "fs", "--workspace", str(tmp_path)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines: queue.Queue[bytes] = queue.Queue()
        assert self.process.stdout is not None
        stdout = self.process.stdout

        def read() -> None:
            for answer in stdout:
                self.lines.put(answer)

        threading.Thread(target=read, daemon=True).start()
        self.ask({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}})
        self.tell({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def tell(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        self.tell(message)
        answer: dict[str, Any] = json.loads(self.lines.get(timeout=60))
        assert answer["id"] == message["id"]
        return answer

    def names(self, request_id: int | str) -> list[str]:
        answer = self.ask({"jsonrpc": "2.0", "id": request_id, "method": "tools/list"})
        return [tool["name"] for tool in answer["result"]["tools"]]

    def call(self, request_id: int, name: str) -> str:
        answer = self.ask({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                           "params": {"name": name, "arguments": {}}})
        return str(answer["error"]["message"]) if "error" in answer else "called"

    def close(self) -> str:
        _, err = self.process.communicate(timeout=60)
        assert self.process.returncode == 0
        return err.decode()


def _calls_logged(user_config: Path, tmp_path: Path, names: list[str]) -> tuple[Path, Path]:
    calls = tmp_path / "calls.log"
    listed = tools_file(tmp_path / "tools.json", names)
    configure(user_config, listed)
    user_config.write_text(user_config.read_text().replace('"]\n', f'", "--calls", "{calls}"]\n',
                                                           1))
    return listed, calls


def test_an_answer_seen_before_still_loses_the_tools_that_are_off(
        user_config: Path, tmp_path: Path) -> None:
    """Later lists in a session, and the next session's first (from the store), are
    written from the template: the same tools, calls still refused, never sent."""
    _, calls = _calls_logged(user_config, tmp_path, ["read_a", "write_b", "read_c"])
    assert run_mcpctl(["tools", "fs", "--disable", "write_b"], cwd=tmp_path).code == 0
    store = user_config.parent.parent / "cache" / "tool-answers"
    for _ in range(2):  # a session that judges, then one that starts from the store
        session = Session(tmp_path)
        try:
            assert [session.names(n) for n in (1, "two", 3)] == [["read_a", "read_c"]] * 3
            assert session.call(4, "write_b").startswith("mcpctl: tool 'write_b' of server "
                                                          "'fs' is switched off (disabled)")
            assert session.call(5, "read_c") == "called"
        finally:
            assert session.close() == ""
        assert len(list(store.glob("*.answer"))) == 1
    assert calls.read_text() == "read_c\nread_c\n"


def test_a_rug_pull_between_two_lists_in_one_session_is_judged_again(
        user_config: Path, tmp_path: Path) -> None:
    """Between two lists the server makes `read_a` destructive (`true` becomes `null`:
    the answer keeps its length), then adds `read_new`: a template of the first answer
    would still show `read_a`, and hide `read_new`."""
    listed, calls = _calls_logged(user_config, tmp_path, ["read_a", "write_b"])
    assert run_mcpctl(["tools", "fs", "--deny-destructive"], cwd=tmp_path).code == 0
    session = Session(tmp_path)
    try:
        assert session.names(1) == ["read_a"]
        assert session.names(2) == ["read_a"]
        text = listed.read_text()
        listed.write_text(text.replace('"readOnlyHint": true', '"readOnlyHint": null', 1))
        assert session.names(3) == []
        assert "is switched off (destructive)" in session.call(4, "read_a")
        tools = json.loads(listed.read_text())
        listed.write_text(json.dumps([*tools, {"name": "read_new", "annotations": {
            "readOnlyHint": True}}]))
        assert session.names(5) == ["read_new"]
        assert session.call(6, "read_new") == "called"
    finally:
        assert session.close() == ""
    assert calls.read_text() == "read_new\n"


def test_a_store_entry_edited_by_hand_never_switches_a_tool_back_on(
        user_config: Path, tmp_path: Path) -> None:
    """The attack: the stored answer for this server gets `write_b` back (planted by
    hand in the cache file). The entry's MAC no longer verifies, so the answer is
    judged again; and a call to `write_b` is refused whatever a list showed."""
    _, calls = _calls_logged(user_config, tmp_path, ["read_a", "write_b"])
    assert run_mcpctl(["tools", "fs", "--disable", "write_b"], cwd=tmp_path).code == 0
    session = Session(tmp_path)
    try:
        assert session.names(1) == ["read_a"]
    finally:
        session.close()
    store = user_config.parent.parent / "cache" / "tool-answers"
    entries = [*store.glob("*.answer"), *store.glob("*.latest")]
    assert len(entries) == 2  # found by the answer's key, and the one read at start
    for entry in entries:
        mac, header, payload = entry.read_bytes().split(b"\n", 2)
        fields = json.loads(header)
        start = fields["before"] + fields["after"]
        rest = payload[start:start + fields["rest"]]
        forged = rest.replace(b'"tools":[', b'"tools":[{"name":"write_b"},', 1)
        fields["rest"] = len(forged)
        entry.write_bytes(b"".join((mac, b"\n", json.dumps(fields).encode(), b"\n",
                                    payload[:start], forged, payload[start + len(rest):])))
    session = Session(tmp_path)
    try:
        assert session.names(1) == ["read_a"]
        assert "is switched off (disabled)" in session.call(2, "write_b")
    finally:
        session.close()
    assert not calls.exists()


def test_pages_and_notifications_pass_through_the_templates(
        user_config: Path, tmp_path: Path) -> None:
    """Each page is its own answer (its own template); the cursor reaches the server as
    the client wrote it, and a notification sent while a list is awaited passes."""
    names = [f"read_{n}" for n in range(5)] + ["write_x", "write_y"]
    configure(user_config, tools_file(tmp_path / "tools.json", names))
    user_config.write_text(user_config.read_text().replace(
        '"]\n', '", "--page", "3", "--notify"]\n', 1))
    assert run_mcpctl(["tools", "fs", "--disable", "write_*,read_1"], cwd=tmp_path).code == 0
    session = Session(tmp_path)
    try:
        for walk in range(2):
            pages, cursor = [], None
            for page in range(3):
                request: dict[str, Any] = {"jsonrpc": "2.0", "id": f"{walk}-{page}",
                                           "method": "tools/list"}
                if cursor is not None:
                    request["params"] = {"cursor": cursor}
                session.tell(request)
                notification = json.loads(session.lines.get(timeout=60))
                assert notification["method"] == "notifications/message"
                answer = json.loads(session.lines.get(timeout=60))
                assert answer["id"] == request["id"]
                pages.append([tool["name"] for tool in answer["result"]["tools"]])
                cursor = answer["result"].get("nextCursor")
            assert pages == [["read_0", "read_2"], ["read_3", "read_4"], []]
            assert cursor is None
    finally:
        assert session.close() == ""
