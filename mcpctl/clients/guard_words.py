"""The words of the guard's honest reporting (issue 22): each client's state in a
workspace, and the system files' names that more than one module reads.

Apart from `guarded.py` (Claude Code's state) and `guard_trust.py` (Gemini CLI's and
Codex's) so that neither imports the other's reading.
"""

from pathlib import Path
from typing import Any, NamedTuple

GUARDED = "guarded"
BY_POLICY = "guarded by system policy"
NOT_GUARDED = "not guarded"
NOTHING = "nothing to guard"
# Gemini CLI's system settings, as `mcpctl guard --system` writes them: the name always
# in `mcp.allowed` (an empty list would mean no limit), defined there to start nothing.
GEMINI_SYSTEM = {"linux": "/etc/gemini-cli/settings.json",
                 "macos": "/Library/Application Support/GeminiCli/settings.json",
                 "windows": "C:/ProgramData/gemini-cli/settings.json"}
GEMINI_SENTINEL = "mcpctl-guard"


class GuardState(NamedTuple):
    """Whether a client starts a repo's servers only through mcpctl's gate here."""

    client: str
    state: str  # GUARDED, BY_POLICY, NOT_GUARDED or NOTHING
    how: str  # how it is guarded, or why it is not
    fix: str | None = None  # what would guard it
    widened_by: str | None = None  # the repo's settings file that widens the allowlist

    def document(self) -> dict[str, str | None]:
        return {"state": self.state, "how": self.how, "fix": self.fix}


def json_value(path: Path) -> Any:
    """The file's JSON value; None when it is missing; "" when it cannot be read."""
    from mcpctl.syntax import jsonc  # noqa: PLC0415

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError):
        return ""
    try:
        return jsonc.parse(text, jsonc=False).value
    except jsonc.JsonSyntaxError:
        return ""
