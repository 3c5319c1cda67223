"""Client fields that have an exact equivalent in mcpctl, translated (pure; DESIGN §11).

Each translation rewrites one entry in place, appending a note for what it translated
and a reason for what it cannot. A client's table row names the ones it needs
(`ClientFormat.translations`): Codex's `bearer_token_env_var` becomes an Authorization
header with `${env:V}`, its `env_vars` become `${NAME:-}`, Gemini's `timeout` is in
milliseconds, Claude Code's is a per-request limit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Translation = Callable[[dict[str, Any], list[str], list[str]], None]


def _codex_env_vars(entry: dict[str, Any], notes: list[str], unsupported: list[str]) -> None:
    """Codex forwards each named variable when it is set: `${NAME:-}` in mcpctl (an unset
    one arrives empty), and naming it keeps it forwarded when exported back."""
    listed = entry.pop("env_vars", None)
    if listed is None:
        return
    if not isinstance(listed, list):
        unsupported.append("'env_vars' is not a list (Codex itself refuses a table here: "
                           "it takes names, or {name, source} tables in a list)")
        return
    names: list[str] = []
    for item in listed:
        name, source = (item, "local") if isinstance(item, str) else (
            (item.get("name"), item.get("source", "local")) if isinstance(item, dict)
            else (None, None))
        if not isinstance(name, str) or not name:
            unsupported.append("an 'env_vars' item that is neither a name nor {name = …}")
            return
        if source != "local":
            unsupported.append(f"env_vars {name} comes from source {source!r} (a remote "
                               "executor), which mcpctl cannot express")
            return
        names.append(name)
    env = dict(entry.get("env") or {})
    for name in names:
        env.setdefault(name, "${" + name + ":-}")
    entry["env"] = env
    notes.append("env_vars " + ", ".join(names) + " passed on as ${NAME:-} (forwarded when "
                 "set, empty otherwise)")


def _claude_code_fields(entry: dict[str, Any], notes: list[str],
                        unsupported: list[str]) -> None:
    """Claude Code's `timeout` is a per-request limit in milliseconds (its start-up limit
    is the MCP_TIMEOUT variable), so it is not mcpctl's start-up timeout; `ws` servers
    are beyond mcpctl's transports."""
    if "timeout" in entry:
        notes.append(f"dropped Claude Code's per-request timeout ({entry.pop('timeout')!r} "
                     "ms); mcpctl's timeout is for starting up")
    if entry.get("type") == "ws":
        del entry["type"]
        unsupported.append("a WebSocket server (type ws), which mcpctl cannot reach")


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
    """`url` without `type` is streamable HTTP in Gemini CLI 0.61 (measured: it POSTs
    `initialize` there), `httpUrl` its older spelling; `timeout` is its connect limit in
    milliseconds."""
    if "httpUrl" in entry:
        if "url" in entry:
            unsupported.append("both 'url' and 'httpUrl'")
            return
        entry["url"] = entry.pop("httpUrl")
        entry.setdefault("type", "http")
    elif "url" in entry and "type" not in entry:
        entry["type"] = "http"
        notes.append("'url' without 'type' is streamable HTTP in Gemini CLI")
    if "timeout" in entry:
        millis = entry.pop("timeout")
        if isinstance(millis, bool) or not isinstance(millis, int | float) or millis <= 0:
            unsupported.append("'timeout' is not a positive number of milliseconds")
            return
        entry["timeout"] = millis / 1000
        notes.append(f"timeout {millis!r} ms kept as {millis / 1000:g} s")


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
    "claude_code_fields": _claude_code_fields,
    "codex_env_vars": _codex_env_vars,
    "codex_bearer_token": _codex_bearer_token,
    "codex_env_http_headers": _codex_env_http_headers,
    "codex_startup_timeout": _codex_startup_timeout,
    "gemini_urls": _gemini_urls,
    "vscode_env_values": _vscode_env_values,
}
