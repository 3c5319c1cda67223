"""Judged tools/list answers kept across sessions: real files, a real key, two gates
standing for two sessions of `mcpctl run`."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from mcpctl.filtering import answer_store
from mcpctl.filtering.answer_store import DiskAnswers
from mcpctl.filtering.live import LiveFilter
from mcpctl.filtering.policy import ToolPolicy
from mcpctl.filtering.wire import ToolGate

POLICY = ToolPolicy(disabled=("write",), deny_destructive=True)
TOOLS: list[dict[str, Any]] = [
    {"name": "read", "description": "reads", "annotations": {"readOnlyHint": True}},
    {"name": "write", "description": "writes", "annotations": {"readOnlyHint": True}},
    {"name": "rm", "description": "removes", "annotations": {"destructiveHint": True}}]


def store(tmp_path: Path, policy: ToolPolicy = POLICY,
          hidden: Sequence[str] = ()) -> DiskAnswers:
    return DiskAnswers(tmp_path / "cache" / "tool-answers", tmp_path / "data" / "answers.key",
                       ["fs", policy, None], lambda: list(hidden))


def session(tmp_path: Path, tools: list[dict[str, Any]], policy: ToolPolicy = POLICY,
            hidden: Sequence[str] = ()) -> tuple[ToolGate, list[str]]:
    """One tools/list through a new gate (a new session); the tool names the client got."""
    disk = store(tmp_path, policy, hidden)
    g = ToolGate(LiveFilter("fs", policy), lambda _: None, nonce=os.urandom(4).hex(),
                 store=disk)
    g.prepare()
    forward, _ = g.from_client(b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
    assert forward is not None
    slot = json.loads(forward)["id"]
    out = g.from_server(json.dumps({"jsonrpc": "2.0", "id": slot,
                                    "result": {"tools": tools}}).encode())
    assert out is not None
    g.store_judged()
    g.flush(30)
    answer = json.loads(out)
    assert answer["id"] == 1
    return g, [t["name"] for t in answer["result"]["tools"]]


def entries(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache" / "tool-answers").glob("*.answer"))


def test_a_second_session_takes_the_answer_from_the_store(tmp_path: Path) -> None:
    g, names = session(tmp_path, TOOLS)
    assert names == ["read"]
    assert g.learned is not None
    assert g.learned.tools is not None  # judged here
    [entry] = entries(tmp_path)
    key = tmp_path / "data" / "answers.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert len(key.read_bytes()) == answer_store.KEY_BYTES
    g, names = session(tmp_path, TOOLS)
    assert names == ["read"]
    assert g.learned is not None
    assert g.learned.tools is None  # replayed from the store: nothing was parsed
    # A call is still judged by the definitions the store kept with the answer.
    assert g.from_client(b'{"jsonrpc":"2.0","id":2,"method":"tools/call",'
                         b'"params":{"name":"rm"}}')[0] is None
    assert g.from_client(b'{"jsonrpc":"2.0","id":3,"method":"tools/call",'
                         b'"params":{"name":"read"}}')[0] is not None
    assert entries(tmp_path) == [entry]


def forged(entry: bytes, key: bytes | None) -> bytes:
    """`entry` with the switched-off `write` put back into its answer, signed with `key`
    (as only mcpctl can), or with its old MAC kept (an edit by hand)."""
    mac, header_bytes, payload = entry.split(b"\n", 2)
    header = json.loads(header_bytes)
    start = header["before"] + header["after"]
    rest = payload[start:start + header["rest"]]
    forged_rest = rest.replace(b'"tools":[', b'"tools":[{"name":"write"},', 1)
    header["rest"] = len(forged_rest)
    body = b"".join((json.dumps(header).encode(), b"\n", payload[:start], forged_rest,
                     payload[start + len(rest):]))
    signed = mac if key is None else answer_store._blake2b(body, key=key).hexdigest().encode()
    return signed + b"\n" + body


@pytest.mark.parametrize("kind", [".latest", ".answer"])
def test_an_entry_edited_by_hand_is_not_used(tmp_path: Path, kind: str) -> None:
    """The attack: put the switched-off `write` back into the stored answer (the latest
    one, read as the server starts, or the one found by the answer's key). Signed again
    with the key the entry is served, so the store is what answers; edited without the
    key it is refused and the answer judged again."""
    session(tmp_path, TOOLS)
    folder = tmp_path / "cache" / "tool-answers"
    [entry] = folder.glob(f"*{kind}")
    original = entry.read_bytes()
    key_file = tmp_path / "data" / "answers.key"

    def only(content: bytes) -> None:  # the forged entry, and no other to answer
        for other in folder.iterdir():
            other.unlink()
        entry.write_bytes(content)

    only(forged(original, key_file.read_bytes()))
    g, names = session(tmp_path, TOOLS)
    assert names == ["write", "read"]  # the attack, with the key
    assert g.from_client(b'{"jsonrpc":"2.0","id":2,"method":"tools/call",'
                         b'"params":{"name":"write"}}')[0] is None  # still never called
    only(forged(original, None))  # by hand: the MAC is the old one
    g, names = session(tmp_path, TOOLS)
    assert names == ["read"]
    assert g.learned is not None
    assert g.learned.tools is not None  # judged again
    only(forged(original, key_file.read_bytes()))
    key_file.write_bytes(os.urandom(answer_store.KEY_BYTES))
    assert session(tmp_path, TOOLS)[1] == ["read"]  # another key: not trusted either


def test_the_latest_answer_is_the_first_template(tmp_path: Path) -> None:
    """A new session starts with the server's last answer under its policy as a
    template: no key hashed, no entry read on the first answer's path."""
    session(tmp_path, TOOLS)
    g = ToolGate(LiveFilter("fs", POLICY), lambda _: None, store=store(tmp_path))
    g.prepare()
    [template] = g.templates.entries
    assert template.judged.tools is None
    assert b'"rm"' in template.after
    other = ToolGate(LiveFilter("fs", ToolPolicy(disabled=("read",))), lambda _: None,
                     store=store(tmp_path, ToolPolicy(disabled=("read",))))
    other.prepare()  # another policy: none of its own yet
    assert other.templates.entries == []


def test_the_key_holds_the_policy_and_the_exact_answer(tmp_path: Path) -> None:
    session(tmp_path, TOOLS)
    [mine] = entries(tmp_path)
    # The same answer under another policy is judged under that policy.
    assert session(tmp_path, TOOLS, ToolPolicy(disabled=("read",)))[1] == ["write", "rm"]
    [other] = [entry for entry in entries(tmp_path) if entry != mine]
    # Signed, but stored under another key: copied over this one, it is not used.
    latest = {path.name: path for path in (tmp_path / "cache" / "tool-answers").glob("*.latest")}
    assert len(latest) == 2
    saved = {path: path.read_bytes() for path in [mine, *latest.values()]}
    mine.write_bytes(other.read_bytes())
    first, second = latest.values()
    first.write_bytes(saved[second])
    second.write_bytes(saved[first])
    assert session(tmp_path, TOOLS)[1] == ["read"]
    for path, data in saved.items():
        path.write_bytes(data)
    # One annotation changed: judged again (rm is no longer destructive).
    changed = [*TOOLS[:2], {**TOOLS[2], "annotations": {"readOnlyHint": True}}]
    assert session(tmp_path, changed)[1] == ["read", "rm"]
    assert len(entries(tmp_path)) == 3


def test_an_answer_showing_a_hidden_value_is_never_written(tmp_path: Path) -> None:
    leaky = [{**TOOLS[0], "description": "reads with token s3cr\"et-42"}]
    assert session(tmp_path, leaky, hidden=['s3cr"et-42'])[1] == ["read"]
    assert entries(tmp_path) == []
    assert session(tmp_path, leaky, hidden=["unrelated"])[1] == ["read"]
    assert len(entries(tmp_path)) == 1


def test_the_store_keeps_at_most_its_limit(tmp_path: Path) -> None:
    disk = store(tmp_path)
    folder = tmp_path / "cache" / "tool-answers"
    folder.mkdir(parents=True)
    left = folder / ".x.answer.abc.tmp"  # a writer killed mid-write left it
    left.write_bytes(b"half")
    os.utime(left, (1, 1))
    fresh = folder / ".y.answer.def.tmp"  # another writer's, still being written
    fresh.write_bytes(b"half")
    for number in range(answer_store.LIMIT + 5):
        tools = [{"name": f"read{number}", "annotations": {"readOnlyHint": True}}]
        g = ToolGate(LiveFilter("fs", POLICY), lambda _: None, store=disk)
        forward, _ = g.from_client(b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
        assert forward is not None
        slot = json.loads(forward)["id"]
        g.from_server(json.dumps({"jsonrpc": "2.0", "id": slot,
                                  "result": {"tools": tools}}).encode())
        g.store_judged()
        g.flush(30)
    assert len(entries(tmp_path)) == answer_store.LIMIT
    assert [p.name for p in folder.iterdir() if p.name.endswith(".tmp")] == [fresh.name]
