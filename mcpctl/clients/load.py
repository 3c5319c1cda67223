"""Reading what one client would read here: its own files, then the repo's (edge).

`load_client` reads the files and hands their text to the pure
`read_client_document`. A file that cannot be read is a Problem and never hides the
others. Servers a repo defines are shown, never imported.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from mcpctl.clients.document import Found, read_client_document
from mcpctl.clients.files import read_client_text
from mcpctl.clients.server import SCOPE_ORDER, ClientServer
from mcpctl.clients.table import ClientFormat, client_file
from mcpctl.model import Definition, Problem, Source, Tier

if TYPE_CHECKING:
    from mcpctl.config.formats import ConfigFormat

_REPO_DEFINED = ("defined by the repo: mcpctl imports only your own files (approve it with "
                 "`mcpctl trust`)",)


@dataclass(frozen=True)
class ClientFile:
    path: Path
    scope: str
    exists: bool


@dataclass
class ClientLoad:
    client: ClientFormat
    files: list[ClientFile] = field(default_factory=list)
    servers: list[ClientServer] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def add(self, servers: list[ClientServer], problems: list[Problem]) -> None:
        self.servers += servers
        self.problems += problems


def user_files(client: ClientFormat, os_key: str, environ: Mapping[str, str],
               home: Path, override: Path | None = None) -> list[tuple[Path, str]]:
    """The client's own files: the main one, then VS Code's profile files."""
    main = override or client_file(client, os_key, environ, home)
    files = [(main, "user")]
    if client.profile_glob and override is None:
        files += [(path, f"profile {path.parent.name}")
                  for path in sorted(main.parent.glob(client.profile_glob))]
    return files


def load_client(client: ClientFormat, root: Path, os_key: str, environ: Mapping[str, str],
                home: Path, *, override: Path | None = None,
                workspace: bool = True) -> ClientLoad:
    """Everything `client` would read here: its own files, then the repo's files it
    reads (shown, never imported). A bad file never hides the others."""
    load = ClientLoad(client)
    for path, scope in user_files(client, os_key, environ, home, override):
        exists = path.exists() or path.is_symlink()
        load.files.append(ClientFile(path, scope, exists))
        if exists:
            load.add(*_read_file(client, path, root, scope))
    if workspace:
        own = {_resolved(f.path) for f in load.files}
        for relative in client.workspace_files:
            # In the home folder, ~/.cursor/mcp.json is both the user's file and the
            # "repo" file: it is the user's.
            path = root / relative
            if client.id == "codex" and not codex_trusts(root, load.files[0].path):
                continue  # Codex reads a project's own file only once it trusts the project
            if _resolved(path) not in own and (path.exists() or path.is_symlink()):
                load.files.append(ClientFile(path, "project", True))
                load.add(*_read_workspace_file(client, path, relative, root))
    return load


def codex_trusts(root: Path, user_file: Path) -> bool:
    """Does the user's Codex config mark `root` trusted (`[projects."<path>"]
    trust_level = "trusted"`, the path as written or resolved)? An unreadable file: no."""
    from mcpctl.syntax.toml_loads import load_toml  # noqa: PLC0415

    text = read_client_text(user_file)
    if isinstance(text, Problem):
        return False
    try:
        projects = load_toml(text).get("projects")
    except ValueError:
        return False
    if not isinstance(projects, dict):
        return False
    for key in dict.fromkeys((str(root), str(_resolved(root)))):
        entry = projects.get(key)
        if isinstance(entry, dict) and entry.get("trust_level") == "trusted":
            return True
    return False


def _resolved(path: Path) -> Path:
    """`path` with symlinks followed; as it is when they cannot be (a loop, which
    reading the file then reports as a Problem)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # 3.11 raises RuntimeError for a symlink loop
        return path


def _read_file(client: ClientFormat, path: Path, root: Path, scope: str,
               tier: Tier = Tier.CLIENT) -> Found:
    text = read_client_text(path)
    if isinstance(text, Problem):
        return [], [text]
    return read_client_document(client, text, path, root, scope=scope, tier=tier)


def _read_workspace_file(client: ClientFormat, path: Path, relative: str,
                         root: Path) -> Found:
    from mcpctl.config.formats import format_for_path  # noqa: PLC0415

    fmt = format_for_path(relative)
    servers, problems = _read_workspace_format(client, path, fmt) if fmt is not None \
        else _read_file(client, path, root, "project", Tier.WORKSPACE)
    return [replace(s, unsupported=(*_REPO_DEFINED, *s.unsupported)) for s in servers], \
        problems


def _read_workspace_format(client: ClientFormat, path: Path, fmt: ConfigFormat) -> Found:
    """A repo file mcpctl also reads as the workspace tier (`.mcp.json`...)."""
    from mcpctl.config.workspace import load_workspace_file  # noqa: PLC0415

    precedence = SCOPE_ORDER.index("project")
    tier = load_workspace_file(path, fmt, precedence)
    servers = []
    for definition in tier.definitions:
        spec = definition.spec
        # Never mcpctl's, whatever it looks like: a repo can write `mcpctl run NAME` with
        # its own MCPCTL_HOME, and only the user's own files hold what mcpctl exported.
        source = Source(Tier.WORKSPACE, path, definition.source.line, precedence, client.id)
        servers.append(ClientServer(client.id, "project", Definition(spec, source), False))
    return servers, tier.problems
