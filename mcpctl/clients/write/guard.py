"""The guard: Claude Code starts no repo server except through mcpctl's gate (DESIGN §11,
issue 22).

Two files, kept in step by one function (`refresh_guards`):

1. **The allowlist**, `allowedMcpServers` in the user's Claude Code settings
   (`~/.claude/settings.json`). With `serverCommand` entries in it, Claude Code 2.1.197
   starts no stdio server whose exact command line is not listed, whatever approved it
   by name (measured: a repo's `.mcp.json` server is then not even configured). The
   guard lists exactly one shape for every guarded entry, `[CMD, "run", "--guard",
   "--key", KEY]`, plus the command line of every entry mcpctl exported into
   `~/.claude.json` (`run NAME --key KEY`); the user's own entries in the list are
   kept. So a repo mcpctl never saw (a fresh clone) starts nothing of its own: fail
   closed, with no prior `mcpctl trust`. KEY is the machine's guard key
   (`guard_key.py`): Claude Code does not match `env`, so without it a repo's entry
   could reuse an allowed line with `LD_PRELOAD` of its own; a line without it is
   never kept.
2. **The guard entries**, local-scope entries in `~/.claude.json` `projects[<key>]`,
   which win over a `.mcp.json` entry of the same name (measured). Claude Code reads
   that one section, `<key>` being the git root of its folder (else the folder
   itself), and every `.mcp.json` from its folder up to `/`, the nearest winning. So
   every `.mcp.json` server of each trusted workspace gets, in its git root's section,

       {"type": "stdio", "command": CMD, "args": ["run", "--guard", "--key", KEY],
        "env": {"MCPCTL_GUARD_SERVER": NAME}}

   approved or not, and `mcpctl run --guard` takes the definition from the nearest
   `.mcp.json` that defines NAME from the folder Claude Code started it in: the one
   Claude Code would have started. Its gate starts the approved definition and
   refuses a changed or unapproved one (the refusal, naming `mcpctl trust`, is in
   Claude Code's MCP log). Removing one (`claude mcp remove NAME -s local`, Claude Code's own
   "[Conflicting scopes]" advice) leaves the repo's own entry, which the allowlist
   blocks: the guard fails closed, never open.

`revoke` never removes a guard entry (the gate refuses a revoked server), and a
`.mcp.json` mcpctl cannot read keeps the entries it had. A name Claude Code's settings
reading could mistake for an object's own machinery (`__proto__`, `constructor`, …) or
that it does not accept in its own `mcp add` is not written: the allowlist blocks the
repo's entry of that name.

Gemini CLI and Codex have no user-level equivalent (docs/design.md).

`plan_guards` and `plan_allowlist` are pure; `refresh_guards` reads the trust store and
the repos' files and writes both files through `write_client_file`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpctl.clients.guard_key import HIDDEN, hidden, key_in, keyed
from mcpctl.clients.guarded import (
    GUARD_ARGS,
    GUARD_SERVER,
    GUARD_WORKSPACE,
    GUARDED_CLIENT,
    GUARDED_FILE,
    repo_server_names,
)
from mcpctl.clients.table import (
    ClientFormat,
    client_by_id,
    client_path,
    is_guard_run,
    is_managed,
    is_mcpctl_command,
)
from mcpctl.clients.write.export import ExportReport
from mcpctl.clients.write.plan import EntryChange, ExportPlan, Projects
from mcpctl.errors import ConfigError, McpctlError

if TYPE_CHECKING:
    from mcpctl.clients.files import Compute, WriteResult
    from mcpctl.machine import Machine

ALLOWLIST_KEY = "allowedMcpServers"
_KEYS = frozenset({"type", "command", "args", "env"})
# Claude Code's own rule for a server name (`claude mcp add`); a `.mcp.json` may hold
# others, which the guard leaves to the allowlist.
_NAME = re.compile(r"[A-Za-z0-9_-]+")
# The names JavaScript objects already carry: an entry keyed so could change how the
# client reads the whole file, so the guard writes none (the allowlist blocks them).
_OBJECT_NAMES = frozenset({
    "__proto__", "constructor", "prototype", "__defineGetter__", "__defineSetter__",
    "__lookupGetter__", "__lookupSetter__", "hasOwnProperty", "isPrototypeOf",
    "propertyIsEnumerable", "toLocaleString", "toString", "valueOf",
})


def guard_entry(command: str, name: str, key: str) -> dict[str, Any]:
    """The local-scope entry that makes Claude Code start `name` through the gate."""
    return {"type": "stdio", "command": command, "args": keyed(GUARD_ARGS, key),
            "env": {GUARD_SERVER: name}}


def guard_line(command: str, key: str) -> list[str]:
    """The one allowlist entry's command line that covers every guard entry."""
    return [command, *keyed(GUARD_ARGS, key)]


