"""Claude Code's name-only approvals of a workspace's `.mcp.json` servers (DESIGN §11).

Claude Code starts a project server once its *name* is approved
(`enabledMcpjsonServers`) or every project server is (`enableAllProjectMcpServers`),
in `.claude/settings.json` (committed: the repo approves itself),
`.claude/settings.local.json`, the user's settings, or `~/.claude.json`
`projects[<folder>]`. A name says nothing about the command behind it, so a changed
command starts without a prompt. `list` and `doctor` show these next to mcpctl's
fingerprint approvals. `disabledMcpjsonServers` wins over any approval, as in Claude
Code.

`find_weak_approvals` is pure; `load_weak_approvals` reads the files.
"""

from collections.abc import Collection, Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any, NamedTuple

from mcpctl.clients.table import is_guard_run
from mcpctl.model import Problem
from mcpctl.syntax import jsonc

ENABLED = "enabledMcpjsonServers"
DISABLED = "disabledMcpjsonServers"
ENABLE_ALL = "enableAllProjectMcpServers"
TRUST_ACCEPTED = "hasTrustDialogAccepted"


class SettingsKind(StrEnum):
    REPO = "repo"  # <root>/.claude/settings.json, committed with the repo
    LOCAL = "local"  # <root>/.claude/settings.local.json, the user's, untracked
    USER = "user"  # <claude config dir>/settings.json, every folder
    CLAUDE_JSON = "claude-json"  # ~/.claude.json projects[<root>]


_WHERE = {
    SettingsKind.REPO: "the repo's own .claude/settings.json",
    SettingsKind.LOCAL: ".claude/settings.local.json",
    SettingsKind.USER: "Claude Code's user settings (every folder)",
    SettingsKind.CLAUDE_JSON: "~/.claude.json for this folder",
}


class SettingsFile(NamedTuple):
    """One Claude Code settings document and where its settings object sits in it."""

    path: Path
    kind: SettingsKind
    document: jsonc.JsonDocument
    # Where the settings object sits in the document: ("projects", "<root>") for
    # ~/.claude.json, () for a settings file.
    prefix: tuple[str, ...] = ()


class WeakApproval(NamedTuple):
    """One name-only approval. `server` is None for `enableAllProjectMcpServers`."""

    server: str | None
    setting: str
    kind: SettingsKind
    path: Path
    line: int
    defined: bool  # .mcp.json defines this name now (always True for "all")
    covers: tuple[str, ...] = ()  # for "all": the .mcp.json servers it approves now

    @property
    def where(self) -> str:
        return _WHERE[self.kind]

    def message(self) -> str:
        if self.server is None:
            names = ", ".join(self.covers) if self.covers else "none yet"
            return (f"Claude Code starts every server of .mcp.json without asking "
                    f"({self.setting} in {self.where}), including servers added later "
                    f"(now: {names}); a changed command would start without a prompt; "
                    "mcpctl approves by fingerprint: review with `mcpctl list`, approve "
                    "with `mcpctl trust --all`")
        subject = (f"the repo approves its own server {self.server!r} for Claude Code"
                   if self.kind is SettingsKind.REPO
                   else f"Claude Code approves {self.server!r}")
        if not self.defined:
            return (f"{subject} by name ({self.setting} in {self.where}) but .mcp.json does "
                    "not define it yet: a server added later under that name would start "
                    "without a prompt")
        return (f"{subject} by name only ({self.setting} in {self.where}): a changed "
                "command would start without a prompt; mcpctl approves by fingerprint: "
                f"review with `mcpctl show {self.server}`, approve with "
                f"`mcpctl trust {self.server}`")


