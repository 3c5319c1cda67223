"""What the guard covers: Claude Code's reading of a repo's `.mcp.json`, and the names in it.

Apart from `write/guard.py` (which plans and writes the guard entries) so that `list`,
which only warns about servers the guard does not cover yet, reads the names without
importing the export machinery; and `guard_state`, what guards each client in a
workspace, which `clients`, `list` and `doctor` report.
"""


import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from mcpctl.clients.guard_key import key_in, without_key
from mcpctl.clients.guard_words import (
    BY_POLICY,
    GEMINI_SENTINEL,
    GEMINI_SYSTEM,
    GUARDED,
    NOT_GUARDED,
    NOTHING,
    GuardState,
    json_value,
)

if TYPE_CHECKING:
    from mcpctl.machine import Machine

# The reporting words live in guard_words.py; their importers find them here too.
__all__ = ["BY_POLICY", "GEMINI_SENTINEL", "GEMINI_SYSTEM", "GUARDED", "NOTHING",
           "NOT_GUARDED", "GuardState", "json_value"]

GUARDED_CLIENT = "claude-code"
GUARDED_FILE = ".mcp.json"  # the repo file Claude Code reads (the others are not its)

# The guard's one launch shape: `mcpctl run --guard`, with what to start in the entry's
# env, so one allowlist entry covers every guarded entry (issue 22).
GUARD_ARGS = ("run", "--guard")
GUARD_SERVER = "MCPCTL_GUARD_SERVER"
GUARD_WORKSPACE = "MCPCTL_GUARD_WORKSPACE"


def repo_server_names(path: Path) -> tuple[str, ...] | None:
    """Every name under `mcpServers` in a repo's `.mcp.json`, including entries mcpctl
    itself cannot read: Claude Code may start them, and the gate refuses them all the
    same. A missing file defines none; one mcpctl cannot read (not JSON, too large,
    `mcpServers` not an object) is None: the guard keeps what it had (fail closed)."""
    from mcpctl.config.tier_load import read_config_text  # noqa: PLC0415
    from mcpctl.model import Problem  # noqa: PLC0415
    from mcpctl.syntax import jsonc  # noqa: PLC0415

    if not path.exists():
        return ()
    text = read_config_text(path)
    if isinstance(text, Problem):
        return None
    try:
        document = jsonc.parse(text, jsonc=False)
    except jsonc.JsonSyntaxError:
        return None
    if not isinstance(document.value, dict):
        return None
    servers = document.value.get("mcpServers", {})
    return tuple(sorted(servers)) if isinstance(servers, dict) else None


# ---- what guards each client here (honest reporting, issue 22) -------------------------

# Claude Code's managed settings (admin-owned; the user's and the repo's files cannot
# widen an allowlist there once `allowManagedMcpServersOnly` is true).
MANAGED_SETTINGS = {"linux": "/etc/claude-code/managed-settings.json",
                    "macos": "/Library/Application Support/ClaudeCode/managed-settings.json",
                    "windows": "C:/Program Files/ClaudeCode/managed-settings.json"}
REPO_SETTINGS = (".claude/settings.json", ".claude/settings.local.json")
ENABLE_FIX = "mcpctl clients enable claude-code && mcpctl sync"


_OTHERS = {
    "vscode": GuardState("vscode", NOT_GUARDED, "its workspace file is not measured, and "
                         "mcpctl writes no guard for it", None),
    "cursor": GuardState("cursor", NOT_GUARDED, "its workspace file is not measured, and "
                         "mcpctl writes no guard for it", None),
    "claude-desktop": GuardState("claude-desktop", NOTHING, "it reads no repo's servers"),
    "windsurf": GuardState("windsurf", NOTHING, "it reads no repo's servers"),
}


