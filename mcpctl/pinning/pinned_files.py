"""Which workspace files a server runs, and their content digests (DESIGN §4).

A repo must not be able to swap the code behind an approved command line, so every
path the launch could load code from is tried, the way the launch will see it:

- `pin_reach`: the definition expanded as the launch will expand it (secrets excepted);
- `pin_candidates` (with `pin_interpreters`): every path text it names, the program or
  `-m` module of an interpreter included;
- `pin_paths`: which of those are workspace files or program folders, relative to the
  server's cwd and to the workspace root, and the program found on the child's `PATH`;
- `pin_digests`: their digests, bounded, with an `unpinned:` marker past a bound, so the
  gate refuses the server: mcpctl never accepts a file it did not hash.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

from mcpctl.model import PinnedFile, ServerSpec
from mcpctl.pinning.digests import MAX_BYTES, UNPINNED, digests
from mcpctl.pinning.paths import Hit, inside, named
from mcpctl.pinning.program import on_path
from mcpctl.pinning.reach import Reach, reach_of
from mcpctl.pinning.workspace import WorkspaceFiles, workspace_files

NO_ENVIRONMENT: Mapping[str, str] = MappingProxyType({})


def pinned_files(spec: ServerSpec, root: Path, *, environ: Mapping[str, str] = NO_ENVIRONMENT,
                 home: Path | None = None, lookups: Lookups | None = None) -> list[PinnedFile]:
    """The pinned set of a definition, expanded with the environment its launch will get."""
    if spec.command is None:
        return []
    return pins_of(reach_of(spec, root, environ, home), root, lookups)


def unpinned_reason(files: Sequence[PinnedFile]) -> str | None:
    """Why the set cannot be trusted (its first marker), or None when every file is hashed."""
    for path, digest in files:
        if digest.startswith(UNPINNED):
            return f"{path}: {digest.removeprefix(UNPINNED)}"
    return None


class Lookups:
    """What one command (a `list`, a `trust`) learns once for all the servers it pins:
    the workspace's real path, its files and where each program is on PATH. A launch
    never shares one: it looks again."""

    def __init__(self, cache_dir: Path | None = None,
                 environ: Mapping[str, str] = NO_ENVIRONMENT) -> None:
        self.cache_dir = cache_dir  # the digest cache's folder; None: hash everything
        self.environ = environ  # what git runs with
        self.real_roots: dict[Path, Path] = {}
        self.programs: dict[tuple[str | None, str | None, str, Path], Hit | None] = {}
        self.workspaces: dict[Path, WorkspaceFiles] = {}
        # (real root, excluded folders) → the workspace set and its digest (`pin_set`)
        self.shared: dict[tuple[Path, tuple[str, ...]], tuple[Mapping[str, str], str]] = {}

    def real_root(self, root: Path) -> Path:
        if root not in self.real_roots:
            self.real_roots[root] = Path(os.path.realpath(root))
        return self.real_roots[root]

    def program(self, command: str | None, path: str | None, cwd: str,
                real_root: Path) -> Hit | None:
        key = (command, path, cwd, real_root)
        if key not in self.programs:
            found = on_path(command, path, cwd)
            self.programs[key] = None if found is None \
                else inside(found, real_root, folder_ok=False)
        return self.programs[key]

    def workspace(self, root: Path) -> WorkspaceFiles:
        real_root = self.real_root(root)
        if real_root not in self.workspaces:
            self.workspaces[real_root] = workspace_files(real_root, self.environ,
                                                         self.cache_dir)
        return self.workspaces[real_root]


def reached(reach: Reach, root: Path, lookups: Lookups) -> dict[Path, bool]:
    """Real path → is a program folder, for each workspace path the launch names."""
    real_root = lookups.real_root(root)
    cwd = reach.cwd or str(root)
    found = dict(named(reach, root, cwd, real_root))
    program = lookups.program(reach.argv[0] if reach.argv else None, reach.path, cwd,
                              real_root)
    if program is not None:
        found.setdefault(*program)
    return found


def pins_of(reach: Reach, root: Path, lookups: Lookups | None = None,
            budget: int = MAX_BYTES) -> list[PinnedFile]:
    """Every workspace file (or program folder) the launch names, with its digest;
    `budget`: the bytes hashed at most (the whole workspace's bound for its set)."""
    lookups = lookups or Lookups()
    return digests(reached(reach, root, lookups), lookups.real_root(root), budget)
