"""Other clients' MCP config files as data: one row per client (DESIGN §11, STYLE 9).

Each row says where the client keeps its user file on each OS, which environment
variables move it, the file's syntax and servers key, which entry fields mean what
mcpctl means (aliases), which are harmless metadata, and how an exported entry looks.
Paths are templates resolved by `client_file` (pure: the caller passes the OS name,
the environment and the home folder). Adding a client is one row plus a fixture under
tests/clients/fixtures/.
"""

from collections.abc import Collection, Mapping, Sequence
from enum import StrEnum
from pathlib import Path, PurePath
from typing import Any, NamedTuple

from mcpctl.clients.guard_key import keyed, without_key
from mcpctl.machine import Machine, os_name
from mcpctl.model import NO_ENTRIES

__all__ = ["os_name"]  # re-exported: the rows are keyed by it


class Syntax(StrEnum):
    JSON = "json"
    JSONC = "jsonc"  # comments and trailing commas allowed
    TOML = "toml"


class PassedEnv(StrEnum):
    """Which of the client's own environment variables reach a stdio server it starts
    (measured with each client's CLI; DESIGN §11)."""

    ALL = "all"  # the whole environment (Claude Code, Cursor, VS Code, ...)
    LISTED = "listed"  # a short allow-list plus the names in the entry's `env_vars` (Codex)
    UNLESS_SECRET_NAMED = "unless-secret-named"  # all but names like TOKEN/KEY (Gemini CLI)


class Variables(StrEnum):
    """How a client expands `${...}` in its entries, compared with mcpctl (DESIGN §3)."""

    SAME = "same"  # `${VAR}`, `${env:VAR}`...: what mcpctl expands means the same there
    NONE = "none"  # values are passed literally: a `${` would change meaning in mcpctl
    DOLLAR = "dollar"  # also bare `$VAR` (Gemini CLI): rewritten as `${VAR}` on import


class EnvOverride(NamedTuple):
    """An environment variable that moves the client's file: `{value}` is its value."""

    variable: str
    template: str


class ClientFormat(NamedTuple):
    """One client's row: where its file is per OS, its syntax and its field names."""

    id: str
    title: str
    syntax: Syntax
    top_key: str
    # Per OS ("linux", "macos", "windows"): a template with {home}, {xdg_config},
    # {appdata} (see `client_file`).
    locations: Mapping[str, str]
    env_overrides: tuple[EnvOverride, ...] = ()
    # Client field -> mcpctl field.
    aliases: Mapping[str, str] = NO_ENTRIES
    # Fields that describe the entry without changing what runs: dropped on import.
    inert: frozenset[str] = frozenset()
    # Fields whose value here is the client's default: dropped on import.
    defaults: Mapping[str, Any] = NO_ENTRIES
    # The field and value that switch an entry off: the client does not start it.
    off_switch: tuple[str, Any] | None = None
    # Named translations in client_translations (Codex's bearer_token_env_var, Gemini's url...).
    translations: tuple[str, ...] = ()
    variables: Variables = Variables.SAME
    # Keys written beside command/args in an exported entry.
    export_extra: Mapping[str, Any] = NO_ENTRIES
    # What reaches `mcpctl run`, so which variables an exported entry must forward.
    passed_env: PassedEnv = PassedEnv.ALL
    # The entry key for a start-up timeout and how many of its units make a second.
    startup_timeout: tuple[str, float] | None = None
    # Claude Code keeps per-folder ("local") servers in `projects[<folder>].<top_key>`.
    project_key: str | None = None
    # Repo files the client also reads (shown by `mcpctl clients`, never imported).
    workspace_files: tuple[str, ...] = ()
    # VS Code profiles: more user files next to the main one.
    profile_glob: str | None = None
    # The running client rewrites the whole file (Claude Code's ~/.claude.json).
    rewritten_by_client: bool = False
    # Starts no server at all in a folder it does not trust (Gemini CLI: folder_trust.py).
    folder_trust: bool = False
    # Exported entries carry the machine's guard key (guard_key.py): its allowlist
    # matches command lines, which a repo must not be able to write (issue 22).
    keyed: bool = False
    notes: str = ""