def is_guard_entry(name: str, entry: Any) -> bool:
    """Is this an entry the guard wrote (this shape, or the older per-entry one)?"""
    if not isinstance(entry, Mapping) or not set(entry) <= _KEYS:
        return False
    env = entry.get("env")
    if env is not None and not (isinstance(env, Mapping)
                                and set(env) <= {GUARD_WORKSPACE, GUARD_SERVER}):
        return False
    return entry.get("type", "stdio") == "stdio" \
        and is_guard_run(name, entry.get("command"), entry.get("args"), env)


def guardable(name: str) -> bool:
    """A name the guard writes an entry for (Claude Code's own rule, no object machinery)."""
    return _NAME.fullmatch(name) is not None and name not in _OBJECT_NAMES


@dataclass(frozen=True)
class Workspace:
    """A workspace in the trust store, as the guard sees it."""

    root: str  # the real path: the trust store's key
    repo_servers: tuple[str, ...] | None  # names in its .mcp.json; None: unreadable
    own: frozenset[str] = frozenset()  # names the user tier defines for it alone
    key: str = ""  # Claude Code's projects key: its git root, else itself ("": root)

    @property
    def project(self) -> str:
        return self.key or self.root


def plan_guards(workspaces: Collection[Workspace], projects: Projects,
                command: str, key: str) -> ExportPlan:
    """The guard entries to write, keep or remove in every project section (pure).

    Claude Code reads one local section, its git root's, from every folder below it, so
    the names of every trusted workspace under one git root go into that section; `run
    --guard` finds the definition from the client's folder as Claude Code does. An
    entry is removed only when every such workspace's `.mcp.json` was read and none
    names it: a section whose workspaces were all revoked, or one with a file mcpctl
    cannot read, keeps its entries (the gate refuses; nothing opens)."""
    groups: dict[str, list[Workspace]] = {}
    for workspace in workspaces:
        groups.setdefault(workspace.project, []).append(workspace)
    changes: list[EntryChange] = []
    for section in sorted(groups):
        group = sorted(groups[section], key=lambda w: w.root)
        existing = projects.get(section, {})
        named: dict[str, Workspace] = {}
        for workspace in group:
            for name in workspace.repo_servers or ():
                named.setdefault(name, workspace)
        changes += [_guard_change(workspace, section, name, existing.get(name), command,
                                  key) for name, workspace in sorted(named.items())]
        unreadable = [w.root for w in group if w.repo_servers is None]
        stale = [name for name, entry in sorted(existing.items())
                 if name not in named and is_guard_entry(name, entry)]
        if unreadable:
            changes += [EntryChange(name, "skipped", f"{unreadable[0]}/{GUARDED_FILE} cannot "
                                    "be read: the guard entry is kept", workspace=section)
                        for name in stale]
        else:
            changes += [EntryChange(name, "removed", f"no longer in any trusted {GUARDED_FILE} "
                                    "here", workspace=section) for name in stale]
    return ExportPlan(changes)