def guard_state(client_id: str, *, synced: bool, root: Path, home: Path,
                environ: Mapping[str, str], os_key: str = "linux") -> GuardState:
    """What guards `client_id` in workspace `root`, read from the files the client reads
    (never raises: a file that cannot be read is said to be so)."""
    if client_id in ("gemini", "codex"):
        from mcpctl.clients.guard_trust import trust_state  # noqa: PLC0415

        return trust_state(client_id, root, home, environ, os_key)
    if client_id != GUARDED_CLIENT:
        return _OTHERS.get(client_id, GuardState(client_id, NOT_GUARDED, "not measured"))
    managed = json_value(Path(MANAGED_SETTINGS.get(os_key, MANAGED_SETTINGS["linux"])))
    if isinstance(managed, dict) and managed.get("allowManagedMcpServersOnly") is True:
        lines = managed.get("allowedMcpServers")
        if _has_guard_line(lines) and not _has_keyless_line(lines):
            return GuardState(client_id, BY_POLICY, "managed settings allow only `mcpctl "
                              "run` entries with the machine's guard key "
                              "(allowManagedMcpServersOnly), which no user or repo file can "
                              "widen")
        if _has_keyless_line(lines):
            return GuardState(client_id, NOT_GUARDED, "managed settings allow an `mcpctl "
                              "run` line without the machine's guard key, which a repo's "
                              "entry can reuse with an environment of its own (LD_PRELOAD)",
                              "sudo mcpctl guard --system --write")
    widening = [relative for relative in REPO_SETTINGS
                if _widens(json_value(root / relative))]
    if widening:
        return GuardState(client_id, NOT_GUARDED, f"the repo's {widening[0]} adds to Claude "
                          "Code's allowlist (allowedMcpServers), so its own servers can start "
                          "past mcpctl's gate", "managed settings that no repo can widen "
                          "(allowManagedMcpServersOnly): sudo mcpctl guard --system --write; "
                          "until then do not approve this repo's servers in Claude Code",
                          widening[0])
    if not synced:
        return GuardState(client_id, NOT_GUARDED, "claude-code is not in [clients] sync, so "
                          "mcpctl keeps no allowlist for it", ENABLE_FIX)
    folder = environ.get("CLAUDE_CONFIG_DIR")
    user = json_value((Path(folder) if folder else home / ".claude") / "settings.json")
    if not isinstance(user, dict) or not _has_guard_line(user.get("allowedMcpServers")):
        return GuardState(client_id, NOT_GUARDED, "Claude Code's allowlist "
                          "(~/.claude/settings.json allowedMcpServers) has no `mcpctl run "
                          "--guard` entry with the machine's guard key", "mcpctl sync")
    if _has_keyless_line(user.get("allowedMcpServers")):
        return GuardState(client_id, NOT_GUARDED, "Claude Code's allowlist "
                          "(~/.claude/settings.json allowedMcpServers) lets an `mcpctl run` "
                          "line without the machine's guard key start, which a repo's entry "
                          "can reuse with an environment of its own (LD_PRELOAD)",
                          "mcpctl sync")
    return GuardState(client_id, GUARDED, "Claude Code's allowlist lets only mcpctl's entries "
                      "(with the machine's guard key) start, and local entries start this "
                      "repo's .mcp.json servers through `mcpctl run --guard`")


def _has_guard_line(entries: Any) -> bool:
    """The guard's line, `mcpctl run --guard --key K` (any K: a repo cannot know the
    machine's, so reading the key file here would tell nothing more)."""
    return any(without_key(line[1:]) == list(GUARD_ARGS) and key_in(line) is not None
               for line in _mcpctl_lines(entries))


def _has_keyless_line(entries: Any) -> bool:
    """An `mcpctl run …` line without a key: one a repo's entry could reuse."""
    return any(key_in(line) is None for line in _mcpctl_lines(entries))


def _mcpctl_lines(entries: Any) -> list[list[Any]]:
    from mcpctl.clients.table import is_mcpctl_command  # noqa: PLC0415

    if not isinstance(entries, list):
        return []
    lines = [item.get("serverCommand") for item in entries if isinstance(item, dict)]
    return [line for line in lines if isinstance(line, list) and len(line) >= 2
            and is_mcpctl_command(line[0]) and line[1] == "run"]


def _widens(settings: Any) -> bool:
    """A repo settings file with entries of its own in `allowedMcpServers` (any: Claude
    Code adds them to the user's list), or one Claude Code may read and mcpctl cannot."""
    if settings == "":
        return True
    return isinstance(settings, dict) and bool(settings.get("allowedMcpServers"))


# The workspace file each client reads a repo's servers from (clients/table.py).
READ_BY = {".mcp.json": "claude-code", ".gemini/settings.json": "gemini",
           ".codex/config.toml": "codex", ".vscode/mcp.json": "vscode",
           ".cursor/mcp.json": "cursor"}


def client_reading(path: Path, root: Path) -> str | None:
    """The client that reads the repo file at `path` (under `root`), if one does."""
    try:
        return READ_BY.get(path.relative_to(root).as_posix())
    except ValueError:
        return None


REPO_READERS = (GUARDED_CLIENT, "gemini", "codex", "vscode", "cursor")


def guard_states_here(machine: "Machine", clients: tuple[str, ...] = REPO_READERS
                      ) -> dict[str, GuardState]:
    """`guard_state` of each client that reads a repo's servers, in `machine.root` (as
    `clients` reads them; Gemini CLI's trust from a subfolder is its own: not yet read)."""
    from mcpctl.clients.settings import read_client_settings  # noqa: PLC0415
    from mcpctl.errors import McpctlError  # noqa: PLC0415

    try:
        synced = set(read_client_settings(machine.config_file).sync)
    except McpctlError:  # reported by the user tier's own reading
        synced = set()
    return {client: guard_state(client, synced=client in synced, root=machine.root,
                                home=machine.home, environ=machine.environ,
                                os_key=machine.os_key)
            for client in clients}


class AlsoRead(NamedTuple):
    """A `.mcp.json` Claude Code reads from here that mcpctl's workspace tier does not."""

    path: Path
    servers: tuple[str, ...] | None  # None: mcpctl cannot read it


def claude_code_also_reads(machine: "Machine") -> list[AlsoRead]:
    """Claude Code reads `.mcp.json` in its folder and every parent up to `/` (measured
    with 2.1.197); mcpctl's workspace tier reads the root's only. These are the others,
    nearest first, from the current folder when it is inside the root, else from the
    root: what `claude mcp list` there would also show. One stat per folder."""
    root = Path(os.path.realpath(machine.root))
    here = Path(os.path.realpath(machine.cwd))
    start = here if here == root or root in here.parents else root
    found: list[AlsoRead] = []
    for folder in (start, *start.parents):
        path = folder / GUARDED_FILE
        if folder == root or not path.is_file():
            continue
        found.append(AlsoRead(path, repo_server_names(path)))
    return found
