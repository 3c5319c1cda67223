"""The client tier: what each other client would start, read-only (DESIGN §11).

Each client's entries become Definitions with `Source(tier=Tier.CLIENT, ...)`, in
mcpctl's own terms: the client's field names are translated by its table row
(`clients.py`), and whatever mcpctl cannot express (a tool filter, a disabled flag, a
value the client passes literally that mcpctl would expand) is listed as
`unsupported`, so import can refuse it with the reason instead of mangling it.
mcpctl never starts a client-tier server; exported entries run `mcpctl run NAME`,
which resolves the user tier.

`convert_entry` and `servers_from_data` are pure; `load_client` reads the files.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpctl import jsonc
from mcpctl.clients import (
    ClientFormat,
    Syntax,
    Variables,
    client_file,
    is_managed,
    is_mcpctl_command,
)
from mcpctl.entries import KNOWN_FIELDS, EntryError, spec_from_entry
from mcpctl.model import Definition, Problem, ServerSpec, Source, Tier
from mcpctl.variables import Kind, references_in

if TYPE_CHECKING:
    from mcpctl.client_files import Machine

# Scopes in the order a client prefers them (Claude Code: local > project > user).
SCOPE_ORDER = ("local", "project", "user", "profile")
USER_OWNED = frozenset({"local", "user", "profile"})


@dataclass(frozen=True)
class Converted:
    entry: dict[str, Any]  # mcpctl's field names; unknown fields kept for display
    notes: tuple[str, ...] = ()
    unsupported: tuple[str, ...] = ()


@dataclass(frozen=True)
class ClientServer:
    client: str
    scope: str  # user | local | project | "profile <id>"
    definition: Definition
    managed: bool  # `mcpctl run NAME`: an entry mcpctl exported
    unsupported: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    switched_off: bool = False  # the client's own off switch (Codex enabled = false...)

    @property
    def name(self) -> str:
        return self.definition.name

    @property
    def spec(self) -> ServerSpec:
        return self.definition.spec

    @property
    def user_owned(self) -> bool:
        return self.scope.split(" ")[0] in USER_OWNED


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


# ---- translating one entry (pure) ---------------------------------------------------

Translation = Callable[[dict[str, Any], list[str], list[str]], None]


def _codex_env_vars(entry: dict[str, Any], notes: list[str], unsupported: list[str]) -> None:
    names = entry.pop("env_vars", None)
    if names is None:
        return
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        unsupported.append("'env_vars' is not a list of names")
        return
    env = dict(entry.get("env") or {})
    for name in names:
        env.setdefault(name, "${env:" + name + "}")
    entry["env"] = env
    notes.append("env_vars " + ", ".join(names) + " passed on as ${env:NAME}")


def _codex_bearer_token(entry: dict[str, Any], notes: list[str],
                        unsupported: list[str]) -> None:
    variable = entry.pop("bearer_token_env_var", None)
    if variable is None:
        return
    headers = dict(entry.get("headers") or {})
    if not isinstance(variable, str) or any(k.lower() == "authorization" for k in headers):
        unsupported.append("'bearer_token_env_var' beside an Authorization header")
        return
    headers["Authorization"] = "Bearer ${env:" + variable + "}"
    entry["headers"] = headers
    notes.append(f"bearer_token_env_var {variable} written as header Authorization: "
                 "Bearer ${env:" + variable + "}")


def _codex_env_http_headers(entry: dict[str, Any], notes: list[str],
                            unsupported: list[str]) -> None:
    mapping = entry.pop("env_http_headers", None)
    if mapping is None:
        return
    headers = dict(entry.get("headers") or {})
    if not isinstance(mapping, dict) or not all(isinstance(v, str) for v in mapping.values()) \
            or set(mapping) & set(headers):
        unsupported.append("'env_http_headers' that is not a table of variable names, or "
                           "names a header also set in 'http_headers'")
        return
    headers.update({key: "${env:" + value + "}" for key, value in mapping.items()})
    entry["headers"] = headers
    notes.append("env_http_headers written as headers with ${env:NAME}")


def _codex_startup_timeout(entry: dict[str, Any], notes: list[str],
                           unsupported: list[str]) -> None:
    seconds = entry.pop("startup_timeout_sec", None)
    millis = entry.pop("startup_timeout_ms", None)
    value = seconds if seconds is not None else (
        millis / 1000 if isinstance(millis, int | float) and not isinstance(millis, bool)
        else millis)
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        unsupported.append("'startup_timeout_sec' is not a number")
        return
    entry["timeout"] = value
    notes.append(f"startup timeout {value:g} s kept as timeout")


def _gemini_urls(entry: dict[str, Any], notes: list[str], unsupported: list[str]) -> None:
    if "httpUrl" in entry:
        if "url" in entry:
            unsupported.append("both 'url' and 'httpUrl'")
            return
        entry["url"] = entry.pop("httpUrl")
        entry.setdefault("type", "http")
    elif "url" in entry and "type" not in entry:
        entry["type"] = "sse"
        notes.append("'url' without 'type' is an SSE endpoint in Gemini CLI")
    if "timeout" in entry:
        unsupported.append(f"'timeout' = {entry.pop('timeout')!r} (milliseconds per request "
                           "in Gemini CLI), which mcpctl cannot express")


def _vscode_env_values(entry: dict[str, Any], notes: list[str],
                       unsupported: list[str]) -> None:
    env = entry.get("env")
    if not isinstance(env, dict):
        return
    values: dict[str, Any] = {}
    for key, value in env.items():
        if value is None:
            unsupported.append(f"env {key} is null (VS Code unsets it), which mcpctl "
                               "cannot express")
        elif isinstance(value, int | float) and not isinstance(value, bool):
            values[key] = str(value)
            notes.append(f"env {key} number {value} written as a string")
        else:
            values[key] = value
    entry["env"] = values


TRANSLATIONS: Mapping[str, Translation] = {
    "codex_env_vars": _codex_env_vars,
    "codex_bearer_token": _codex_bearer_token,
    "codex_env_http_headers": _codex_env_http_headers,
    "codex_startup_timeout": _codex_startup_timeout,
    "gemini_urls": _gemini_urls,
    "vscode_env_values": _vscode_env_values,
}

_BARE_DOLLAR = re.compile(r"\$(?!\{)([A-Za-z_][A-Za-z0-9_]*)")
_STRING_FIELDS = ("command", "cwd", "url", "envFile")


def convert_entry(client: ClientFormat, raw: Mapping[str, Any]) -> Converted:
    """One entry in the client's terms → an entry in mcpctl's (pure)."""
    entry = dict(raw)
    notes: list[str] = []
    unsupported: list[str] = []
    for written, canonical in client.aliases.items():
        if written in entry:
            if canonical in entry:
                unsupported.append(f"both {written!r} and {canonical!r}")
                del entry[written]
                continue
            entry[canonical] = entry.pop(written)
    # Before the translations, which write mcpctl's own `${env:...}` references.
    _check_variables(client, entry, notes, unsupported)
    for name in client.translations:
        TRANSLATIONS[name](entry, notes, unsupported)
    for key in sorted(set(entry) - KNOWN_FIELDS):
        if key in client.inert:
            notes.append(f"dropped {client.title}'s {key!r} (it does not change what runs)")
            del entry[key]
        elif key in client.defaults and entry[key] == client.defaults[key]:
            del entry[key]
        elif key in client.defaults:
            unsupported.append(f"{key} = {entry[key]!r} in {client.title}, which mcpctl "
                               "cannot express")
        else:
            unsupported.append(f"uses {client.title}'s {key!r}, which mcpctl cannot express")
    return Converted(entry, tuple(notes), tuple(unsupported))


def _strings(entry: Mapping[str, Any]) -> list[tuple[str, str]]:
    found = [(key, entry[key]) for key in _STRING_FIELDS if isinstance(entry.get(key), str)]
    args = entry.get("args")
    if isinstance(args, list):
        found += [(f"args[{i}]", arg) for i, arg in enumerate(args) if isinstance(arg, str)]
    for table in ("env", "headers"):
        values = entry.get(table)
        if isinstance(values, dict):
            found += [(f"{table} {k}", v) for k, v in values.items() if isinstance(v, str)]
    return found


def _check_variables(client: ClientFormat, entry: dict[str, Any], notes: list[str],
                     unsupported: list[str]) -> None:
    if client.variables is Variables.NONE:
        literal = [where for where, text in _strings(entry) if "${" in text]
        if literal:
            unsupported.append(f"{literal[0]} contains '${{', which {client.title} passes on "
                               "literally and mcpctl would expand")
    elif client.variables is Variables.DOLLAR:
        rewritten = False

        def fix(text: Any) -> Any:
            nonlocal rewritten
            if not isinstance(text, str):
                return text
            new = _BARE_DOLLAR.sub(r"${\1}", text)
            rewritten = rewritten or new != text
            return new

        for key in _STRING_FIELDS:
            if key in entry:
                entry[key] = fix(entry[key])
        if isinstance(entry.get("args"), list):
            entry["args"] = [fix(arg) for arg in entry["args"]]
        for table in ("env", "headers"):
            if isinstance(entry.get(table), dict):
                entry[table] = {k: fix(v) for k, v in entry[table].items()}
        if rewritten:
            notes.append(f"$NAME written as ${{NAME}} ({client.title} expands both)")


def _reference_problems(client: ClientFormat, spec: ServerSpec) -> list[str]:
    found = []
    for reference in references_in(spec):
        if reference.kind is Kind.INPUT:
            found.append(f"asks {client.title} for input ({reference.text}); store the value "
                         "with `mcpctl secret set` and add the server with `mcpctl add`")
        elif reference.kind is Kind.UNKNOWN:
            found.append(f"uses {reference.text}, which mcpctl does not expand")
    return found


# ---- one file's servers (pure) -----------------------------------------------------

def servers_from_data(
    client: ClientFormat, servers: Mapping[str, Any], *, scope: str, path: Path,
    lines: Mapping[str, tuple[int, int]], tier: Tier = Tier.CLIENT,
) -> tuple[list[ClientServer], list[Problem]]:
    found: list[ClientServer] = []
    problems: list[Problem] = []
    precedence = SCOPE_ORDER.index(scope.split(" ", maxsplit=1)[0])
    for name, raw in servers.items():
        line, column = lines.get(name, (1, 1))
        if not isinstance(raw, Mapping):
            problems.append(Problem(path, line, column,
                                    f"server {name!r}: entry must be an object"))
            continue
        converted = convert_entry(client, raw)
        try:
            spec = spec_from_entry(name, converted.entry)
        except EntryError as error:
            problems.append(Problem(path, line, column, str(error)))
            continue
        unsupported = (*converted.unsupported, *_reference_problems(client, spec))
        source = Source(tier, path, line, precedence, client.id)
        off = client.off_switch is not None and \
            raw.get(client.off_switch[0]) == client.off_switch[1]
        found.append(ClientServer(client.id, scope, Definition(spec, source),
                                  is_managed(client, name, raw), unsupported, converted.notes,
                                  off))
    return found, problems


def _json_sections(client: ClientFormat, root: Path) -> list[tuple[str, tuple[str, ...]]]:
    sections: list[tuple[str, tuple[str, ...]]] = [("user", (client.top_key,))]
    if client.project_key is not None:
        sections.insert(0, ("local", (client.project_key, str(root), client.top_key)))
    return sections


def read_client_document(
    client: ClientFormat, text: str, path: Path, root: Path, *, scope: str,
    tier: Tier = Tier.CLIENT,
) -> tuple[list[ClientServer], list[Problem]]:
    """Pure: every server of one client file (all its sections)."""
    if client.syntax is Syntax.TOML:
        return _read_toml(client, text, path, scope=scope, tier=tier)
    try:
        document = jsonc.parse(text, jsonc=client.syntax is Syntax.JSONC)
    except jsonc.JsonSyntaxError as error:
        hint = "" if client.syntax is Syntax.JSONC else " (comments are not allowed here)"
        return [], [Problem(path, error.line, error.column, error.message + hint)]
    if document.duplicates:
        return [], [Problem(path, d.line, d.column,
                            f"duplicate key {'.'.join(map(str, d.path))} "
                            f"(first at line {d.first_line})") for d in document.duplicates]
    if not isinstance(document.value, dict):
        return [], [Problem(path, 1, 1, "top level must be a JSON object")]
    found: list[ClientServer] = []
    problems: list[Problem] = []
    for section_scope, key_path in _json_sections(client, root) if scope == "user" \
            else [(scope, (client.top_key,))]:
        servers = _at(document.value, key_path)
        if servers is None:
            continue
        if not isinstance(servers, dict):
            line, column = document.position(key_path)
            problems.append(Problem(path, line, column,
                                    f"{client.top_key!r} must be an object of servers"))
            continue
        lines = {name: document.position((*key_path, name)) for name in servers}
        more, trouble = servers_from_data(client, servers, scope=section_scope, path=path,
                                          lines=lines, tier=tier)
        found += more
        problems += trouble
    return found, problems


def _at(value: Any, key_path: tuple[str, ...]) -> Any:
    for key in key_path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _read_toml(client: ClientFormat, text: str, path: Path, *, scope: str,
               tier: Tier) -> tuple[list[ClientServer], list[Problem]]:
    from mcpctl.user_config import toml_problem  # noqa: PLC0415

    try:
        data = tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as error:
        return [], [toml_problem(path, error, text)]
    servers = data.get(client.top_key)
    if servers is None:
        return [], []
    if not isinstance(servers, dict):
        return [], [Problem(path, 1, 1, f"{client.top_key!r} must be a table of "
                                        f"[{client.top_key}.NAME] tables")]
    lines = {name: (line, 1) for name, line in toml_table_lines(text, client.top_key).items()}
    return servers_from_data(client, servers, scope=scope, path=path, lines=lines, tier=tier)


_KEY = r'(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|\'[^\']*\')'


def toml_table_lines(text: str, top_key: str) -> dict[str, int]:
    """Line of each `[top_key.NAME]` (or `top_key.NAME... =`, or `NAME = ` inside
    `[top_key]`); the first mention wins."""
    header = re.compile(rf"^\s*\[\s*{re.escape(top_key)}\s*\.\s*({_KEY})")
    section = re.compile(rf"^\s*\[\s*{re.escape(top_key)}\s*\]")
    dotted = re.compile(rf"^\s*{re.escape(top_key)}\s*\.\s*({_KEY})\s*[.=]")
    plain = re.compile(rf"^\s*({_KEY})\s*[.=]")
    lines: dict[str, int] = {}
    inside = False
    top_level = True
    for number, line in enumerate(text.splitlines(), start=1):
        match = header.match(line)
        if match:
            lines.setdefault(_unquote(match[1]), number)
            inside = top_level = False
            continue
        if line.lstrip().startswith("["):
            inside, top_level = bool(section.match(line)), False
            continue
        match = dotted.match(line) if top_level else (plain.match(line) if inside else None)
        if match:
            lines.setdefault(_unquote(match[1]), number)
    return lines


def _unquote(key: str) -> str:
    if key[:1] in "\"'":
        value: str = tomllib.loads(f"k = {key}")["k"]
        return value
    return key


# ---- reading a client's files (edge) -------------------------------------------------

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
    from mcpctl.client_files import read_client_text  # noqa: PLC0415

    load = ClientLoad(client)
    for path, scope in user_files(client, os_key, environ, home, override):
        exists = path.exists() or path.is_symlink()
        load.files.append(ClientFile(path, scope, exists))
        if not exists:
            continue
        text = read_client_text(path)
        if isinstance(text, Problem):
            load.problems.append(text)
            continue
        servers, problems = read_client_document(client, text, path, root, scope=scope)
        load.servers += servers
        load.problems += problems
    if workspace:
        own = {f.path.resolve() for f in load.files}
        for relative in client.workspace_files:
            # In the home folder, ~/.cursor/mcp.json is both the user's file and the
            # "repo" file: it is the user's.
            if (root / relative).resolve() not in own:
                _load_workspace_file(load, root / relative, relative, root)
    return load


def _load_workspace_file(load: ClientLoad, path: Path, relative: str, root: Path) -> None:
    from mcpctl.client_files import read_client_text  # noqa: PLC0415
    from mcpctl.formats import format_for_path  # noqa: PLC0415
    from mcpctl.workspace import load_workspace_file  # noqa: PLC0415

    if not path.exists() and not path.is_symlink():
        return
    load.files.append(ClientFile(path, "project", True))
    why = ("defined by the repo: mcpctl imports only your own files (approve it with "
           "`mcpctl trust`)",)
    fmt = format_for_path(relative)
    if fmt is not None:
        tier = load_workspace_file(path, fmt, SCOPE_ORDER.index("project"))
        load.problems += tier.problems
        for definition in tier.definitions:
            spec = definition.spec
            managed = is_mcpctl_command(spec.command) and spec.args == ("run", spec.name)
            source = Source(Tier.WORKSPACE, path, definition.source.line,
                            SCOPE_ORDER.index("project"), load.client.id)
            load.servers.append(ClientServer(load.client.id, "project",
                                             Definition(spec, source), managed, why))
        return
    text = read_client_text(path)
    if isinstance(text, Problem):
        load.problems.append(text)
        return
    servers, problems = read_client_document(load.client, text, path, root, scope="project",
                                             tier=Tier.WORKSPACE)
    load.servers += [ClientServer(s.client, s.scope, s.definition, s.managed,
                                  (*why, *s.unsupported), s.notes, s.switched_off)
                     for s in servers]
    load.problems += problems


# ---- what each client would start (pure) ---------------------------------------------

@dataclass(frozen=True)
class ClientRow:
    server: ClientServer
    state: str  # starts | via mcpctl | shadowed | needs approval | approved by name | ...
    shadowed_by: str | None = None  # the scope that wins over this one


@dataclass(frozen=True)
class Difference:
    """A name two or more clients would start differently."""

    name: str
    definitions: tuple[ClientServer, ...]


def client_rows(servers: list[ClientServer], user_specs: Mapping[str, ServerSpec],
                project_state: Callable[[str], str] | None = None) -> list[ClientRow]:
    """One client's servers with what the client does with each. `project_state` says
    whether the client starts a repo server (Claude Code approvals); None: it does."""
    rows: list[ClientRow] = []
    by_name: dict[str, list[ClientServer]] = {}
    for server in servers:
        by_name.setdefault(server.name, []).append(server)
    for name in sorted(by_name):
        candidates: list[ClientServer] = []
        states: dict[int, str] = {}
        for server in sorted(by_name[name], key=lambda s: s.definition.source.precedence):
            if server.switched_off:
                states[id(server)] = "switched off"
            elif server.scope.startswith("profile"):
                states[id(server)] = f"in {server.scope}"
            elif server.scope == "project" and project_state is not None \
                    and project_state(name) != "approved by name":
                states[id(server)] = project_state(name)
            else:
                candidates.append(server)
        winner = candidates[0] if candidates else None
        for server in sorted(by_name[name], key=lambda s: s.definition.source.precedence):
            if server is winner:
                rows.append(ClientRow(server, _winner_state(server, user_specs, project_state)))
            elif id(server) in states:
                rows.append(ClientRow(server, states[id(server)]))
            else:  # a candidate that is not the winner: there is a winner
                rows.append(ClientRow(server, "shadowed", winner.scope if winner else None))
    return rows


def _winner_state(server: ClientServer, user_specs: Mapping[str, ServerSpec],
                  project_state: Callable[[str], str] | None) -> str:
    if server.managed:
        spec = user_specs.get(server.name)
        if spec is None:
            return "via mcpctl, not in the user tier"
        return "via mcpctl, remote in the user tier" if spec.is_remote else "via mcpctl"
    if server.scope == "project" and project_state is not None:
        return "approved by name"
    return "starts"


_STARTS = ("starts", "via mcpctl", "approved by name")


def differences(rows_by_client: Mapping[str, list[ClientRow]],
                user_specs: Mapping[str, ServerSpec]) -> list[Difference]:
    """Names that clients would start with different definitions (a managed entry
    means the user tier's definition)."""
    import json  # noqa: PLC0415

    from mcpctl.entries import entry_from_spec  # noqa: PLC0415

    meanings: dict[str, dict[str, list[ClientServer]]] = {}
    for rows in rows_by_client.values():
        for row in rows:
            if row.state not in _STARTS:
                continue
            spec = user_specs[row.server.name] if row.server.managed else row.server.spec
            meaning = json.dumps(entry_from_spec(spec), sort_keys=True, default=str)
            meanings.setdefault(row.server.name, {}).setdefault(meaning, []).append(row.server)
    return [Difference(name, tuple(s for group in groups.values() for s in group))
            for name, groups in sorted(meanings.items()) if len(groups) > 1]


# ---- the whole picture (edge) ----------------------------------------------------------

@dataclass
class ClientReport:
    client: ClientFormat
    files: list[ClientFile]
    rows: list[ClientRow]
    sync_enabled: bool = False
    in_sync: bool | None = None  # None: not synced, or cannot tell


@dataclass
class ClientsView:
    root: Path
    reports: list[ClientReport] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def load_clients_view(machine: Machine, only: tuple[str, ...] = ()) -> ClientsView:
    """What every known client would start in `machine.root`, read-only."""
    from mcpctl.clients import CLIENTS  # noqa: PLC0415
    from mcpctl.errors import McpctlError  # noqa: PLC0415
    from mcpctl.sync_config import ClientSettings, read_client_settings  # noqa: PLC0415
    from mcpctl.user_config import load_user_tier  # noqa: PLC0415
    from mcpctl.weak_approvals import load_weak_approvals  # noqa: PLC0415

    view = ClientsView(machine.root)
    user = load_user_tier(machine.config_file)
    view.problems += user.problems
    user_specs = {d.name: d.spec for d in user.definitions}
    try:
        settings = read_client_settings(machine.config_file)
    except McpctlError as error:
        view.problems.append(Problem(machine.config_file, 1, 1, str(error)))
        settings = ClientSettings()
    for client in CLIENTS:
        if only and client.id not in only:
            continue
        load = load_client(client, machine.root, machine.os_key, machine.environ, machine.home)
        view.problems += load.problems
        project_state = None
        if client.project_key is not None:  # Claude Code approves .mcp.json servers
            project = {s.name for s in load.servers if s.scope == "project"}
            approvals = load_weak_approvals(machine.root, project, machine.environ,
                                            machine.home)
            view.problems += approvals.problems
            project_state = approvals.state_of
        report = ClientReport(client, load.files,
                              client_rows(load.servers, user_specs, project_state),
                              client.id in settings.sync)
        if report.sync_enabled and not user.problems:
            report.in_sync = _in_sync(machine, client, user_specs, settings.command)
        view.reports.append(report)
    view.differences = differences({r.client.id: r.rows for r in view.reports}, user_specs)
    view.problems = list(dict.fromkeys(view.problems))
    return view


def _in_sync(machine: Machine, client: ClientFormat, user_specs: Mapping[str, ServerSpec],
             command: str) -> bool | None:
    from mcpctl.client_export import plan_export, read_servers  # noqa: PLC0415
    from mcpctl.client_files import read_client_text  # noqa: PLC0415
    from mcpctl.errors import McpctlError  # noqa: PLC0415

    path = machine.client_path(client)
    text = read_client_text(path) if path.exists() else None
    if isinstance(text, Problem):
        return None
    try:
        existing = read_servers(client, text, path)
    except McpctlError:
        return None
    plan = plan_export(client, existing, [user_specs[n] for n in sorted(user_specs)], command,
                       replace=False, prune=True)
    return not plan.writes and not plan.conflicts