def _guard_change(workspace: Workspace, section: str, name: str, current: Any,
                  command: str, key: str) -> EntryChange:
    if name in workspace.own and workspace.root == section:
        return EntryChange(name, "skipped", "your own server for this workspace (the user "
                           "tier) is exported there and wins", workspace=section)
    if not guardable(name):
        return EntryChange(name, "skipped", "Claude Code does not take this name safely; "
                           "its allowlist blocks the repo's entry, so it does not start",
                           workspace=section)
    desired = guard_entry(command, name, key)
    if current is None:
        return EntryChange(name, "added", "Claude Code starts it through mcpctl's gate",
                           desired, workspace=section)
    if current == desired:
        return EntryChange(name, "unchanged", workspace=section)
    if is_guard_entry(name, current):
        return EntryChange(name, "updated", "Claude Code starts it through mcpctl's gate",
                           desired, workspace=section)
    return EntryChange(name, "skipped", "your own local-scope entry of that name wins over "
                       "the repo's in Claude Code; left as it is", workspace=section)


# ---- the allowlist --------------------------------------------------------------------


def exported_lines(client: ClientFormat, data: Mapping[str, Any],
                   key: str) -> list[list[str]]:
    """The command line of every entry mcpctl exported into `~/.claude.json` (user and
    local scope) with this machine's `key`: the allowlist must let exactly these
    through, besides the guard's. One without the key (written before there was one)
    is left out: `sync` rewrites it, and until then Claude Code blocks it."""
    sections: list[Any] = [data.get("mcpServers")]
    projects = data.get("projects")
    if isinstance(projects, Mapping):
        sections += [p.get("mcpServers") for p in projects.values() if isinstance(p, Mapping)]
    lines: list[list[str]] = []
    for section in sections:
        if not isinstance(section, Mapping):
            continue
        for name, entry in section.items():
            if is_managed(client, name, entry) and key_in(entry["args"]) == key:
                lines.append([entry["command"], *entry["args"]])
    return lines


def is_mcpctl_line(item: Any) -> bool:
    """An allowlist entry mcpctl wrote: only `serverCommand`, `mcpctl run …`."""
    if not isinstance(item, Mapping) or set(item) != {"serverCommand"}:
        return False
    line = item["serverCommand"]
    return isinstance(line, list) and len(line) >= 2 and is_mcpctl_command(line[0]) \
        and line[1] == "run" and all(isinstance(word, str) for word in line)


@dataclass
class AllowlistPlan:
    """The allowlist as it should be, and what changes (one EntryChange per line)."""

    entries: list[Any]
    changes: list[EntryChange] = field(default_factory=list)


def plan_allowlist(current: Any, wanted: Sequence[Sequence[str]], *,
                   remove: bool = True) -> AllowlistPlan:
    """Keep the user's own entries in place; make mcpctl's exactly `wanted` (pure);
    without `remove`, mcpctl's others stay too (what was exported is not known), except
    a line without a guard key, which any repo could write and so never stays.
    A value that is not a list is refused (the user's, and its meaning unknown)."""
    if current is not None and not isinstance(current, list):
        raise ConfigError(f"{ALLOWLIST_KEY} is not a list, so mcpctl cannot add its entry")
    existing = list(current or [])
    want = list(dict.fromkeys(tuple(line) for line in wanted))
    have = [tuple(item["serverCommand"]) for item in existing if is_mcpctl_line(item)]
    if not remove:
        want += [line for line in have if line not in want and key_in(line) is not None]
    entries = [item for item in existing
               if not is_mcpctl_line(item) or tuple(item["serverCommand"]) in want]
    entries += [{"serverCommand": list(line)} for line in want if line not in have]
    changes = [EntryChange(_shown(line), "added", "Claude Code's allowlist lets it start")
               for line in want if line not in have]
    changes += [EntryChange(_shown(line), "removed", "no longer exported"
                            if key_in(line) is not None else "it has no guard key, so a "
                            "repo's entry could reuse it with an environment of its own")
                for line in dict.fromkeys(have) if line not in want]
    return AllowlistPlan(entries, changes)


