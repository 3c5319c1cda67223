"""What guards Gemini CLI and Codex in a workspace (issue 22, honest reporting): the
file `mcpctl guard --system` writes, else nothing but the client's own trust.

Neither client has a user-level guard (docs/design.md, "Gemini CLI and Codex at user
level"): its own trust, on by default in both, only decides whether a folder's servers
start at all, and once the user trusts the folder or project they start, changed or
not. So without the system file the state is always "not guarded", with the why taken
from that trust (Gemini CLI: `folder_trust.py`; Codex: `codex_trusts`), and system mode
as the fix.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcpctl.clients.guard_words import (
    BY_POLICY,
    GEMINI_SENTINEL,
    GEMINI_SYSTEM,
    NOT_GUARDED,
    GuardState,
    json_value,
)

SYSTEM_FIX = "sudo mcpctl guard --system --write"


def trust_state(client_id: str, root: Path, home: Path, environ: Mapping[str, str],
                os_key: str) -> GuardState:
    """`guard_state` of Gemini CLI or Codex (never raises)."""
    if client_id == "gemini":
        return _gemini_state(root, home, environ, os_key)
    return _codex_state(root, home, environ, os_key)


def _gemini_state(root: Path, home: Path, environ: Mapping[str, str],
                  os_key: str) -> GuardState:
    """Gemini CLI: its system settings (system mode), else its folder trust, which only
    decides whether the repo's servers start at all (measured with 0.61.0: a user-level
    `mcp.allowed` is by name, and a trusted folder's entry of an allowed name replaces
    yours)."""
    from mcpctl.clients.folder_trust import OFF_IN_SETTINGS, load_folder_trust  # noqa: PLC0415

    if _gemini_by_policy(environ, os_key):
        return GuardState("gemini", BY_POLICY, "the system settings allow only your servers' "
                          "names, each defined there as `mcpctl run NAME`, which no user or "
                          "repo file can widen")
    folder = environ.get("GEMINI_CLI_HOME")
    settings = (Path(folder) if folder else home) / ".gemini" / "settings.json"
    trust = load_folder_trust(root, settings, environ)
    fix = f"{SYSTEM_FIX} (Gemini CLI's system settings, which no repo can widen)"
    if trust.trusted:
        untrust = "turn Gemini CLI's folder trust back on (security.folderTrust.enabled)" \
            if trust.reason == OFF_IN_SETTINGS else "stop trusting this folder in Gemini CLI"
        return GuardState("gemini", NOT_GUARDED, "a trusted folder's .gemini/settings.json "
                          "replaces your entry of the same name, and no user setting blocks "
                          f"it by command (mcp.allowed is by name only); trusted: "
                          f"{trust.reason}", f"{fix}; or {untrust}")
    return GuardState("gemini", NOT_GUARDED, "Gemini CLI does not trust this folder "
                      f"({trust.reason}), so it starts none of its servers now, yours "
                      "included; once you trust it there, the repo's servers start past "
                      "mcpctl's gate, changed or not", fix)


def _codex_state(root: Path, home: Path, environ: Mapping[str, str],
                 os_key: str) -> GuardState:
    """Codex: its admin requirements.toml (system mode), else its project trust, which
    only decides whether the project's `.codex/config.toml` is read at all (measured
    with 0.171.0: a project it does not trust, or has never seen, is not read)."""
    from mcpctl.clients.codex_requirements import (  # noqa: PLC0415
        CODEX_REQUIREMENTS,
        LIMIT,
        allows_only_exact,
    )
    from mcpctl.clients.load import codex_trusts  # noqa: PLC0415

    required = _toml_object(Path(CODEX_REQUIREMENTS.get(os_key, CODEX_REQUIREMENTS["linux"])))
    if isinstance(required, dict) and allows_only_exact(required):
        return GuardState("codex", BY_POLICY, "the admin requirements.toml allows only named "
                          "servers with exact command lines (your servers as `mcpctl run "
                          f"NAME`), which no user or project file can widen; but {LIMIT}")
    folder = environ.get("CODEX_HOME")
    user_file = (Path(folder) if folder else home / ".codex") / "config.toml"
    fix = f"{SYSTEM_FIX} (Codex's requirements.toml mcp_servers allowlist)"
    if codex_trusts(root, user_file):
        return GuardState("codex", NOT_GUARDED, "a trusted project's .codex/config.toml "
                          "merges over your entries key by key, and no user setting "
                          "restricts which servers start", f"{fix}; or mark the project "
                          "untrusted in Codex")
    return GuardState("codex", NOT_GUARDED, "Codex does not trust this project, so it reads "
                      "none of its .codex/config.toml now; once you trust it there, the "
                      "project's servers start past mcpctl's gate, changed or not", fix)


def _toml_object(path: Path) -> Any:
    """The file's TOML document; None when it is missing or cannot be read."""
    from mcpctl.syntax.toml_loads import load_toml  # noqa: PLC0415

    try:
        return load_toml(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def _gemini_by_policy(environ: Mapping[str, str], os_key: str) -> bool:
    path = environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or \
        GEMINI_SYSTEM.get(os_key, GEMINI_SYSTEM["linux"])
    data = json_value(Path(path))
    if not isinstance(data, dict):
        return False
    mcp, servers = data.get("mcp"), data.get("mcpServers")
    return isinstance(mcp, dict) and isinstance(mcp.get("allowed"), list) \
        and GEMINI_SENTINEL in mcp["allowed"] and isinstance(servers, dict) \
        and all(isinstance(servers.get(name), dict) for name in mcp["allowed"])
