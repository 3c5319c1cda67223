"""What one approval covers (DESIGN §4 `files`, revised; issue 11).

By default the whole workspace (`workspace.py`) but its MCP config files, minus what
the user excluded with `trust --ignore-changes-in DIR`, plus any file the definition
names that git would not hand a clone (an ignored `dist/server.js`). Only a
version-pinned registry package run by a known runner (`runner_inputs.py`) pins
less: the runner's enumerated workspace inputs, present or absent, plus the files
the definition names.

The files the definition names (`pinned_files.reached`) stay the readable headline of
the prompt ("runs scripts/server.py") whichever set applies. A path that names a
different file in every process (`/proc/self/…`, `/dev/fd/…`) makes the set unpinned:
mcpctl would pin its own file, and the server would run another.
"""

import json
import os
import re
import stat
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from mcpctl.config.formats import WORKSPACE_FORMATS
from mcpctl.model import NO_ENTRIES, ServerSpec
from mcpctl.pinning.digests import UNPINNED, digests
from mcpctl.pinning.manifest import WORKSPACE, manifest_digest
from mcpctl.pinning.pinned_files import Lookups, reached
from mcpctl.pinning.reach import Reach, reach_of
from mcpctl.pinning.runner_inputs import RunnerInputs, narrow_inputs
from mcpctl.pinning.workspace import FOLDER, Entry

if TYPE_CHECKING:
    from mcpctl.pinning.digest_cache import Memo

REMOTE = "remote"  # a server at a URL runs nothing here
ABSENT = "absent"  # a runner input that does not exist: creating it is a change
# The workspace's MCP files are data mcpctl reads, and each server's own entry is in its
# fingerprint: adding a server to `.mcp.json` must not unsettle the others' approvals.
_CONFIG_FILES = frozenset(f.relative_path for f in WORKSPACE_FORMATS)
_PER_PROCESS = re.compile(r"(?:^|[\s=:,;\"'])(/proc/(?:self|thread-self|\d+)|/dev/fd|"
                          r"/dev/std(?:in|out|err))(?:/|$|[\s:,;\"'])")


class PinSet(NamedTuple):
    """Every file an approval covers, with digests, and why it cannot be trusted if so."""

    kind: str  # WORKSPACE, or the runner whose inputs are pinned ("npx", "uvx")
    files: Mapping[str, str]  # every pinned path → digest
    named: tuple[str, ...] = ()  # the headline: workspace paths the definition names
    ignored: tuple[str, ...] = ()  # folders excluded by the user (`--ignore-changes-in`)
    unpinned: str | None = None  # why it cannot be trusted
    source: str = ""  # how the workspace was listed ("git", "folder"), or the package
    sizes: Mapping[str, Entry] = NO_ENTRIES  # size and lines of files, for the diffstat
    # Of `files`: given for a large set (computed once), else computed when asked.
    known_digest: str | None = None
    # The digest cache these files are read from, where a change report is kept once
    # computed (`trust.status`); None when the set is not exactly the cached one.
    memo: "Memo | None" = None

    @property
    def digest(self) -> str:
        return self.known_digest or manifest_digest(self.files)

    def describe(self) -> str:
        """One line for the prompt: which set applies."""
        if self.kind == REMOTE:
            return "no workspace file: the server is at a URL"
        if self.kind == WORKSPACE:
            how = "git's tracked and unignored files" if self.source != FOLDER \
                else "every file under the root"
            skip = f", except {', '.join(self.ignored)}" if self.ignored else ""
            return f"the whole workspace: {len(self.files):,} files ({how}{skip})"
        return (f"only what {self.kind} reads from the workspace for {self.source} "
                f"({len(self.files)} paths, present or absent): the package comes from the "
                "registry")


def pin_set(spec: ServerSpec, root: Path, *, environ: Mapping[str, str], home: Path | None,
            lookups: Lookups, ignored: Sequence[str] = ()) -> PinSet:
    if spec.command is None:
        return PinSet(REMOTE, {})
    reach = reach_of(spec, root, environ, home)
    hits = reached(reach, root, lookups)
    real_root = lookups.real_root(root)
    named = tuple(sorted(_relative(path, real_root, folder) for path, folder in hits.items()))
    process_bound = per_process(reach)
    inputs = narrow_inputs(reach.argv, reach.env, reach.path, has_cwd=spec.cwd is not None,
                           env_known=reach.env_known, real_root=real_root)
    narrow = _runner_set(inputs, hits, real_root, named) if inputs else None
    if narrow is not None:
        return narrow if process_bound is None else _unpinned(narrow, process_bound)
    workspace = lookups.workspace(root)
    kept = tuple(sorted({_folder(text) for text in ignored}))
    files, shared_digest = _shared(lookups, real_root, kept)
    digest = shared_digest
    # A program folder's files are in the set unless the user excluded where they are:
    # then the folder itself is pinned, as the interpreter resolves it (issue 23, item 3).
    extra = digests({path: folder for path, folder in hits.items()
                     if _relative(path, real_root, folder) not in files
                     and (not folder or _overlaps(_relative(path, real_root, folder), kept))},
                    real_root)
    if extra:  # an ignored file the definition names: this server's set is its own
        files = {**dict(files.items()), **dict(extra)}
        digest = manifest_digest(files)
    unpinned = process_bound or workspace.unpinned or _marker(extra)
    return PinSet(WORKSPACE, files, named, kept, unpinned, workspace.source,
                  workspace.entries, digest, None if extra else workspace.memo)


