"""Which workspace files a server runs, and their content digests (DESIGN §4).

When the command, an argument or `envFile` names a regular file inside the workspace
(after `${workspaceFolder}` expansion; relative to `cwd`, else the root; symlinks
followed), its content is part of the fingerprint, so a repo cannot swap the script
behind an approved `bash scripts/server.sh`. Bounded: at most MAX_FILES files per
server and MAX_BYTES bytes hashed per server; beyond that a file's digest is
`unhashed:size=N`, which still changes when its size does, and `show` says so.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from mcpctl.fingerprint import PinnedFile
from mcpctl.model import ServerSpec

MAX_FILES = 32
MAX_BYTES = 64 * 1024 * 1024
_CHUNK = 1024 * 1024


def pinned_files(spec: ServerSpec, root: Path) -> list[PinnedFile]:
    real_root = Path(os.path.realpath(root))
    bases = dict.fromkeys([_base_dir(spec, root), root])
    found: dict[str, Path] = {}
    for candidate in _candidates(spec):
        for base in bases:
            path = _inside(_expand(candidate, root), base, real_root)
            if path is not None and len(found) < MAX_FILES:
                found.setdefault(path.relative_to(real_root).as_posix(), path)
    budget = MAX_BYTES
    pinned: list[PinnedFile] = []
    for relative, path in sorted(found.items()):
        digest, used = _digest(path, budget)
        budget -= used
        pinned.append((relative, digest))
    return pinned


def _candidates(spec: ServerSpec) -> Iterator[str]:
    if spec.command:
        yield spec.command
    yield from spec.args
    if spec.env_file:
        yield spec.env_file


def _expand(text: str, root: Path) -> str:
    return text.replace("${workspaceFolder}", str(root))


def _base_dir(spec: ServerSpec, root: Path) -> Path:
    if spec.cwd:
        cwd = Path(_expand(spec.cwd, root))
        return cwd if cwd.is_absolute() else root / cwd
    return root


def _inside(text: str, base: Path, real_root: Path) -> Path | None:
    if not text or "\0" in text or text.startswith("-") or "${" in text:
        return None
    candidate = os.path.join(base, text)  # an absolute `text` stays as it is
    try:
        # One stat first: most arguments are not files, and realpath costs a stat per
        # path component (1,000 servers in a workspace must still list fast).
        if not stat.S_ISREG(os.stat(candidate).st_mode):
            return None
        real = Path(os.path.realpath(candidate))
        if not real.is_relative_to(real_root):
            return None
    except (OSError, ValueError):
        return None
    return real


def _digest(path: Path, budget: int) -> tuple[str, int]:
    try:
        size = path.stat().st_size
        if size > budget:
            return f"unhashed:size={size}", 0
        hasher = hashlib.sha256()
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                hasher.update(chunk)
    except OSError as error:
        return f"unreadable:{error.strerror or 'error'}", 0
    return "sha256:" + hasher.hexdigest(), size
