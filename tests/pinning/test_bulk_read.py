"""The first pass's bulk reader (`pinning/bulk_read.py`): the same digests as one file
at a time, in order, split over threads, and never past the byte bound."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from mcpctl.pinning.bulk_read import MIN_PER_THREAD, read_small


def files(root: Path, count: int) -> list[str]:
    names = []
    for number in range(count):
        folder = root / f"d{number // 500:03d}"
        folder.mkdir(exist_ok=True)
        (folder / f"f{number}.js").write_text(f"x = {number};\n" * (number % 3))
        names.append(f"d{number // 500:03d}/f{number}.js")
    return names


def test_threads_give_each_file_its_own_digest_in_order(tmp_path: Path) -> None:
    names = files(tmp_path, 2 * MIN_PER_THREAD + 10)
    reads = read_small(f"{tmp_path}/", names, 1 << 30, threads=2)
    assert len(reads) == len(names)
    for name, read in zip(names, reads, strict=True):
        assert read is not None
        data = (tmp_path / name).read_bytes()
        status, digest, lines = read
        assert (status.st_size, status.st_ino) == (len(data), (tmp_path / name).stat().st_ino)
        assert (digest, lines) == (hashlib.sha256(data).hexdigest(), data.count(b"\n"))


def test_each_thread_stops_at_its_share_of_the_byte_bound(tmp_path: Path) -> None:
    """Two threads, 60 bytes: each reads files until its 30 bytes are used and leaves
    the rest to the caller (None), so no more than the bound is read in all."""
    names = files(tmp_path, 2 * MIN_PER_THREAD)
    reads = read_small(f"{tmp_path}/", names, 60, threads=2)
    read_bytes = sum(read[0].st_size for read in reads if read is not None)
    assert 0 < read_bytes <= 60
    half = len(names) // 2
    for part in (reads[:half], reads[half:]):
        assert 0 < sum(read[0].st_size for read in part if read is not None) <= 30
    assert any(read is None for read in reads)


def test_links_special_and_large_files_are_left_to_the_caller(tmp_path: Path) -> None:
    (tmp_path / "small.js").write_text("ok\n")
    (tmp_path / "link.js").symlink_to("small.js")
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "large.bin").write_bytes(b"\0" * (1024 * 1024))
    (tmp_path / "folder").mkdir()
    names = ["small.js", "link.js", "pipe", "large.bin", "folder", "gone.js"]
    reads = read_small(f"{tmp_path}/", names, 1 << 30)
    assert [read is None for read in reads] == [False, True, True, True, True, True]
    first = reads[0]
    assert first is not None
    assert first[1:] == (hashlib.sha256(b"ok\n").hexdigest(), 1)
