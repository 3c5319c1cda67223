"""`${...}` references in server definitions: find them and expand them (DESIGN §3).

Pure: the caller passes the workspace folder, home, environment and a secret lookup.
Expansion happens only when a server is launched or probed; listing shows text as
written. An unknown or unset variable is reported, never guessed.
"""

import re
from collections.abc import Callable, Iterator, Mapping
from enum import StrEnum
from pathlib import PurePath
from typing import NamedTuple

from mcpctl.errors import ConfigError
from mcpctl.model import ServerSpec

_REFERENCE = re.compile(r"\$\{([^{}]*)\}")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
SECRET_NAME = r"^[A-Za-z0-9_.-]{1,128}$"  # compiled on first use


class Kind(StrEnum):
    WORKSPACE_FOLDER = "workspaceFolder"
    WORKSPACE_BASENAME = "workspaceFolderBasename"
    USER_HOME = "userHome"
    ENV = "env"
    SECRET = "secret"
    INPUT = "input"
    UNKNOWN = "unknown"


_PLAIN_KINDS = {
    "workspaceFolder": Kind.WORKSPACE_FOLDER,
    "workspaceFolderBasename": Kind.WORKSPACE_BASENAME,
    "userHome": Kind.USER_HOME,
}


class Reference(NamedTuple):
    """One `${...}` reference: its kind, name, text and default."""

    kind: Kind
    name: str
    text: str  # as written, `${...}` included
    default: str | None = None


def parse_reference(body: str) -> Reference:
    text = "${" + body + "}"
    if body in _PLAIN_KINDS:
        return Reference(_PLAIN_KINDS[body], body, text)
    prefix, colon, rest = body.partition(":")
    if colon and prefix == "env" and _ENV_NAME.match(rest):
        return Reference(Kind.ENV, rest, text)
    if colon and prefix == "secret" and re.match(SECRET_NAME, rest):
        return Reference(Kind.SECRET, rest, text)
    if colon and prefix == "input" and rest:
        return Reference(Kind.INPUT, rest, text)
    name, dash, default = body.partition(":-")
    if _ENV_NAME.match(name) and (dash or not colon):
        return Reference(Kind.ENV, name, text, default if dash else None)
    return Reference(Kind.UNKNOWN, body, text)


def references(text: str) -> Iterator[Reference]:
    for match in _REFERENCE.finditer(text):
        yield parse_reference(match[1])


def expandable_fields(spec: ServerSpec) -> Iterator[tuple[str, str]]:
    """(field label, text) for every field where variables are recognised."""
    if spec.command is not None:
        yield "command", spec.command
    for index, arg in enumerate(spec.args):
        yield f"args[{index}]", arg
    for key, value in spec.env.items():
        yield f"env {key}", value
    if spec.cwd is not None:
        yield "cwd", spec.cwd
    if spec.env_file is not None:
        yield "envFile", spec.env_file
    if spec.url is not None:
        yield "url", spec.url
    for key, value in spec.headers.items():
        yield f"header {key}", value


def references_in(spec: ServerSpec) -> list[Reference]:
    """Each distinct reference of a spec, in order of first use."""
    seen: dict[str, Reference] = {}
    for _, text in expandable_fields(spec):
        for reference in references(text):
            seen.setdefault(reference.text, reference)
    return list(seen.values())


class UnresolvedVariable(ConfigError):
    """A reference that has no value here (unset env var, missing secret, input...)."""


class Context(NamedTuple):
    """What references expand against: the workspace, home, environment and secrets."""

    workspace: PurePath
    home: PurePath
    environ: Mapping[str, str]
    secret: Callable[[str], str | None]


def resolve(reference: Reference, context: Context) -> str | None:
    match reference.kind:
        case Kind.WORKSPACE_FOLDER:
            return str(context.workspace)
        case Kind.WORKSPACE_BASENAME:
            return context.workspace.name
        case Kind.USER_HOME:
            return str(context.home)
        case Kind.ENV:
            value = context.environ.get(reference.name)
            if value is None or (value == "" and reference.default is not None):
                return reference.default
            return value
        case Kind.SECRET:
            return context.secret(reference.name)
        case _:
            return None


def expand(text: str, context: Context, *, server: str, field: str) -> str:
    """Replace every reference in `text`; raise UnresolvedVariable naming the first gap."""

    def replace(match: re.Match[str]) -> str:
        reference = parse_reference(match[1])
        value = resolve(reference, context)
        if value is None:
            raise UnresolvedVariable(_unresolved_message(reference, server, field))
        return value

    return _REFERENCE.sub(replace, text)


def _unresolved_message(reference: Reference, server: str, field: str) -> str:
    where = f"server {server!r} {field}"
    match reference.kind:
        case Kind.SECRET:
            return (f"{where}: secret {reference.name!r} is not in the keyring "
                    f"(set it with: mcpctl secret set {reference.name})")
        case Kind.ENV:
            return f"{where}: environment variable {reference.name!r} is not set"
        case Kind.INPUT:
            return (f"{where}: {reference.text} is a VS Code input that only VS Code can "
                    "prompt for; mcpctl does not guess it")
        case _:
            return f"{where}: unknown variable {reference.text}"