# Environment variables `mcpctl run` needs to find its config and the keyring. Codex
# passes only a short allowlist (HOME, PATH, ...) to servers; `env_vars` forwards these.
MCPCTL_RUN_ENV = ("MCPCTL_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME",
                  "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS")



def _same_everywhere(template: str) -> dict[str, str]:
    return dict.fromkeys(("linux", "macos", "windows"), template)


CLIENTS: tuple[ClientFormat, ...] = (
    ClientFormat(
        "claude-code", "Claude Code", Syntax.JSON, "mcpServers",
        _same_everywhere("{home}/.claude.json"),
        env_overrides=(EnvOverride("CLAUDE_CONFIG_DIR", "{value}/.claude.json"),),
        inert=frozenset({"alwaysLoad"}),
        translations=("claude_code_fields",),
        export_extra={"type": "stdio"},
        project_key="projects",
        workspace_files=(".mcp.json",),
        rewritten_by_client=True,
        keyed=True,
        notes="user scope: top-level mcpServers; local scope: projects[<folder>].mcpServers; "
              "project scope: the repo's .mcp.json, started only once approved",
    ),
    ClientFormat(
        "claude-desktop", "Claude Desktop", Syntax.JSON, "mcpServers",
        {"linux": "{xdg_config}/Claude/claude_desktop_config.json",
         "macos": "{home}/Library/Application Support/Claude/claude_desktop_config.json",
         "windows": "{appdata}/Claude/claude_desktop_config.json"},
        variables=Variables.NONE,
        notes="starts local servers only; remote servers are added in the app, not this "
              "file; no official Linux build (community builds use the path above)",
    ),
    ClientFormat(
        "cursor", "Cursor", Syntax.JSON, "mcpServers",
        _same_everywhere("{home}/.cursor/mcp.json"),
        workspace_files=(".cursor/mcp.json",),
        notes="expands ${env:NAME}, ${userHome}, ${workspaceFolder}",
    ),
    ClientFormat(
        "vscode", "VS Code", Syntax.JSONC, "servers",
        {"linux": "{xdg_config}/Code/User/mcp.json",
         "macos": "{home}/Library/Application Support/Code/User/mcp.json",
         "windows": "{appdata}/Code/User/mcp.json"},
        env_overrides=(EnvOverride("VSCODE_PORTABLE", "{value}/user-data/User/mcp.json"),
                       EnvOverride("VSCODE_APPDATA", "{value}/Code/User/mcp.json")),
        inert=frozenset({"gallery", "version"}),
        translations=("vscode_env_values",),
        export_extra={"type": "stdio"},
        workspace_files=(".vscode/mcp.json",),
        profile_glob="profiles/*/mcp.json",
        notes="JSONC; `inputs` beside `servers`; `type` is required; each profile has its "
              "own mcp.json under User/profiles/<id>/",
    ),
    ClientFormat(
        "codex", "Codex", Syntax.TOML, "mcp_servers",
        _same_everywhere("{home}/.codex/config.toml"),
        # A trusted project's own file: Codex merges it over the user's (issue 26).
        workspace_files=(".codex/config.toml",),
        env_overrides=(EnvOverride("CODEX_HOME", "{value}/config.toml"),),
        aliases={"http_headers": "headers"},
        inert=frozenset({"required", "tool_timeout_sec"}),
        defaults={"enabled": True},
        off_switch=("enabled", False),
        translations=("codex_env_vars", "codex_bearer_token", "codex_env_http_headers",
                      "codex_startup_timeout"),
        variables=Variables.NONE,
        export_extra={"env_vars": list(MCPCTL_RUN_ENV)},
        passed_env=PassedEnv.LISTED,
        startup_timeout=("startup_timeout_sec", 1),
        notes="[mcp_servers.NAME] tables; one invalid entry stops every codex command, so "
              "mcpctl marks its entries by their shape (mcpctl run NAME); servers get only "
              "an allowlist of environment variables plus `env_vars`; `${VAR}` is not "
              "expanded",
    ),
    ClientFormat(
        "gemini", "Gemini CLI", Syntax.JSONC, "mcpServers",
        _same_everywhere("{home}/.gemini/settings.json"),
        env_overrides=(EnvOverride("GEMINI_CLI_HOME", "{value}/.gemini/settings.json"),),
        inert=frozenset({"description"}),
        defaults={"trust": False},
        translations=("gemini_urls",),
        variables=Variables.DOLLAR,
        passed_env=PassedEnv.UNLESS_SECRET_NAMED,
        startup_timeout=("timeout", 1000),
        workspace_files=(".gemini/settings.json",),
        folder_trust=True,
        notes="settings.json holds all settings (comments allowed); `url` is streamable "
              "HTTP unless `type` says sse (`httpUrl` is the old spelling); `timeout` is "
              "milliseconds; variables named like TOKEN/KEY/SECRET/AUTH/PASSWORD reach a "
              "server only when its own `env` names them; folder trust gates every server",
    ),
    ClientFormat(
        "windsurf", "Windsurf", Syntax.JSON, "mcpServers",
        _same_everywhere("{home}/.codeium/windsurf/mcp_config.json"),
        aliases={"serverUrl": "url"},
        defaults={"disabled": False},
        off_switch=("disabled", True),
        notes="remote servers use `serverUrl`; expands ${env:NAME}",
    ),
)

