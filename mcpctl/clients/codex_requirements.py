"""Codex's admin requirements file and its `mcp_servers` allowlist (issue 22, system mode).

Read from Codex 0.171.0's shipped code, then measured with it (its app-server's MCP
startup status, in a private mount namespace over `/etc`):

- Codex reads `/etc/codex/requirements.toml` (on Windows, not measured, the same
  name under `%ProgramData%\\OpenAI\\Codex`). A `requirements.toml` in `~/.codex` or
  in a project's `.codex` is not read (measured: neither widens the system file).
- With a `[mcp_servers]` table in it, every server whose name is not in the table, or
  whose definition does not match that name's `identity`, is disabled: not started,
  listed with no tools. An empty table disables every server.
- `identity` is `command = "x"` (the executable only: any arguments match), `url =
  "…"`, or a matcher, `[mcp_servers.NAME.identity.command]` with `executable` and
  `args`, one `{match = "exact" | "prefix", value}` or `{match = "regex", expression}`
  per argument, in order, as many as the server has. mcpctl writes the matcher with
  exact arguments: `mcpctl run NAME` and nothing else.
- `env`, `env_vars` and `cwd` are not part of the identity, and a trusted project's
  `.codex/config.toml` merges over the user's entry of the same name key by key: a
  repo can add `env` (`PYTHONPATH`, `LD_PRELOAD`, `MCPCTL_HOME`) to an allowed entry
  and run code of its own before mcpctl's gate (measured). Said by `guard --system`
  and in docs/design.md's threat model.
- A requirements file Codex cannot parse stops Codex itself (its app-server starts no
  thread), so an existing file mcpctl cannot read is never overwritten.

`requirements_text` and `allows_only_exact` are pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mcpctl.errors import ConfigError

CODEX_REQUIREMENTS = {"linux": "/etc/codex/requirements.toml",
                      "macos": "/etc/codex/requirements.toml",
                      "windows": "C:/ProgramData/OpenAI/Codex/requirements.toml"}
KEY = "mcp_servers"
LIMIT = ("a trusted project's .codex/config.toml can still add env (PYTHONPATH, "
         "LD_PRELOAD, MCPCTL_HOME) to an allowed entry of the same name: Codex matches "
         "the command and its arguments only")


def identity(command: str, name: str) -> dict[str, Any]:
    """The identity that lets exactly `COMMAND run NAME` start under `name`."""
    return {"identity": {"command": {
        "executable": command,
        "args": [{"match": "exact", "value": "run"}, {"match": "exact", "value": name}]}}}


def requirements_text(old: str | None, command: str, names: Sequence[str]) -> str:
    """The requirements file: `old` with its `mcp_servers` table replaced by one that
    allows each user-tier server as `mcpctl run NAME` and nothing else; every other
    key and comment kept. Refused when the result would not mean that."""
    import tomlkit  # noqa: PLC0415

    from mcpctl.syntax.toml_loads import load_toml  # noqa: PLC0415

    before = load_toml(old or "")
    try:
        document = tomlkit.parse(old or "")
    except tomlkit.exceptions.TOMLKitError as error:
        raise ConfigError(f"the requirements file cannot be edited in place ({error}); "
                          "nothing was written") from None
    if KEY in document:
        del document[KEY]
    servers = tomlkit.table(is_super_table=True)
    for name in sorted(names):
        entry = identity(command, name)
        matcher = tomlkit.table()
        matcher["executable"] = command
        args = tomlkit.array()
        for arg in entry["identity"]["command"]["args"]:
            args.append(tomlkit.inline_table())
            args[-1].update(arg)
        matcher["args"] = args
        servers[name] = {"identity": {"command": matcher}}
    if not names:
        servers = tomlkit.table()  # `[mcp_servers]`, empty: every server disabled
    document[KEY] = servers
    text = tomlkit.dumps(document)
    wanted = {**{k: v for k, v in before.items() if k != KEY},
              KEY: {name: identity(command, name) for name in names}}
    if load_toml(text) != wanted:
        raise ConfigError("the requirements file would not mean what was intended; "
                          "nothing was written (please report this)")
    return text


def allows_only_exact(data: Mapping[str, Any]) -> bool:
    """Does this requirements document hold an `mcp_servers` allowlist in which every
    entry names one exact command line or URL (no executable-only identity, no prefix or
    regex argument), so no repo can widen it with arguments of its own?"""
    servers = data.get(KEY)
    return isinstance(servers, Mapping) and all(_exact(entry) for entry in servers.values())


def _exact(entry: Any) -> bool:
    found = entry.get("identity") if isinstance(entry, Mapping) else None
    if not isinstance(found, Mapping):
        return False
    if set(found) == {"url"}:
        return isinstance(found["url"], str)
    matcher = found.get("command")
    if set(found) != {"command"} or not isinstance(matcher, Mapping):
        return False
    args = matcher.get("args")
    return isinstance(matcher.get("executable"), str) and isinstance(args, list) and all(
        isinstance(arg, Mapping) and arg.get("match") == "exact"
        and isinstance(arg.get("value"), str) for arg in args)