def _shared(lookups: Lookups, real_root: Path, kept: tuple[str, ...]
            ) -> tuple[Mapping[str, str], str]:
    """The workspace set and its digest, once per command for all servers alike. When
    git found nothing changed since the cache was written, the digest the cache keeps
    for these exclusions is the set's, and its digests are read only when asked."""
    key = (real_root, kept)
    if key not in lookups.shared:
        workspace = lookups.workspace(real_root)
        memo_key = f"set:{workspace.state}:{json.dumps(kept)}"
        known = workspace.memo.recall(memo_key) if workspace.memo is not None else None
        if known is not None and known.count(" ") == 1:
            digest, count = known.split(" ")
            lookups.shared[key] = (_Kept(workspace.entries, kept, int(count)), digest)
            return lookups.shared[key]
        if kept:
            files = {path: entry.digest for path, entry in workspace.entries.items()
                     if not _under(path, kept) and path not in _CONFIG_FILES}
        else:
            files = {path: entry[0] for path, entry in workspace.entries.items()}
            for config in _CONFIG_FILES:
                files.pop(config, None)
        digest = manifest_digest(files)
        if workspace.memo is not None:
            workspace.memo.remember(memo_key, f"{digest} {len(files)}")
        lookups.shared[key] = (files, digest)
    return lookups.shared[key]


class _Kept(Mapping[str, str]):
    """The workspace set read lazily from the cache: its entries but the MCP config
    files and the excluded folders."""

    def __init__(self, entries: Mapping[str, Entry], kept: tuple[str, ...], count: int) -> None:
        self.entries, self.kept, self.count = entries, kept, count

    def __getitem__(self, path: str) -> str:
        if path in _CONFIG_FILES or _under(path, self.kept):
            raise KeyError(path)
        return self.entries[path].digest

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[str]:
        return (path for path, _ in self.items())

    def items(self) -> Iterator[tuple[str, str]]:  # type: ignore[override]
        for path, entry in self.entries.items():
            if path not in _CONFIG_FILES and not _under(path, self.kept):
                yield path, entry.digest


def _runner_set(inputs: RunnerInputs, hits: Mapping[Path, bool], real_root: Path,
                named: tuple[str, ...]) -> PinSet | None:
    """The runner's inputs (by the path the runner reads, present or ABSENT) and the
    named files; None (the whole workspace) when one leads outside or past a bound."""
    files: dict[str, str] = {}
    sizes: dict[str, Entry] = {}
    for relative in inputs.paths:
        path = real_root / relative
        if not os.path.lexists(path):
            files[relative] = ABSENT
            continue
        real = Path(os.path.realpath(path))
        if not real.is_relative_to(real_root) or not (real.is_file() or real.is_dir()):
            return None
        [(_, digest)] = digests({real: real.is_dir()}, real_root)
        files[relative] = digest
        if real.is_file():  # its size and lines, for the diffstat `trust` shows
            sizes[relative] = _entry_of(real, digest)
    files.update(digests(dict(hits), real_root))
    if _marker(list(files.items())) is not None:
        return None
    return PinSet(inputs.runner, files, named, source=inputs.package, sizes=sizes)


def _entry_of(path: Path, digest: str) -> Entry:
    """Size and newlines of a regular file; opened without blocking, so a FIFO swapped
    in since its digest was taken costs nothing (and counts nothing)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return Entry(digest)
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return Entry(digest)
        data = handle.read()
    return Entry(digest, len(data), data.count(b"\n"))


def _unpinned(pins: PinSet, reason: str) -> PinSet:
    return PinSet(pins.kind, pins.files, pins.named, pins.ignored, reason, pins.source,
                  pins.sizes)


def _marker(pinned: Sequence[tuple[str, str]]) -> str | None:
    for path, digest in pinned:
        if digest.startswith(UNPINNED):
            return f"{path}: {digest.removeprefix(UNPINNED)}"
    return None


def per_process(reach: Reach) -> str | None:
    """Why a text of the launch names a per-process path, if one does."""
    texts = [*reach.argv, *reach.env.values(), reach.cwd, reach.env_file]
    for text in texts:
        match = _PER_PROCESS.search(text or "")
        if match:
            return (f"{match[1]}: a per-process path names one file in mcpctl and another in "
                    "the server; name the file itself")
    return None


def _relative(path: Path, real_root: Path, folder: bool) -> str:
    relative = path.relative_to(real_root).as_posix()
    return (relative.rstrip("/") + "/") if folder else relative


def _folder(text: str) -> str:
    return text.strip("/").replace(os.sep, "/") + "/"


def _overlaps(folder: str, excluded: Sequence[str]) -> bool:
    """Whether some of `folder`'s files are excluded: it is in, or holds, one of them."""
    return any(folder.startswith(other) or other.startswith(folder) for other in excluded)


def _under(path: str, folders: Sequence[str]) -> bool:
    return any(path.startswith(folder) for folder in folders)
