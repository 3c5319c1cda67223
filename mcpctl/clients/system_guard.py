"""System mode: the managed files an organisation deploys so that a client starts no
repo server except through `mcpctl run`, and no user or repo file can widen that
(issue 22; `mcpctl guard --system`).

- **Claude Code**, `/etc/claude-code/managed-settings.json`: `allowManagedMcpServersOnly`
  makes Claude Code read `allowedMcpServers` from this file alone (2.1.197: the user's
  and the repo's lists are ignored; `deniedMcpServers` still merges, which can only
  narrow). The list holds `mcpctl run --guard --key KEY` (the guard's one launch
  shape) and `mcpctl run NAME --key KEY` for each of the user tier's servers, KEY being
  the machine's guard key in `/etc/mcpctl/guard.key` (root-owned, readable by every
  user's mcpctl, which then writes it into the entries it exports: `guard_key.py`).
- **Gemini CLI**, `/etc/gemini-cli/settings.json` (or the file
  `GEMINI_CLI_SYSTEM_SETTINGS_PATH` names): its `mcpServers` win by name over every
  other layer, and `mcp.allowed` is intersected across layers (0.61.0: a repo cannot
  widen it; an empty list means no limit, so `mcpctl-guard` is always in it, defined
  there as a `mcpctl run --guard` that names nothing and so starts nothing). Each
  user-tier server is `mcpctl run NAME` there, and only those names are allowed: a
  repo's own servers never start, a repo entry named like yours runs yours. Measured
  with 0.61.0 at the real path in a private mount namespace: Gemini CLI skips a system
  file under a group- or world-writable folder (so not one under /tmp).
- **Codex**, `/etc/codex/requirements.toml`: its `[mcp_servers]` allowlist holds each
  user-tier server, its identity the exact command line `mcpctl run NAME`; every other
  server, a repo's included, is disabled, and no user or project file can widen it
  (`codex_requirements.py`, measured with 0.171.0). What it cannot stop, a trusted
  project adding `env` to an allowed entry, is `LIMITS["codex"]`.

`system_files` is pure: the files' contents from what is already there (other keys
are kept: a JSON file's parsed object, the TOML file's text) and the servers; the
command writes them atomically, readable by everyone.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcpctl.clients.codex_requirements import CODEX_REQUIREMENTS, requirements_text
from mcpctl.clients.codex_requirements import LIMIT as CODEX_LIMIT
from mcpctl.clients.guard_key import keyed
from mcpctl.clients.guarded import GEMINI_SENTINEL as SENTINEL
from mcpctl.clients.guarded import GEMINI_SYSTEM, GUARD_ARGS, MANAGED_SETTINGS
from mcpctl.errors import ConfigError

GEMINI_SYSTEM_VARIABLE = "GEMINI_CLI_SYSTEM_SETTINGS_PATH"
NOT_WRITTEN: dict[str, str] = {}  # every client that reads a repo's servers has its file
# What a managed file does not stop, per client (docs/design.md, threat model).
LIMITS = {"codex": CODEX_LIMIT}


@dataclass(frozen=True)
class SystemFile:
    """One managed file: where it goes, for which client, and its whole new text."""

    client: str
    path: str
    text: str


def claude_managed(old: Mapping[str, Any] | None, command: str,
                   names: Sequence[str], key: str) -> dict[str, Any]:
    """Claude Code's managed settings: only mcpctl's command lines, with `key`, may
    start."""
    data = copy.deepcopy(dict(old or {}))
    data["allowManagedMcpServersOnly"] = True
    data["allowedMcpServers"] = [{"serverCommand": [command, *keyed(GUARD_ARGS, key)]},
                                 *({"serverCommand": [command, *keyed(["run", name], key)]}
                                   for name in sorted(names))]
    return data


def gemini_system(old: Mapping[str, Any] | None, command: str,
                  names: Sequence[str]) -> dict[str, Any]:
    """Gemini CLI's system settings: the user tier's servers as `mcpctl run NAME`, and
    only those names allowed."""
    data = copy.deepcopy(dict(old or {}))
    servers = data.get("mcpServers")
    if servers is not None and not isinstance(servers, dict):
        raise ConfigError("mcpServers is not an object")
    servers = dict(servers or {})
    for name in sorted(names):
        servers[name] = {"command": command, "args": ["run", name]}
    servers[SENTINEL] = {"command": command, "args": list(GUARD_ARGS)}
    data["mcpServers"] = servers
    mcp = data.get("mcp")
    if mcp is not None and not isinstance(mcp, dict):
        raise ConfigError("mcp is not an object")
    data["mcp"] = {**(mcp or {}), "allowed": sorted({*names, SENTINEL})}
    return data


def system_files(existing: Mapping[str, Any], command: str, names: Sequence[str],
                 key: str, *, os_key: str, gemini_path: str | None = None
                 ) -> list[SystemFile]:
    """The managed files, each built over what `existing[path]` already holds (pure)."""
    claude = MANAGED_SETTINGS.get(os_key, MANAGED_SETTINGS["linux"])
    gemini = gemini_path or GEMINI_SYSTEM.get(os_key, GEMINI_SYSTEM["linux"])
    codex = CODEX_REQUIREMENTS.get(os_key, CODEX_REQUIREMENTS["linux"])
    built = [("claude-code", claude, claude_managed(existing.get(claude), command, names,
                                                    key)),
             ("gemini", gemini, gemini_system(existing.get(gemini), command, names))]
    return [*(SystemFile(client, path, json.dumps(data, indent=2) + "\n")
              for client, path, data in built),
            SystemFile("codex", codex, requirements_text(existing.get(codex), command, names))]
