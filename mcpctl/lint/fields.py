"""MCP032-MCP052: what the fields of one server entry say, one field at a time."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from mcpctl.config.formats import ConfigFormat
from mcpctl.lint.rules import Hit, shown, where
from mcpctl.syntax.jsonc import JsonPath
from mcpctl.variables import Kind, references

if TYPE_CHECKING:
    from ipaddress import IPv4Address, IPv6Address

_SERVER_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}", re.ASCII)

# Variables that make the runtime load code before the server's own: code injection.
_INJECTION_KEYS = frozenset({
    "NODE_OPTIONS", "LD_PRELOAD", "LD_AUDIT", "PYTHONSTARTUP", "PYTHONINSPECT", "PERL5OPT",
    "RUBYOPT", "BASH_ENV", "ENV", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
    # Where `mcpctl run` reads its config: a repo entry setting them runs what it likes.
    "MCPCTL_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
})
# Variables that only say where modules are looked up: often the repo's own source.
_SEARCH_PATH_KEYS = frozenset({
    "PYTHONPATH", "NODE_PATH", "LD_LIBRARY_PATH", "PERL5LIB", "RUBYLIB", "CLASSPATH",
})

# /Users/NAME, /home/NAME, /root, C:\Users\NAME and WSL's /mnt/c/Users/NAME: one person's
# machine. Not preceded by a word character or a slash, so `https://host/home/x` and
# `/srv/home/x` are not matched. The user's name is group 1 (or "root").
_USER_PATH = re.compile(
    r"(?<![\w./~-])(?:/mnt/[a-z])?/(?:Users|home)/(?!\$\{)([^/\s\"']+)"
    r"|(?<![\w./~-])/root(?=/|$)"
    r"|(?<![\w])[A-Za-z]:[\\/]Users[\\/]([^\\/\s\"']+)",
)
# VS Code's gallery names its servers by registry name (`io.github.owner/server`), Roo's
# marketplace by repository path (`github.com/owner/repo/tree/main/src/x`); both clients
# make tool names from them themselves.
_GALLERY_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}(?:/[A-Za-z0-9_.-]{1,64})*", re.ASCII)
_GALLERY_FORMATS = frozenset({"vscode", "roo"})

_URL_FIELDS = ("url", "serverUrl", "httpUrl")


def server_name_hits(path: JsonPath, name: str, fmt: ConfigFormat) -> Iterator[Hit]:
    if _SERVER_NAME.fullmatch(name) or (fmt.id in _GALLERY_FORMATS
                                         and _GALLERY_NAME.fullmatch(name)):
        return
    why = "is longer than 64 characters" if len(name) > 64 else (
        "is empty" if not name else "has characters outside A-Z a-z 0-9 _ -")
    yield Hit("MCP040", path, f"{where(path)}: server name {shown(name)} {why}")


def entry_hits(
    path: JsonPath, entry: Mapping[str, Any], fmt: ConfigFormat, input_ids: Collection[str],
    users: set[str],
) -> Iterator[Hit]:
    """`users`: the home folders already reported in this file (MCP041 names each once)."""
    yield from _env_key_hits(path, entry.get("env"))
    for field_path, text in _expandable(path, entry):
        yield from _user_path_hits(field_path, text, users)
        yield from _reference_hits(field_path, text, fmt, input_ids)
    for key in ("command", "cwd"):
        yield from _tilde_hits((*path, key), entry.get(key))
    for key in _URL_FIELDS:
        yield from plain_http_hits((*path, key), entry.get(key))
    for index, arg in enumerate(_strings(entry.get("args"))):
        if arg.startswith("http://"):
            yield from plain_http_hits((*path, "args", index), arg)


def _expandable(path: JsonPath, entry: Mapping[str, Any]) -> Iterator[tuple[JsonPath, str]]:
    """The fields where variables are recognised (DESIGN §3), as (path, text)."""
    for key in ("command", "cwd", "envFile", *_URL_FIELDS):
        if isinstance(entry.get(key), str):
            yield (*path, key), entry[key]
    for index, arg in enumerate(_strings(entry.get("args"))):
        yield (*path, "args", index), arg
    for table in ("env", "headers"):
        values = entry.get(table)
        if isinstance(values, dict):
            for key, value in values.items():
                if isinstance(value, str):
                    yield (*path, table, key), value


def _strings(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _env_key_hits(path: JsonPath, env: Any) -> Iterator[Hit]:
    if not isinstance(env, dict):
        return
    for key in env:
        upper = key.upper()  # Windows environment names ignore case
        key_path = (*path, "env", key)
        if upper in _INJECTION_KEYS or upper.startswith("DYLD_"):
            yield Hit("MCP032", key_path,
                      f"{where(key_path)}: {key} makes the runtime load extra code at start")
        elif upper in _SEARCH_PATH_KEYS:
            yield Hit("MCP034", key_path,
                      f"{where(key_path)}: {key} decides which code the server imports")


def _user_path_hits(path: JsonPath, text: str, users: set[str]) -> Iterator[Hit]:
    match = _USER_PATH.search(text)
    if match is None:
        return
    user = match.group(1) or match.group(2) or "root"
    if user in users:
        return
    users.add(user)
    yield Hit("MCP041", path, f"{where(path)}: {shown(match.group(0))} is one user's home "
                              "directory (not reported again in this file)")


def _tilde_hits(path: JsonPath, value: Any) -> Iterator[Hit]:
    if isinstance(value, str) and (value == "~" or value.startswith(("~/", "~\\"))):
        yield Hit("MCP043", path, f"{where(path)}: {shown(value)} starts with '~', which "
                                  "only a shell expands")


def plain_http_hits(path: JsonPath, url: Any) -> Iterator[Hit]:
    if not isinstance(url, str) or not url.lower().startswith("http://"):
        return
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return
    if "${" in url.split("/")[2] or _is_local(host) or _is_private(host):
        return
    yield Hit("MCP042", path, f"{where(path)}: plain http:// to {shown(host)}")


def _is_local(host: str) -> bool:
    # `api.localhost` is loopback only where the resolver says so, and many ask DNS for
    # it: a committed config cannot count on it (issue 23, item 8).
    if host == "localhost":
        return True
    address = _address(host)
    # 0.0.0.0 and :: reach this machine too; nothing leaves it.
    return address is not None and (address.is_loopback or address.is_unspecified)


def _is_private(host: str) -> bool:
    """A host that cannot be on the internet: a private or link-local address (a VM's
    bridge, a home lab), a name with no dot (a compose service, an intranet host, a
    `your-host` placeholder) or a local suffix. Risky perhaps, but deliberate: the
    corpus holds such setups, and none was a mistake."""
    if "." not in host or host.endswith((".local", ".internal", ".lan", ".home.arpa")):
        return True
    address = _address(host)
    return address is not None and (address.is_private or address.is_link_local)


def _address(host: str) -> IPv4Address | IPv6Address | None:
    import ipaddress  # noqa: PLC0415 - only for the rare http:// URL

    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _reference_hits(
    path: JsonPath, text: str, fmt: ConfigFormat, input_ids: Collection[str]
) -> Iterator[Hit]:
    if "${" not in text:
        return
    complete = 0
    for reference in references(text):
        complete += 1
        syntax = _syntax(reference.text, reference.kind)
        if reference.kind is Kind.UNKNOWN:
            yield Hit("MCP051", path,
                      f"{where(path)}: unknown variable {shown(reference.text)}")
        elif reference.kind is Kind.INPUT:
            if reference.name not in input_ids:
                yield Hit("MCP050", path, f"{where(path)}: {shown(reference.text)} has no "
                                          "matching entry in 'inputs'")
        elif fmt.variables is not None and syntax not in fmt.variables:
            yield Hit("MCP052", path, f"{where(path)}: the client that reads this file does "
                                      f"not expand {shown(reference.text)}")
    if text.count("${") > complete:
        yield Hit("MCP051", path, f"{where(path)}: unterminated or nested ${{...}}")


def _syntax(text: str, kind: Kind) -> str:
    match kind:
        case Kind.ENV:
            return "${env:NAME}" if text.startswith("${env:") else "${VAR}"
        case Kind.WORKSPACE_FOLDER | Kind.WORKSPACE_BASENAME | Kind.USER_HOME:
            return "${workspaceFolder}"
        case _:
            return f"${{{kind.value}:NAME}}"
