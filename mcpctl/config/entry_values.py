"""Values `add` refuses before writing anything: what a script's unset variable or a
missing scheme leaves behind (issue 26, pure).

`-H "Authorization: Bearer $TOKEN"` with TOKEN unset reads `Authorization: Bearer`;
`-e API_KEY=$KEY` reads `API_KEY=`; `add docs docs.example.com/mcp` names a program
that does not exist. Each would be written, synced, and fail later far from its cause.
An empty value under an ordinary name (`DEBUG=`) is a legitimate setting and is kept.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping

from mcpctl.credentials.names import is_secret_name
from mcpctl.errors import UsageError

_BARE_SCHEME = re.compile(r"(?i)(bearer|basic|token|bot|digest)")
# `host.tld[:port][/path]` or `localhost:port[/path]`: a URL with its scheme left out.
_SCHEMELESS_URL = re.compile(
    r"(?i)(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,})"
    r"(?::\d{1,5})?(?:/\S*)?")
_UNSET = "a variable that is unset or empty in the script?"


def check_headers(headers: Mapping[str, str]) -> None:
    for name, value in headers.items():
        stripped = value.strip()
        if not stripped:
            raise UsageError(f"--header {name}: the value is empty ({_UNSET}); give the value, "
                             f"e.g. -H \"{name}: $VALUE\" with VALUE set")
        if _BARE_SCHEME.fullmatch(stripped):
            raise UsageError(f"--header {name}: {stripped!r} has no credential after the "
                             f"scheme ({_UNSET}); e.g. -H \"{name}: {stripped} $TOKEN\" "
                             "with TOKEN set")


def check_env(env: Mapping[str, str]) -> None:
    for key, value in env.items():
        if not value.strip() and is_secret_name(key):
            raise UsageError(f"--env {key}: the value is empty ({_UNSET}); set it, or "
                             f"store it with --secret-env {key}")


def check_url(url: str, flag: str) -> None:
    """A URL needs its scheme: `docs.example.com/mcp` is refused with the https:// form."""
    if "://" in url:
        scheme = url.split("://", 1)[0].lower()
        if scheme not in ("http", "https"):
            raise UsageError(f"{flag} {url!r}: the scheme must be http or https")
        return
    raise UsageError(f"{flag} {url!r} has no scheme; did you mean https://{url} "
                     f"(or http://{url} for a local server)?")


def check_command(program: str) -> None:
    """A command that reads as a URL without its scheme, and is no program here, is
    refused with the URL form (`claude mcp add` only warns; a script would not see it)."""
    if "/" not in program and ":" not in program:
        return  # `docs.example.com` alone may be a program's name
    if program.startswith(("/", ".", "~")) or not _SCHEMELESS_URL.fullmatch(program):
        return
    if os.path.lexists(program) or shutil.which(program) is not None:
        return
    scheme = "http" if re.match(r"(?i)localhost|\d", program) else "https"
    raise UsageError(f"the command {program!r} looks like a URL without its scheme; for a "
                     f"remote server: mcpctl add NAME {scheme}://{program} (a program in the "
                     f"current folder: ./{program})")