CLIENT_IDS = tuple(client.id for client in CLIENTS)


def client_by_id(client_id: str) -> ClientFormat | None:
    return next((client for client in CLIENTS if client.id == client_id), None)


def client_file(client: ClientFormat, os_key: str, environ: Mapping[str, str],
                home: Path) -> Path:
    """Where `client` keeps its user file: the first env override that is set, else
    the OS's location (pure)."""
    for override in client.env_overrides:
        value = environ.get(override.variable)
        if value:
            return _path(override.template.format(value=value), os_key)
    values = {
        "home": str(home),
        "xdg_config": environ.get("XDG_CONFIG_HOME") or str(home / ".config"),
        "appdata": environ.get("APPDATA") or str(home / "AppData" / "Roaming"),
    }
    return _path(client.locations[os_key].format(**values), os_key)


def client_path(machine: Machine, client: ClientFormat, override: Path | None = None) -> Path:
    """The file `client` keeps on `machine`, or `override` (a `--file`) made absolute."""
    if override is not None:
        return override.absolute()
    return client_file(client, machine.os_key, machine.environ, machine.home)


def _path(text: str, os_key: str) -> Path:
    if os_key == "windows":
        return Path(PurePath(text.replace("/", "\\")))
    return Path(text)


def is_mcpctl_command(command: Any) -> bool:
    """`mcpctl`, or an absolute path to it (an exported entry may name it so). A relative
    path (`./tools/mcpctl`) is some other program that happens to share the name."""
    if not isinstance(command, str) or not command:
        return False
    normal = command.replace("\\", "/")
    name = normal.rsplit("/", 1)[-1]
    if name not in ("mcpctl", "mcpctl.exe"):
        return False
    return normal == name or normal.startswith("/") or normal[1:3] == ":/"


# The user's own settings of an exported entry in a client, which change how the client
# treats the server but not what runs: kept by every sync. Anything else on an entry
# (its own `env`, `cwd`, `envFile`) makes it not mcpctl's: `env` could set MCPCTL_HOME
# or PYTHONPATH and make `mcpctl run` run something else.
TWEAKS = frozenset({
    "enabled", "disabled", "required", "timeout", "tool_timeout_sec", "startup_timeout_sec",
    "startup_timeout_ms", "description", "alwaysLoad", "trust", "includeTools",
    "excludeTools", "enabled_tools", "disabled_tools", "disabledTools", "autoApprove",
    "alwaysAllow",
})


