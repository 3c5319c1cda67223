"""Build a user-tier entry from `add`'s options (pure; validated like any file entry)."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, replace
from typing import Any

from mcpctl.config.entries import EntryError, entry_from_spec, spec_from_entry
from mcpctl.config.entry_values import check_command, check_env, check_headers, check_url
from mcpctl.config.formats import WORKSPACE_FORMATS
from mcpctl.errors import UsageError

# Names become tool-name prefixes in clients (`server__tool`, 64 characters at most).
SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
TRANSPORTS = ("http", "sse", "stdio")
_LOOKS_LIKE_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


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
    options = _url_from_argv(options)
    given = [flag for flag, value in (("-- COMMAND", options.argv), ("URL", options.url),
                                      ("--entry", options.entry_json),
                                      ("--command-line", options.command_line)) if value]
    if len(given) != 1:
        raise UsageError("give exactly one of: -- COMMAND..., a URL (or --url), "
                         "--command-line, --entry"
                         + (f" (got {', '.join(given)})" if given else ""))
    if options.transport not in (None, *TRANSPORTS):
        raise UsageError(f"--transport must be one of {', '.join(TRANSPORTS)}, "
                         f"not {options.transport!r}")
    if options.entry_json:
        if options.env or options.headers or options.cwd or options.transport:
            raise UsageError("--entry takes the whole entry; put env, headers and cwd inside it")
        return _json_entry(options.entry_json)
    if options.url:
        return _remote_entry(options, options.url)
    if options.headers:
        raise UsageError("--header is for a remote server (a URL), not one started by command")
    if options.transport not in (None, "stdio"):
        raise UsageError(f"--transport {options.transport} needs a URL, not a command: "
                         f"mcpctl add NAME --transport {options.transport} https://…")
    argv = options.argv or _split(options.command_line or "")
    check_command(argv[0])
    entry: dict[str, Any] = {"command": argv[0], "args": argv[1:]}
    if options.env:
        entry["env"] = _pairs(options.env, "--env")
        check_env(entry["env"])
    if options.cwd:
        entry["cwd"] = options.cwd
    return entry


def _url_from_argv(options: EntryOptions) -> EntryOptions:
    """`add NAME https://…` (claude mcp / gemini mcp style) is a remote server; a URL
    followed by arguments is refused, since no program is called `https://…`."""
    if not options.argv or not _LOOKS_LIKE_URL.match(options.argv[0]):
        return options
    url = options.argv[0]
    if len(options.argv) > 1 or options.transport == "stdio":
        raise UsageError(f"the command {url!r} is a URL, which cannot be started; for a remote "
                         f"server give the URL alone: mcpctl add NAME {url}")
    if options.url:
        raise UsageError("give the URL once: as an argument or as --url")
    return replace(options, argv=[], url=url)


def _remote_entry(options: EntryOptions, url: str) -> dict[str, Any]:
    if options.env or options.cwd:
        raise UsageError("--env and --cwd are for servers started by command, not a URL")
    if options.transport == "stdio":
        raise UsageError("--transport stdio is for a command; a URL is http or sse")
    check_url(url, "--url")
    entry: dict[str, Any] = {"url": url, "type": options.transport or "http"}
    if options.headers:
        entry["headers"] = _headers(options.headers)
        check_headers(entry["headers"])
    return entry


def _headers(items: list[str]) -> dict[str, str]:
    """`--header` as `K=V` or as HTTP writes it, `K: V` (claude mcp, gemini mcp, curl).

    A header name holds neither ':' nor '=' (RFC 9110 tokens), so whichever comes
    first ends the name; a value may hold both (`Bearer a=b`).
    """
    pairs: dict[str, str] = {}
    for item in items:
        cut = min((at for at in (item.find(":"), item.find("=")) if at >= 0), default=-1)
        key = item[:cut].strip() if cut >= 0 else ""
        if not key:
            raise UsageError(f"--header takes 'Name: value' or Name=value, got {item!r}")
        if key in pairs:
            raise UsageError(f"--header {key} is given twice")
        pairs[key] = item[cut + 1:].strip() if item[cut] == ":" else item[cut + 1:]
    return pairs


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