def _shown(line: Sequence[str]) -> str:
    """An allowlisted command line as a reader knows it, never with its key:
    `mcpctl run --guard --key ***`."""
    return " ".join(["mcpctl", *hidden(line[1:])])


@dataclass
class GuardReport(ExportReport):
    """The guard's wiring of Claude Code's file, reported like an export of it (its
    `diff` stays empty: the guard prints none)."""

    allowlist: AllowlistReport | None = None


@dataclass
class AllowlistReport(ExportReport):
    """The guard's allowlist in Claude Code's user settings."""


def refresh_guards(machine: Machine, *, dry_run: bool = False) -> GuardReport | None:
    """Wire every trusted workspace's `.mcp.json` servers through the gate in Claude
    Code's file, then make its allowlist match; None when Claude Code is not in
    `[clients] sync` (nothing is read). A file that cannot be read or written is the
    report's error, never raised; the allowlist is kept in step even when the entries
    could not be written (it is what fails closed)."""
    from mcpctl.clients.settings import read_client_settings  # noqa: PLC0415

    client = client_by_id(GUARDED_CLIENT)
    settings = read_client_settings(machine.config_file)
    if client is None or client.id not in settings.sync:
        return None
    command = settings.exported_command
    report = GuardReport(client, client_path(machine, client))
    report.allowlist = AllowlistReport(client, user_settings_path(machine))
    try:
        key = _key(machine, dry_run=dry_run)
    except McpctlError as error:  # no key, no line a repo cannot write: nothing changes
        report.error = report.allowlist.error = error
        return report
    data: Mapping[str, Any] = {}
    try:
        data = _write(machine, client, report, _workspaces(machine), command, key,
                      dry_run=dry_run)
    except McpctlError as error:
        report.error = error
    try:
        lines = [guard_line(command, key), *exported_lines(client, data, key)]
        # ~/.claude.json unread: what was exported is unknown, so nothing is taken out.
        _write_allowlist(machine, report.allowlist, lines, dry_run=dry_run,
                         remove=report.error is None)
    except McpctlError as error:
        report.allowlist.error = error
    return report


def _key(machine: Machine, *, dry_run: bool) -> str:
    """The machine's guard key (made on first need; a dry run plans with a stand-in)."""
    from mcpctl.clients.guard_key import machine_key  # noqa: PLC0415

    return machine_key(machine.paths, machine.os_key, create=not dry_run) or HIDDEN


def user_settings_path(machine: Machine) -> Path:
    """Claude Code's user settings file (`$CLAUDE_CONFIG_DIR/settings.json`, else
    `~/.claude/settings.json`), where the allowlist goes."""
    folder = machine.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(folder) if folder else machine.home / ".claude") / "settings.json"


def _write(machine: Machine, client: ClientFormat, report: GuardReport,
           workspaces: list[Workspace], command: str, key: str, *,
           dry_run: bool) -> Mapping[str, Any]:
    """Write the guard entries; returns the file's data as written (for the allowlist)."""
    from mcpctl.clients.files import client_text_or_none  # noqa: PLC0415
    from mcpctl.clients.write.edit import apply_plan  # noqa: PLC0415
    from mcpctl.clients.write.parse import project_servers, read_document  # noqa: PLC0415

    written: dict[str, Mapping[str, Any]] = {}

    def compute(old: str | None) -> str:
        data = read_document(client, old, report.path)
        projects = project_servers(client, data)
        report.plan = plan_guards(workspaces, projects, command, key)
        text = apply_plan(client, old, report.plan, report.path, data)
        written["data"] = read_document(client, text, report.path)
        return text

    if dry_run:
        compute(client_text_or_none(report.path))
    else:
        result = _write_file(machine, client, report.path, compute)
        report.path, report.written, report.backup = result.path, result.written, \
            result.backup
        report.backup_secrets, report.backup_skipped = result.secrets_replaced, \
            result.backup_skipped
    return written.get("data", {})