def is_managed(client: ClientFormat, name: str, entry: Any) -> bool:
    """Is this entry one mcpctl exported? Its shape is the marker: `mcpctl run NAME` as
    a local server with only the keys mcpctl writes and the user's own TWEAKS (Codex
    stops at an unknown key, so there is no marker key); with or without a guard key
    after it (`run NAME --key K`: an older entry has none)."""
    if not isinstance(entry, Mapping):
        return False
    args = entry.get("args")
    if not is_mcpctl_command(entry.get("command")) or not isinstance(args, list) \
            or without_key(args) != ["run", name]:
        return False
    if entry.get("type", "stdio") != "stdio" or not set(entry) <= _managed_keys(client):
        return False
    env = entry.get("env")
    if env is None:
        return True
    # Only what export writes for Gemini: each name forwarded as itself.
    return client.passed_env is PassedEnv.UNLESS_SECRET_NAMED and isinstance(env, Mapping) \
        and all(value == "${" + key + "}" and key not in MCPCTL_RUN_ENV
                for key, value in env.items())


def _managed_keys(client: ClientFormat) -> frozenset[str]:
    return owned_keys(client, TWEAKS)


def is_guard_run(name: str, command: Any, args: Any, env: Any = None) -> bool:
    """The guard's entry for a repo's server: `mcpctl run --guard --key K` with the
    server's name in its env (issue 22), or the older `mcpctl run --guard` and `mcpctl
    run --workspace ROOT NAME`."""
    if not is_mcpctl_command(command) or not isinstance(args, list | tuple):
        return False
    if without_key(list(args)) == ["run", "--guard"]:
        return isinstance(env, Mapping) and env.get("MCPCTL_GUARD_SERVER") == name
    return len(args) == 4 and tuple(args[:2]) == ("run", "--workspace") and args[3] == name


# Gemini CLI drops an inherited variable whose name holds one of these (measured with
# 0.61.0: KEYBOARD and AUTHOR go too), unless the entry's own `env` names it.
GEMINI_STRIPPED = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "AUTH", "CREDENTIAL",
                   "CREDS", "PRIVATE", "CERT")


def exported_entry(client: ClientFormat, name: str, command: str,
                   variables: Sequence[str] = (), timeout: float | None = None,
                   key: str | None = None) -> dict[str, Any]:
    """The entry mcpctl writes into `client`'s file for server `name`: `mcpctl run NAME`
    (`--key K` after it for a keyed client), forwarding `variables` (the environment
    variables the server's definition reads) the way the client needs, with the
    start-up `timeout` (seconds) in its unit."""
    import copy  # noqa: PLC0415 - exports and edits only, not list's start

    entry: dict[str, Any] = {}
    if "type" in client.export_extra:
        entry["type"] = client.export_extra["type"]
    entry["command"] = command
    entry["args"] = keyed(["run", name], key) if key and client.keyed else ["run", name]
    for field, value in client.export_extra.items():
        if field != "type":
            entry[field] = copy.deepcopy(value)
    if client.passed_env is PassedEnv.LISTED:
        entry["env_vars"] = list(dict.fromkeys([*entry.get("env_vars", ()), *variables]))
    elif client.passed_env is PassedEnv.UNLESS_SECRET_NAMED:
        stripped = [v for v in variables if any(part in v.upper() for part in GEMINI_STRIPPED)]
        if stripped:
            # `${NAME}` is expanded by the client from its own, unstripped environment.
            entry["env"] = {variable: "${" + variable + "}" for variable in stripped}
    if timeout is not None and client.startup_timeout is not None:
        field, per_second = client.startup_timeout
        value = timeout * per_second
        entry[field] = int(value) if float(value).is_integer() else value
    return entry


def owned_keys(client: ClientFormat, exported: Collection[str]) -> frozenset[str]:
    """The keys of an entry that are mcpctl's, given the keys `exported` writes (or
    TWEAKS, for what a managed entry may hold); the entry's other keys are the user's own
    tweaks in the client (an off switch, a tool timeout) and are kept."""
    owned = {"command", "args", "type", *client.export_extra, *exported}
    if client.passed_env is PassedEnv.LISTED:
        owned.add("env_vars")
    elif client.passed_env is PassedEnv.UNLESS_SECRET_NAMED:
        owned.add("env")
    return frozenset(owned)
