"""A cache of file digests, so an unchanged workspace costs a stat walk (issue 11, item 4).

One file per workspace in `<cache>/pins/`, named by the SHA-256 of the workspace's
real path. An entry is used only while the file's size, mtime, ctime and inode are
what they were when it was hashed: an archive or `touch -d` can restore an mtime,
but any write moves the ctime, which no unprivileged process can set back. The cache
is the user's own (a repo cannot write there); anything unreadable, malformed or of
another version is ignored and rebuilt. It is replaced atomically; two commands that
race both write a correct cache, and the last one stays.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from mcpctl.errors import ConfigError
from mcpctl.files.atomic import atomic_write_text
from mcpctl.sha256 import sha256_hex

SCHEMA_VERSION = 2
# path → [size, mtime_ns, ctime_ns, inode, hex digest, lines]: JSON builds it in C, and
# a row is checked only when used (`workspace._Hasher.entries`): one pass for 100,000.
Row = list[Any]


def cache_file(cache_dir: Path, real_root: str) -> Path:
    name = sha256_hex(real_root.encode("utf-8", "surrogateescape"))
    return cache_dir / "pins" / f"{name}.json"


def load(path: Path, real_root: str) -> dict[str, Row]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("schema_version") != SCHEMA_VERSION \
            or data.get("root") != real_root or not isinstance(data.get("files"), dict):
        return {}
    files: dict[str, Row] = data["files"]
    return files


def save(path: Path, real_root: str, entries: dict[str, Row]) -> None:
    text = json.dumps({"schema_version": SCHEMA_VERSION, "root": real_root, "files": entries},
                      separators=(",", ":"))  # ASCII: a non-UTF-8 file name survives
    with contextlib.suppress(ConfigError):  # an unwritable cache costs time, not correctness
        atomic_write_text(path, text, mode=0o600)
