"""The one atomic write and the one lock, pinned case by case (issue 16).

Real files in tmp_path and, for the lock, a second real process trying to take it.
"""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest

from mcpctl.errors import ConfigError
from mcpctl.files.atomic import atomic_write_text, file_lock
from tests.processes import open_descriptor_targets

TRY_LOCK = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
try:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
except BlockingIOError:
    print("busy")
else:
    print("free")
"""


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_a_new_file_is_written_whole_and_0600(tmp_path: Path) -> None:
    target = tmp_path / "new" / "deeper" / "state.json"
    atomic_write_text(target, "één\r\nline\n")
    assert target.read_bytes() == "één\r\nline\n".encode()  # UTF-8, newlines as given
    assert mode_of(target) == 0o600
    assert leftovers(target.parent) == []


def test_an_existing_file_keeps_its_mode_unless_one_is_given(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    target.write_text("old")
    target.chmod(0o640)
    atomic_write_text(target, "new")
    assert (target.read_text(), mode_of(target)) == ("new", 0o640)
    atomic_write_text(target, "newer", mode=0o600)
    assert (target.read_text(), mode_of(target)) == ("newer", 0o600)
    atomic_write_text(tmp_path / "fresh", "x", mode=0o644)
    assert mode_of(tmp_path / "fresh") == 0o644
    (tmp_path / "script").write_text("old")
    (tmp_path / "script").chmod(0o755)  # every permission bit is kept, execute included
    atomic_write_text(tmp_path / "script", "new")
    assert mode_of(tmp_path / "script") == 0o755


def test_the_mode_must_be_named(tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        atomic_write_text(tmp_path / "f", "x", 0o644)  # type: ignore[call-arg]
    assert not (tmp_path / "f").exists()


def test_a_symlink_stays_a_symlink_and_its_target_is_replaced(tmp_path: Path) -> None:
    (tmp_path / "dotfiles").mkdir()
    real = tmp_path / "dotfiles" / "config.toml"
    real.write_text("old")
    link = tmp_path / "config.toml"
    link.symlink_to(real)
    atomic_write_text(link, "new")
    assert link.is_symlink()
    assert real.read_text() == "new"
    assert leftovers(tmp_path) == []
    assert leftovers(real.parent) == []


def test_a_failed_write_names_the_file_leaves_it_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.mkdir()  # a folder in the way: the replace fails after the temp is written
    (target / "inside").write_text("kept")
    with pytest.raises(ConfigError) as raised:
        atomic_write_text(target, "new")
    assert str(raised.value) == (f"cannot write {target}: Is a directory; the file was not "
                                 "changed")
    assert (target / "inside").read_text() == "kept"
    assert leftovers(tmp_path) == []


def test_a_file_where_the_folder_should_be_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("not a folder")
    with pytest.raises(ConfigError, match=r"^cannot write .*/data/state\.json: "):
        atomic_write_text(tmp_path / "data" / "state.json", "x")
    assert (tmp_path / "data").read_text() == "not a folder"


def try_lock(lock: Path) -> str:
    done = subprocess.run([sys.executable, "-c", TRY_LOCK, str(lock)], capture_output=True,
                          text=True, timeout=30, check=True)
    return done.stdout.strip()


def test_the_lock_excludes_another_process_and_is_released(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "trust.json"  # folders made as needed
    lock = tmp_path / "a" / "b" / "trust.json.lock"
    with file_lock(target):
        assert mode_of(lock) == 0o600
        assert try_lock(lock) == "busy"
    assert try_lock(lock) == "free"
    assert not target.exists()  # locking never creates the file itself
    with file_lock(target):  # and it can be taken again
        assert try_lock(lock) == "busy"


def test_the_lock_is_released_when_the_block_fails(tmp_path: Path) -> None:
    target = tmp_path / "trust.json"
    with pytest.raises(RuntimeError, match="inside"), file_lock(target):
        raise RuntimeError("inside")
    assert try_lock(tmp_path / "trust.json.lock") == "free"


def test_a_lock_that_cannot_be_made_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("not a folder")
    target = tmp_path / "data" / "trust.json"
    with pytest.raises(ConfigError) as raised, file_lock(target):
        pytest.fail("the block ran without a lock")
    assert str(raised.value) == (f"cannot lock {target}.lock: File exists; nothing was "
                                 "changed")


def descriptors_into(folder: Path) -> list[str]:
    """What this process's open descriptors name inside `folder`."""
    return [name for name in open_descriptor_targets()
            if name == str(folder) or name.startswith(f"{folder}/")]


def test_no_descriptor_is_left_open(tmp_path: Path) -> None:
    """Fails with the lock's descriptor left open (`os.close` dropped in `file_lock`), or
    the folder's, opened to sync it (dropped in `_fsync_dir`)."""
    for _ in range(5):
        with file_lock(tmp_path / "f"):
            atomic_write_text(tmp_path / "f", "x")
            assert descriptors_into(tmp_path) == [f"{tmp_path}/f.lock"]
    assert descriptors_into(tmp_path) == []
