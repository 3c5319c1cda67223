"""Turn one raw server entry (a JSON object or TOML table) into a ServerSpec.

Pure: the caller has parsed the file; this only interprets one mapping and says
exactly which field is wrong.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from mcpctl.config.formats import TRANSPORT_ALIASES
from mcpctl.model import ServerSpec, Transport

KNOWN_FIELDS = frozenset(
    {"command", "args", "env", "cwd", "envFile", "url", "headers", "type", "timeout"}
)
# Seconds. TOML and JSON (as Python reads it) both spell infinity and NaN, and a wait
# of 1e300 s is a hang; ten minutes is more than any server needs to answer.
MAX_TIMEOUT = 600
# Levels of tables and arrays in one entry (a real one has four): tomlkit renders a
# value recursively, and about 500 levels ended `add` with an internal error.
MAX_NESTING = 64


def _near_miss(fields: Mapping[str, Any]) -> str:
    """` (did you mean 'command' for 'comand'?)` when a key is a typo of the missing one."""
    from difflib import get_close_matches  # noqa: PLC0415 - only for a broken entry

    for key in fields:
        match = get_close_matches(key.lower(), ["command", "url"], n=1, cutoff=0.6)
        if match and key not in KNOWN_FIELDS:
            return f" (did you mean {match[0]!r} for {key!r}?)"
    return ""


class EntryError(ValueError):
    """An entry that does not describe a server; `field` names the culprit."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def spec_from_entry(
    name: str, entry: Any, aliases: Mapping[str, str] | None = None
) -> ServerSpec:
    if not isinstance(entry, Mapping):
        raise EntryError(f"server {name!r}: entry must be an object, not {_kind(entry)}")
    fields: dict[str, Any] = {}
    written: dict[str, str] = {}
    for key, value in entry.items():
        canonical = (aliases or {}).get(key, key)
        if canonical in fields:
            # `url` and `serverUrl` side by side: clients disagree about which one wins.
            raise EntryError(f"server {name!r} has both {written[canonical]!r} and {key!r}; "
                             "keep one", key)
        fields[canonical] = value
        written[canonical] = key
    has_command = fields.get("command") is not None
    has_url = fields.get("url") is not None
    if has_command == has_url:
        which = "both 'command' and 'url'" if has_command else "neither 'command' nor 'url'"
        raise EntryError(f"server {name!r} has {which}; it needs exactly one"
                         + ("" if has_command else _near_miss(fields)))
    transport = _transport(name, fields.get("type"), remote=has_url)
    timeout = _timeout(name, fields.get("timeout"))
    spec = ServerSpec(
        name=name,
        transport=transport,
        command=_string(name, fields, "command"),
        args=tuple(_string_list(name, fields, "args")),
        env=_string_map(name, fields, "env"),
        cwd=_string(name, fields, "cwd"),
        env_file=_string(name, fields, "envFile"),
        url=_string(name, fields, "url"),
        headers=_string_map(name, fields, "headers"),
        timeout=timeout,
        extra={k: v for k, v in fields.items() if k not in KNOWN_FIELDS},
    )
    _launchable(spec, written)
    return spec


def _launchable(spec: ServerSpec, written: Mapping[str, str]) -> None:
    """What no launch could carry out is refused here, where the file and field are
    known (issue 23, item 7): a NUL byte cannot be in an argument, a variable or a path
    the OS is given, a variable's name cannot be empty or hold `=`, and a URL's port
    must be a number (`${…}` in the host part is judged once expanded)."""
    name = spec.name
    texts = [("command", spec.command), ("cwd", spec.cwd), ("envFile", spec.env_file),
             ("url", spec.url)]
    texts += [(f"args[{index}]", arg) for index, arg in enumerate(spec.args)]
    texts += [(f"env {key!r}", value) for key, value in spec.env.items()]
    texts += [(f"headers {key!r}", value) for key, value in spec.headers.items()]
    for field, text in texts:
        if text is not None and "\0" in text:
            key = field.split(" ")[0].split("[")[0]
            raise EntryError(f"server {name!r}: {field} holds a NUL byte, which no "
                             "launch can pass on", written.get(key, key))
    for key in [*spec.env, *spec.headers]:
        if not key or "=" in key or "\0" in key:
            field = "env" if key in spec.env else "headers"
            raise EntryError(f"server {name!r}: {field} has a variable named {key!r}; a "
                             "name must be non-empty, without '=' or a NUL byte",
                             written.get(field, field))
    if spec.url is not None and "${" not in spec.url.partition("//")[2].partition("/")[0]:
        from urllib.parse import urlsplit  # noqa: PLC0415 - only for a url server

        try:
            urlsplit(spec.url).port  # noqa: B018 - parsing it is the check
        except ValueError as error:  # the library's text may quote the url: not shown
            why = "its IPv6 host has no closing ']'" if "IPv6" in str(error) \
                else "its port is not a number from 0 to 65535"
            raise EntryError(f"server {name!r}: 'url' is not a valid url: {why}",
                             written.get("url", "url")) from None