def _write_allowlist(machine: Machine, report: AllowlistReport, lines: list[list[str]], *,
                     dry_run: bool, remove: bool = True, drop_empty: bool = False) -> None:
    """Make mcpctl's allowlist entries exactly `lines`. With `drop_empty` (the guard
    taken out), a list left empty goes with its key: an empty `allowedMcpServers`
    would block every server, the user's own included."""
    from mcpctl.clients.files import client_text_or_none  # noqa: PLC0415
    from mcpctl.syntax import jsonc  # noqa: PLC0415
    from mcpctl.syntax.json_edit import json_edit_at  # noqa: PLC0415

    def compute(old: str | None) -> str:
        text = old if old is not None and old.strip() else "{\n}\n"
        try:
            value = jsonc.parse(text, jsonc=False).value
        except jsonc.JsonSyntaxError as error:
            raise ConfigError(f"{report.path}:{error.line}:{error.column}: {error.message}; "
                              "the file was not changed") from None
        if not isinstance(value, dict):
            raise ConfigError(f"{report.path}: the top level is not an object; the file was "
                              "not changed")
        try:
            plan = plan_allowlist(value.get(ALLOWLIST_KEY), lines, remove=remove)
        except ConfigError as error:
            raise ConfigError(f"{report.path}: {error}; the file was not changed") from None
        report.plan = ExportPlan(plan.changes)
        if not plan.changes and (ALLOWLIST_KEY in value or drop_empty):
            return old if old is not None else text
        entries = None if drop_empty and not plan.entries else plan.entries
        new = json_edit_at(text, {(): {ALLOWLIST_KEY: entries}})  # type: ignore[dict-item]
        meant = {key: item for key, item in value.items() if key != ALLOWLIST_KEY}
        if jsonc.parse(new, jsonc=False).value != (
                meant if entries is None else {**meant, ALLOWLIST_KEY: entries}):
            raise ConfigError(f"{report.path}: the edited file would not mean what was "
                              "intended; the file was not changed (please report this)")
        return new

    if dry_run:
        compute(client_text_or_none(report.path))
        return
    client = report.client
    report.path.parent.mkdir(parents=True, exist_ok=True)
    result = _write_file(machine, client, report.path, compute)
    report.path, report.written, report.backup = result.path, result.written, result.backup


def _write_file(machine: Machine, client: ClientFormat, path: Path,
                compute: Compute) -> WriteResult:
    from mcpctl.clients.files import ATTEMPTS, write_client_file  # noqa: PLC0415

    return write_client_file(
        path, compute, backup_dir=machine.paths.data_dir / "backups" / client.id,
        lock_dir=machine.paths.cache_dir / "locks", now=lambda: datetime.now(UTC),
        attempts=ATTEMPTS + 2)


def _workspaces(machine: Machine) -> list[Workspace]:
    """Every workspace in the trust store, with its `.mcp.json` server names."""
    from mcpctl.clients.write.export import user_servers  # noqa: PLC0415
    from mcpctl.config.user_config import workspace_key_of  # noqa: PLC0415
    from mcpctl.config.workspace import find_workspace_root  # noqa: PLC0415
    from mcpctl.trust.store import read_store, workspace_key  # noqa: PLC0415

    own: dict[str, set[str]] = {}
    for spec in user_servers(machine.config_file).values():
        key = workspace_key_of(spec)
        if key is not None:
            own.setdefault(key, set()).add(spec.name)
    roots = sorted(read_store(machine.paths.trust_file)["workspaces"])
    return [Workspace(root, repo_server_names(Path(root) / GUARDED_FILE),
                      frozenset(own.get(root, ())),
                      workspace_key(find_workspace_root(Path(root)))) for root in roots]
