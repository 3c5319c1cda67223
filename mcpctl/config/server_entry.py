"""Build a user-tier entry from `add`'s options (pure; validated like any file entry)."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Any

from mcpctl.config.entries import EntryError, entry_from_spec, spec_from_entry
from mcpctl.config.formats import WORKSPACE_FORMATS
from mcpctl.errors import UsageError

# Names become tool-name prefixes in clients (`server__tool`, 64 characters at most).
SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def check_name(name: str) -> None:
    if SERVER_NAME.match(name):
        return
    if not name:
        reason = "it is empty"
    elif len(name) > 64:
        reason = f"it is {len(name)} characters long (64 at most)"
    else:
        bad = sorted({c for c in name if not re.match(r"[A-Za-z0-9_-]", c)})
        reason = "it contains " + " ".join(repr(c) for c in bad)
    raise UsageError(
        f"invalid server name {name!r}: {reason}; use letters, digits, '_' and '-' "
        "(clients prefix tool names with it)"
    )


@dataclass(frozen=True)
class EntryOptions:
    argv: list[str]
    env: list[str]
    cwd: str | None
    url: str | None
    headers: list[str]
    transport: str | None
    entry_json: str | None
    command_line: str | None


def build_entry(name: str, options: EntryOptions) -> dict[str, Any]:
    raw = _raw_entry(options)
    try:
        spec = spec_from_entry(name, raw, WORKSPACE_FORMATS[0].aliases)
    except EntryError as error:
        raise UsageError(str(error)) from None
    _refuse_nulls(spec.extra, "")
    return entry_from_spec(spec)


def _refuse_nulls(value: Any, where: str) -> None:
    """TOML has no null: refuse it here rather than fail while writing config.toml."""
    if value is None:
        raise UsageError(f"--entry: {where!r} is null, which config.toml cannot hold; leave it out")
    if isinstance(value, dict):
        for key, item in value.items():
            _refuse_nulls(item, f"{where}.{key}" if where else key)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _refuse_nulls(item, f"{where}[{index}]")


def _raw_entry(options: EntryOptions) -> dict[str, Any]:
    given = [flag for flag, value in (("-- COMMAND", options.argv), ("--url", options.url),
                                      ("--entry", options.entry_json),
                                      ("--command-line", options.command_line)) if value]
    if len(given) != 1:
        raise UsageError("give exactly one of: -- COMMAND..., --command-line, --url, --entry"
                         + (f" (got {', '.join(given)})" if given else ""))
    if options.entry_json:
        if options.env or options.headers or options.cwd or options.transport:
            raise UsageError("--entry takes the whole entry; put env, headers and cwd inside it")
        return _json_entry(options.entry_json)
    if options.url:
        if options.env or options.cwd:
            raise UsageError("--env and --cwd are for servers started by command, not --url")
        entry: dict[str, Any] = {"url": options.url, "type": options.transport or "http"}
        if options.headers:
            entry["headers"] = _pairs(options.headers, "--header")
        return entry
    if options.headers or options.transport:
        raise UsageError("--header and --transport are for --url servers")
    argv = options.argv or _split(options.command_line or "")
    entry = {"command": argv[0], "args": argv[1:]}
    if options.env:
        entry["env"] = _pairs(options.env, "--env")
    if options.cwd:
        entry["cwd"] = options.cwd
    return entry


def _split(command_line: str) -> list[str]:
    try:
        argv = shlex.split(command_line, comments=False, posix=True)
    except ValueError as error:
        raise UsageError(f"--command-line: {error}") from None
    if not argv:
        raise UsageError("--command-line is empty")
    return argv


def _pairs(items: list[str], flag: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for item in items:
        key, equals, value = item.partition("=")
        if not equals or not key:
            raise UsageError(f"{flag} takes KEY=VALUE, got {item!r}")
        if key in pairs:
            raise UsageError(f"{flag} {key} is given twice")
        pairs[key] = value
    return pairs


def _json_entry(text: str) -> dict[str, Any]:
    from mcpctl.syntax.jsonc import load_object_pairs_strict  # noqa: PLC0415

    try:
        value = load_object_pairs_strict(text)
    except ValueError as error:
        raise UsageError(f"--entry: {error}") from None
    if not isinstance(value, dict):
        raise UsageError("--entry must be a JSON object (one server entry)")
    return value
