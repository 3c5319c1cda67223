"""Writing a client's file while the client rewrites it (Claude Code's ~/.claude.json)."""

from __future__ import annotations

import json
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mcpctl.clients.files import ConcurrentChange, read_client_text, write_client_file
from mcpctl.model import Problem

NOW = datetime(2026, 5, 4, 3, 2, 1, 123456, tzinfo=UTC)


def add_key(old: str | None) -> str:
    data = json.loads(old or "{}")
    data["mcpServers"] = {"gh": {"command": "mcpctl", "args": ["run", "gh"]}}
    return json.dumps(data)


def test_a_change_during_the_computation_is_redone_from_the_new_bytes(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    path.write_text('{"numStartups": 1}')
    calls: list[str | None] = []

    def compute(old: str | None) -> str:
        calls.append(old)
        if len(calls) == 1:  # the running client saves while mcpctl is computing
            path.write_text('{"numStartups": 2}')
        return add_key(old)

    result = write_client_file(path, compute, backup_dir=tmp_path / "backups",
                               lock_dir=tmp_path / "locks", now=lambda: NOW)
    assert calls == ['{"numStartups": 1}', '{"numStartups": 2}']
    assert (result.written, result.attempts) == (True, 2)
    assert json.loads(path.read_text()) == {"numStartups": 2, "mcpServers": {
        "gh": {"command": "mcpctl", "args": ["run", "gh"]}}}
    assert result.backup == tmp_path / "backups" / ".claude.json.20260504T030201.123456Z"
    assert result.backup.read_text() == '{"numStartups": 2}'


def test_a_client_that_keeps_writing_wins_and_nothing_is_written(tmp_path: Path) -> None:
    path = tmp_path / ".claude.json"
    path.write_text('{"n": 0}')
    count = 0

    def compute(old: str | None) -> str:
        nonlocal count
        count += 1
        path.write_text(json.dumps({"n": count}))
        return add_key(old)

    with pytest.raises(ConcurrentChange) as raised:
        write_client_file(path, compute, backup_dir=tmp_path / "backups",
                          lock_dir=tmp_path / "locks", now=lambda: NOW)
    assert str(raised.value) == (f"{path} changed while mcpctl was preparing its change (3 "
                                 "times); nothing was written; try again when the client is idle")
    assert raised.value.exit_code == 1
    assert path.read_text() == '{"n": 3}'
    assert not (tmp_path / "backups").exists()


def test_no_change_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text("{}")
    result = write_client_file(path, lambda old: old or "", backup_dir=tmp_path / "b",
                               lock_dir=tmp_path / "l", now=lambda: NOW)
    assert (result.written, result.backup) == (False, None)
    missing = write_client_file(tmp_path / "none.json", lambda old: old or "",
                                backup_dir=tmp_path / "b", lock_dir=tmp_path / "l",
                                now=lambda: NOW)
    assert missing.written is False
    assert not (tmp_path / "none.json").exists()


def test_backups_are_pruned(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    for second in range(25):
        path.write_text(str(second))
        write_client_file(path, lambda old: (old or "") + "x", backup_dir=tmp_path / "b",
                          lock_dir=tmp_path / "l",
                          now=lambda s=second: NOW.replace(second=s))  # type: ignore[misc]
    kept = sorted(p.read_text() for p in (tmp_path / "b").iterdir())
    assert kept == sorted(str(n) for n in range(20, 25))
    assert stat.S_IMODE((tmp_path / "b").stat().st_mode) == 0o700


def test_read_client_text_keeps_newlines(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b'{\r\n"a": 1}\r\n')
    assert read_client_text(path) == '{\r\n"a": 1}\r\n'
    assert read_client_text(tmp_path / "nope") == Problem(
        tmp_path / "nope", 1, 1, "cannot read: No such file or directory")
