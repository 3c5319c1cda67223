"""Workspace config formats as data: one row per client file (DESIGN §2, STYLE 9).

Adding a client's format is one row here plus a fixture under tests/. A row says where
the file lives in a repo, how it is written (JSON, JSONC or TOML), where its servers
are, what its fields are called, in what unit its `timeout` is, and which variable
syntax the client that reads it expands. `check` (the pre-commit hook's `files:`
pattern included) and the workspace tier read the same rows.
"""

import re
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path, PurePosixPath
from typing import NamedTuple

# Field names other clients use for what mcpctl calls `url`.
_URL_ALIASES: Mapping[str, str] = {"serverUrl": "url", "httpUrl": "url"}


class Syntax(StrEnum):
    JSON = "json"
    JSONC = "jsonc"
    TOML = "toml"


class Reach(StrEnum):
    """Which folders' copies of its file a client reads, from the folder it runs in
    (issue 22 item 2; measured, DESIGN "What each client reads, from a working
    directory"). Nearest first; for one name the nearest file wins (a `layered`
    format's files merge key by key instead)."""

    ROOT = "root"  # the workspace root's file only (not measured: as it always was)
    HERE = "here"  # the current folder's only (Gemini CLI)
    UP_TO_ROOT = "up to root"  # the current folder, each parent, the git root (Codex)
    UP_TO_TOP = "up to /"  # the current folder and every parent up to / (Claude Code)


class ConfigFormat(NamedTuple):
    """One workspace config format: its file, top-level key, syntax and field aliases."""

    id: str
    relative_path: str
    top_key: str
    syntax: Syntax
    client: str  # the program that reads the file, as messages name it
    aliases: Mapping[str, str] = _URL_ALIASES  # shared, never written to
    # Top-level keys that may stand beside `top_key` without a finding; None: any key
    # (a client's whole settings file, where servers are one setting among many).
    companion_keys: frozenset[str] | None = frozenset({"$schema"})
    # What a `timeout` of 1 means, in seconds (Kiro and Gemini count milliseconds).
    timeout_seconds: float = 1.0
    # References the client expands itself (DESIGN §3); None: not known, so not judged.
    variables: frozenset[str] | None = None
    # The file name says nothing more than "MCP" (a root `mcp.json`): a file without a
    # servers key is some other tool's file, and `servers` is read as well.
    generic: bool = False
    # Read by the workspace tier (`list`, `trust`, `run`); False: only linted.
    workspace: bool = True
    # Recognised by its file name in any folder (it has no fixed place in a repo).
    any_folder: bool = False
    # The folders read from a subfolder of the workspace (`-w` reads only the root's).
    reach: Reach = Reach.ROOT
    # Those folders' entries of one name merge key by key, the nearest winning per key
    # (Codex's layers), instead of the nearest shadowing the farther whole.
    layered: bool = False

    @property
    def jsonc(self) -> bool:
        return self.syntax is Syntax.JSONC

    def servers_key(self, top: Mapping[str, object]) -> str:
        """The key this file's servers are under (a generic file may use `servers`)."""
        if self.generic and self.top_key not in top and isinstance(top.get("servers"), dict):
            return "servers"
        return self.top_key


_VSCODE_VARIABLES = frozenset({"${workspaceFolder}", "${env:NAME}", "${input:ID}"})

WORKSPACE_FORMATS: tuple[ConfigFormat, ...] = (
    ConfigFormat("claude", ".mcp.json", "mcpServers", Syntax.JSON, "Claude Code",
                 variables=frozenset({"${VAR}"}), reach=Reach.UP_TO_TOP),
    ConfigFormat("mcp.json", "mcp.json", "mcpServers", Syntax.JSON, "mcpctl", generic=True),
    ConfigFormat("vscode", ".vscode/mcp.json", "servers", Syntax.JSONC, "VS Code",
                 companion_keys=frozenset({"$schema", "inputs"}), variables=_VSCODE_VARIABLES),
    ConfigFormat("cursor", ".cursor/mcp.json", "mcpServers", Syntax.JSON, "Cursor",
                 variables=frozenset({"${workspaceFolder}", "${env:NAME}"})),
    ConfigFormat("kiro", ".kiro/settings/mcp.json", "mcpServers", Syntax.JSON, "Kiro",
                 timeout_seconds=0.001),
    ConfigFormat("roo", ".roo/mcp.json", "mcpServers", Syntax.JSON, "Roo Code",
                 variables=frozenset({"${env:NAME}"})),
    # Gemini CLI reads settings.json with comments allowed (as its own `mcp add` keeps them).
    ConfigFormat("gemini", ".gemini/settings.json", "mcpServers", Syntax.JSONC, "Gemini CLI",
                 companion_keys=None, timeout_seconds=0.001,
                 variables=frozenset({"${VAR}", "$VAR"}), reach=Reach.HERE),
    ConfigFormat("codex", ".codex/config.toml", "mcp_servers", Syntax.TOML, "Codex",
                 aliases={"http_headers": "headers"}, companion_keys=None,
                 variables=frozenset(), reach=Reach.UP_TO_ROOT, layered=True),
    ConfigFormat("claude-desktop", "claude_desktop_config.json", "mcpServers", Syntax.JSON,
                 "Claude Desktop", companion_keys=None, variables=frozenset(),
                 workspace=False, any_folder=True),
)

# The `type` values clients write, mapped to mcpctl's transports.
TRANSPORT_ALIASES: Mapping[str, str] = {
    "stdio": "stdio",
    "local": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamableHttp": "http",
    "remote": "http",
    "sse": "sse",
}

ALL_TOP_KEYS = frozenset(f.top_key for f in WORKSPACE_FORMATS if f.syntax is not Syntax.TOML)


def folders_read(reach: Reach, here: Path, root: Path) -> tuple[Path, ...]:
    """Pure: the folders whose file a client of `reach` reads from `here` (the root or
    a folder inside it), nearest first."""
    if reach is Reach.ROOT:
        return (root,)
    if reach is Reach.HERE:
        return (here,)
    up = (here, *here.parents)
    if reach is Reach.UP_TO_TOP:
        return up
    return up[:up.index(root) + 1] if root in up else (here,)


def format_by_id(format_id: str) -> ConfigFormat | None:
    return next((f for f in WORKSPACE_FORMATS if f.id == format_id), None)


def format_for_path(path: str) -> ConfigFormat | None:
    """A file's format from its path: the row whose path is the longest tail of it
    (`x/.vscode/mcp.json` → vscode, `.kiro/settings/mcp.json` → kiro, not mcp.json)."""
    parts = PurePosixPath(path.replace("\\", "/")).parts
    best: ConfigFormat | None = None
    for candidate in WORKSPACE_FORMATS:
        tail = PurePosixPath(candidate.relative_path).parts
        if tuple(parts[-len(tail):]) == tail and (
            best is None or len(tail) > len(PurePosixPath(best.relative_path).parts)
        ):
            best = candidate
    return best


def hook_pattern(extra_paths: tuple[str, ...] = ()) -> str:
    """The pre-commit `files:` regex: exactly the known paths from a repo's root, and
    the files that have no fixed place by name in any folder (issue 13: `*/mcp.json`
    matched Kiro's and Roo's files and every example folder)."""
    rooted = [f.relative_path for f in WORKSPACE_FORMATS if not f.any_folder]
    anywhere = [f.relative_path for f in WORKSPACE_FORMATS if f.any_folder]
    alternatives = "|".join(re.escape(p) for p in (*rooted, *extra_paths))
    return f"^({alternatives})$|(^|/)({'|'.join(re.escape(p) for p in anywhere)})$"
