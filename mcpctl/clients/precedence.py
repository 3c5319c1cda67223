"""Which client starts a repo's definition over the user's own (pure; DESIGN §2, §11).

mcpctl's own view lets the user tier win over the workspace. The clients do the
opposite: measured with Claude Code 2.1.197, a name in several scopes starts
local > approved project (`.mcp.json`) > user; Gemini CLI 0.61.0 lets a trusted
folder's `.gemini/settings.json` replace the user's entry of that name; Codex 0.171.0
merges a trusted project's `.codex/config.toml` over the user's entry key by key. So
where `list` shows a repo server as shadowed by the user tier, a client may still start
the repo's: `repo_starters` says which, and when.

For Claude Code the answer is exact for this folder, from what `~/.claude.json` and the
settings say (`weak_approvals.py`): a local-scope entry of the name wins over both (the
guard's entry starts mcpctl's winner through the gate), an approved name starts the
repo's now, a pending one once approved.
"""

from typing import NamedTuple

from mcpctl.clients.weak_approvals import WeakApprovals
from mcpctl.model import Definition, Tier


class RepoStarter(NamedTuple):
    """A client that starts a shadowed repo definition (now, never, or once approved)."""

    client: str  # client id
    starts: bool | None  # True: now; False: not (says why); None: depends (says when)
    why: str


# Workspace format id -> (client id, when it prefers the repo's entry over the user's).
_OTHER_CLIENTS = {
    "gemini": ("gemini", "Gemini CLI starts the repo's entry instead of the user's when it "
                         "trusts the folder (workspace settings replace user settings by "
                         "name)"),
    "codex": ("codex", "Codex merges the repo's entry over the user's, key by key, when the "
                       "project is trusted"),
}


def repo_starters(definition: Definition, winner: Definition,
                  claude: WeakApprovals | None) -> list[RepoStarter]:
    """The clients that would start `definition` (a repo's, shadowed in mcpctl by the
    user tier's `winner`) instead of the user's definition."""
    if definition.source.tier is not Tier.WORKSPACE or winner.source.tier is not Tier.USER:
        return []
    fmt = definition.source.format_id
    if fmt == "claude":
        return [_claude(definition.name, claude)]
    if fmt in _OTHER_CLIENTS:
        client, why = _OTHER_CLIENTS[fmt]
        return [RepoStarter(client, None, why)]
    return []


def _claude(name: str, claude: WeakApprovals | None) -> RepoStarter:
    if claude is not None and name in claude.local_servers:
        if name in claude.guarded:
            return RepoStarter("claude-code", False, "Claude Code starts it through mcpctl's "
                               "gate (the guard's local-scope entry), which runs the user "
                               "tier's definition")
        return RepoStarter("claude-code", False, "Claude Code starts your own local-scope "
                           "entry of that name instead")
    state = claude.state_of(name) if claude is not None else "needs approval"
    if state == "approved by name":
        return RepoStarter("claude-code", True, "Claude Code starts the repo's definition, "
                           "not the user tier's: it is approved there by name, and project "
                           "scope wins over user scope")
    if state == "disabled":
        return RepoStarter("claude-code", False, "Claude Code does not start it (disabled "
                           "there)")
    return RepoStarter("claude-code", None, "Claude Code would start the repo's definition "
                       "instead of the user tier's once its name is approved (project scope "
                       "wins over user scope)")