def _timeout(name: str, value: Any) -> float | None:
    if value is None:
        return None
    if (isinstance(value, bool) or not isinstance(value, int | float)
            or (isinstance(value, float) and math.isnan(value)) or value <= 0):
        raise EntryError(f"server {name!r}: 'timeout' must be a positive number", "timeout")
    if value > MAX_TIMEOUT:  # infinity too; a huge int is compared exactly, not converted
        raise EntryError(f"server {name!r}: 'timeout' must be at most {MAX_TIMEOUT} seconds",
                         "timeout")
    return float(value)


def _transport(name: str, declared: Any, *, remote: bool) -> Transport:
    if declared is None:
        return Transport.HTTP if remote else Transport.STDIO
    if not isinstance(declared, str) or declared not in TRANSPORT_ALIASES:
        known = ", ".join(sorted(TRANSPORT_ALIASES))
        # The value itself is not quoted: a token pasted into the wrong field is no type.
        raise EntryError(f"server {name!r}: unknown 'type' (known: {known})", "type")
    transport = Transport(TRANSPORT_ALIASES[declared])
    if (transport is Transport.STDIO) == remote:
        needs = "'url'" if remote else "'command'"
        raise EntryError(
            f"server {name!r}: 'type' {declared!r} does not fit an entry with {needs}", "type"
        )
    return transport


def _string(name: str, fields: Mapping[str, Any], key: str) -> str | None:
    value = fields.get(key)
    if value is None or isinstance(value, str):
        return value
    raise EntryError(f"server {name!r}: '{key}' must be a string, not {_kind(value)}", key)


def _string_list(name: str, fields: Mapping[str, Any], key: str) -> list[str]:
    value = fields.get(key)
    if value is None:
        return []
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    raise EntryError(f"server {name!r}: '{key}' must be a list of strings", key)


def _string_map(name: str, fields: Mapping[str, Any], key: str) -> dict[str, str]:
    value = fields.get(key)
    if value is None:
        return {}
    if isinstance(value, Mapping) and all(isinstance(v, str) for v in value.values()):
        return dict(value)
    raise EntryError(f"server {name!r}: '{key}' must map names to strings", key)


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null"}.get(
        type(value), "a number" if isinstance(value, int | float) else type(value).__name__
    )


def entry_from_spec(spec: ServerSpec) -> dict[str, Any]:
    """The canonical `mcpServers`-shaped entry for a spec (fields mcpctl writes, in order)."""
    entry: dict[str, Any] = {}
    if spec.url is not None:
        entry["type"] = spec.transport.value
        entry["url"] = spec.url
    else:
        entry["command"] = spec.command
    # Every field that is set is written, whichever transport: nothing given is dropped.
    if spec.args:
        entry["args"] = list(spec.args)
    if spec.env:
        entry["env"] = dict(spec.env)
    if spec.cwd is not None:
        entry["cwd"] = spec.cwd
    if spec.env_file is not None:
        entry["envFile"] = spec.env_file
    if spec.headers:
        entry["headers"] = dict(spec.headers)
    if spec.timeout is not None:
        entry["timeout"] = spec.timeout
    entry.update(spec.extra)
    return entry


def nests_past(value: Any, bound: int = MAX_NESTING) -> bool:
    """Whether `value` holds tables and arrays more than `bound` levels deep; iterative,
    one pass over the value."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict | list):
            if depth > bound:
                return True
            pending.extend((child, depth + 1)
                           for child in (item.values() if isinstance(item, dict) else item))
    return False
