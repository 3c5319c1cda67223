"""Client fields that have an exact equivalent in mcpctl, translated (pure; DESIGN §11).

Each translation rewrites one entry in place, appending a note for what it translated
and a reason for what it cannot. A client's table row names the ones it needs
(`ClientFormat.translations`): Codex's `bearer_token_env_var` becomes an Authorization
header with `${env:V}`, its `env_vars` become `${env:NAME}`, Gemini's `url` means SSE.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

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