class WeakApprovals:
    """Approvals by name that other clients hold for a workspace, and the problems
    reading them; filled in as the files are read (a plain class: see mcpctl/model.py)."""

    __slots__ = ("after_trust", "all_after_trust", "all_approved", "approvals", "approved",
                 "disabled", "folder_trusted", "guarded", "local_servers", "problems")

    def __init__(self) -> None:
        self.approvals: list[WeakApproval] = []
        self.problems: list[Problem] = []
        # What Claude Code would do with each .mcp.json server, for `mcpctl clients`:
        # approvals that count now (the user's settings always; the repo's, the local
        # settings and ~/.claude.json's only once the folder's trust dialog is accepted,
        # measured with Claude Code 2.1.197), and those that would count after it.
        self.all_approved = False
        self.approved: set[str] = set()
        self.disabled: set[str] = set()
        self.folder_trusted = False  # ~/.claude.json projects[<root>].hasTrustDialogAccepted
        self.after_trust: set[str] = set()
        self.all_after_trust = False
        # Local-scope servers in ~/.claude.json projects[<root>]: they win over .mcp.json's.
        self.local_servers: set[str] = set()
        self.guarded: set[str] = set()  # ... that the guard wrote

    def state_of(self, server: str) -> str:
        """"disabled", "approved by name" or "needs approval" in Claude Code."""
        if server in self.disabled:
            return "disabled"
        if self.all_approved or server in self.approved:
            return "approved by name"
        if self.all_after_trust or server in self.after_trust:
            return ("needs approval (approved by name in a project setting, which counts "
                    "only once Claude Code's trust dialog for this folder is accepted)")
        return "needs approval"


def find_weak_approvals(files: Sequence[SettingsFile],
                        project_servers: Collection[str]) -> WeakApprovals:
    """Pure: the name-only approvals in `files` for a workspace whose `.mcp.json`
    defines `project_servers`."""
    result = WeakApprovals()
    settings: list[tuple[SettingsFile, Mapping[str, Any]]] = []
    for file in files:
        found = _settings_object(file, result.problems)
        if found is not None:
            settings.append((file, found))
            result.disabled.update(_names(file, found, DISABLED, result.problems))
    for file, values in settings:
        if file.kind is SettingsKind.CLAUDE_JSON and isinstance(values.get("mcpServers"), dict):
            local = values["mcpServers"]
            result.local_servers.update(local)
            result.guarded.update(name for name, entry in local.items()
                                  if isinstance(entry, Mapping)
                                  and is_guard_run(name, entry.get("command"), entry.get("args"),
                                                  entry.get("env")))
    result.folder_trusted = any(file.kind is SettingsKind.CLAUDE_JSON
                                and values.get(TRUST_ACCEPTED) is True
                                for file, values in settings)
    deciding = _deciding(settings)
    for file, values in settings:
        counts = file.kind is SettingsKind.USER or result.folder_trusted
        if values.get(ENABLE_ALL) is True and file is deciding:
            result.all_approved = result.all_approved or counts
            result.all_after_trust = not counts
            covers = tuple(sorted(set(project_servers) - result.disabled))
            result.approvals.append(WeakApproval(
                None, ENABLE_ALL, file.kind, file.path, _line(file, ENABLE_ALL), True, covers))
        elif ENABLE_ALL in values and not isinstance(values[ENABLE_ALL], bool):
            result.problems.append(_problem(file, ENABLE_ALL, f"{ENABLE_ALL} must be true or "
                                                              "false"))
        for name in _names(file, values, ENABLED, result.problems):
            if name in result.disabled:
                continue
            (result.approved if counts else result.after_trust).add(name)
            result.approvals.append(WeakApproval(
                name, ENABLED, file.kind, file.path, _line(file, ENABLED),
                name in project_servers))
    if not result.folder_trusted:
        result.all_approved = _user_switch(settings)
    return result


def _user_switch(settings: Sequence[tuple[SettingsFile, Mapping[str, Any]]]) -> bool:
    """Before the folder's trust dialog, only the user's settings decide the switch."""
    user = [(f, v) for f, v in settings if f.kind is SettingsKind.USER]
    return any(values.get(ENABLE_ALL) is True for _, values in user) and not any(
        values.get(ENABLE_ALL) is False for _, values in user)


# Which file's `enableAllProjectMcpServers` counts: Claude Code lets local settings
# override the repo's shared ones, and those override the user's.
_PRECEDENCE = ("LOCAL", "CLAUDE_JSON", "REPO", "USER")


def _deciding(settings: Sequence[tuple[SettingsFile, Mapping[str, Any]]]) -> SettingsFile | None:
    """The highest-precedence file that sets the switch to true or false."""
    setting = [file for file, values in settings if isinstance(values.get(ENABLE_ALL), bool)]
    return min(setting, key=lambda file: _PRECEDENCE.index(file.kind.name), default=None)


def _settings_object(file: SettingsFile, problems: list[Problem]) -> Mapping[str, Any] | None:
    value: Any = file.document.value
    for key in file.prefix:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    if value is None:
        return None
    if not isinstance(value, Mapping):
        line, column = file.document.position(file.prefix)
        problems.append(Problem(file.path, line, column, "Claude Code settings must be an "
                                                         "object"))
        return None
    return value


def _names(file: SettingsFile, values: Mapping[str, Any], key: str,
           problems: list[Problem]) -> list[str]:
    listed = values.get(key)
    if listed is None:
        return []
    if not isinstance(listed, list) or not all(isinstance(n, str) for n in listed):
        problems.append(_problem(file, key, f"{key} must be a list of server names"))
        return []
    return list(dict.fromkeys(listed))


def _line(file: SettingsFile, key: str) -> int:
    return file.document.position((*file.prefix, key))[0]


def _problem(file: SettingsFile, key: str, message: str) -> Problem:
    line, column = file.document.position((*file.prefix, key))
    return Problem(file.path, line, column, message)


def settings_paths(root: Path, environ: Mapping[str, str],
                   home: Path) -> list[tuple[Path, SettingsKind, tuple[str, ...]]]:
    """Where Claude Code keeps approvals for `root`, in the order they are reported."""
    config_dir = Path(environ["CLAUDE_CONFIG_DIR"]) if environ.get("CLAUDE_CONFIG_DIR") \
        else home / ".claude"
    claude_json = (Path(environ["CLAUDE_CONFIG_DIR"]) if environ.get("CLAUDE_CONFIG_DIR")
                   else home) / ".claude.json"
    return [
        (root / ".claude" / "settings.json", SettingsKind.REPO, ()),
        (root / ".claude" / "settings.local.json", SettingsKind.LOCAL, ()),
        (config_dir / "settings.json", SettingsKind.USER, ()),
        (claude_json, SettingsKind.CLAUDE_JSON, ("projects", str(root))),
    ]


def load_weak_approvals(root: Path, project_servers: Collection[str],
                        environ: Mapping[str, str], home: Path) -> WeakApprovals:
    """Edge: read Claude Code's settings for `root` and find the name-only approvals.

    A file that is missing is skipped; one that cannot be read or parsed is a Problem
    (the others are still read).
    """
    from mcpctl.clients.files import read_client_text  # noqa: PLC0415

    files: list[SettingsFile] = []
    problems: list[Problem] = []
    for path, kind, prefix in settings_paths(root, environ, home):
        if not path.exists() and not path.is_symlink():
            continue
        text = read_client_text(path)
        if isinstance(text, Problem):
            problems.append(text)
            continue
        try:
            document = jsonc.parse(text, jsonc=True)
        except jsonc.JsonSyntaxError as error:
            problems.append(Problem(path, error.line, error.column, error.message))
            continue
        if document.duplicates:
            # Which duplicate Claude Code honours is not ours to guess: say so.
            first = document.duplicates[0]
            problems.append(Problem(path, first.line, first.column,
                                    f"duplicate key {'.'.join(map(str, first.path))} "
                                    f"(first at line {first.first_line})"))
        files.append(SettingsFile(path, kind, document, prefix))
    result = find_weak_approvals(files, project_servers)
    result.problems[:0] = problems
    return result
