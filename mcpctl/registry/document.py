"""A `server.json` document, checked and typed (pure).

The fields are those of the registry's server.json schema (2025-09-29 to 2025-12-11):
`name`, `version`, `description`, `packages` (`registryType`, `identifier`,
`version`, `runtimeHint`, `transport`, `runtimeArguments`, `packageArguments`,
`environmentVariables`) and `remotes` (`type`, `url`, `headers`, `variables`). Only
what mcpctl uses is checked strictly; members it does not read (icons, `_meta`,
`repository`) are ignored, whatever their shape. Everything a registry says is data:
nothing in it is evaluated, and every list and string is bounded, so a hostile
registry costs at most a refused document.

A `DocumentError` (a ValueError) names the member at fault as a JSON path
(`packages[1].version`).
"""

import re
from collections.abc import Mapping
from typing import Any, NamedTuple

# The registry's own name rule: a reverse-DNS namespace, one '/', a server name.
NAME = re.compile(r"^[A-Za-z0-9.-]+/[A-Za-z0-9._-]+$")
MAX_NAME = 200
MAX_TEXT = 4096  # descriptions, values, URLs: far above what the schema allows
MAX_ITEMS = 256  # packages, remotes, arguments, variables of one document
FORMATS = ("string", "number", "boolean", "filepath")
REMOTE_TYPES = ("streamable-http", "sse")


class DocumentError(ValueError):
    """A server.json mcpctl refuses; the message starts with the member's JSON path."""


class Input(NamedTuple):
    """One value the document asks for (an env var, a header, an argument, a variable)."""

    description: str = ""
    is_required: bool = False
    is_secret: bool = False
    format: str = "string"
    default: str | None = None
    value: str | None = None  # fixed by the publisher; `{name}` parts come from variables
    choices: tuple[str, ...] = ()
    placeholder: str | None = None
    variables: tuple[tuple[str, "Input"], ...] = ()


class KeyValue(NamedTuple):
    """An environment variable or a header: its name and what it asks for."""

    name: str
    input: Input


class Argument(NamedTuple):
    kind: str  # positional | named
    name: str | None  # the flag of a named argument, with its dashes
    value_hint: str | None
    input: Input
    is_repeated: bool = False


class Package(NamedTuple):
    registry_type: str
    identifier: str
    version: str | None
    runtime_hint: str | None
    transport: str
    transport_url: str | None
    runtime_arguments: tuple[Argument, ...]
    package_arguments: tuple[Argument, ...]
    environment: tuple[KeyValue, ...]
    registry_base_url: str | None = None


class Remote(NamedTuple):
    transport: str  # streamable-http | sse
    url: str
    headers: tuple[KeyValue, ...]
    variables: tuple[tuple[str, Input], ...]


class ServerDocument(NamedTuple):
    name: str
    version: str
    description: str
    title: str | None
    packages: tuple[Package, ...]
    remotes: tuple[Remote, ...]


def parse_server(value: Any, where: str = "") -> ServerDocument:
    """The document `value` (a parsed JSON object) as a ServerDocument."""
    document = _object(value, where or "server.json")
    name = _text(document, "name", where, required=True)
    if len(name) > MAX_NAME or not NAME.match(name):
        raise DocumentError(f"{_at(where, 'name')}: {name[:80]!r} is not a registry name "
                         "(namespace/server, e.g. io.github.owner/server)")
    version = _text(document, "version", where, required=True)
    return ServerDocument(
        name=name, version=version,
        description=_text(document, "description", where) or "",
        title=_text(document, "title", where),
        packages=tuple(_package(item, _at(where, f"packages[{i}]"))
                       for i, item in enumerate(_list(document, "packages", where))),
        remotes=tuple(_remote(item, _at(where, f"remotes[{i}]"))
                      for i, item in enumerate(_list(document, "remotes", where))),
    )


def _package(value: Any, where: str) -> Package:
    item = _object(value, where)
    transport = item.get("transport")
    # The 2025-07-09 schema had no `transport`; its packages were all stdio.
    kind, url = ("stdio", None) if transport is None else _transport(transport, where)
    return Package(
        registry_type=_text(item, "registryType", where, required=True),
        identifier=_text(item, "identifier", where, required=True),
        version=_text(item, "version", where),
        runtime_hint=_text(item, "runtimeHint", where),
        transport=kind, transport_url=url,
        runtime_arguments=_arguments(item, "runtimeArguments", where),
        package_arguments=_arguments(item, "packageArguments", where),
        environment=_key_values(item, "environmentVariables", where),
        registry_base_url=_text(item, "registryBaseUrl", where),
    )


def _transport(value: Any, where: str) -> tuple[str, str | None]:
    where = _at(where, "transport")
    item = _object(value, where)
    kind = _text(item, "type", where, required=True)
    if kind not in ("stdio", *REMOTE_TYPES):
        raise DocumentError(f"{_at(where, 'type')}: unknown transport {kind[:40]!r}")
    return kind, _text(item, "url", where, required=kind != "stdio")


def _remote(value: Any, where: str) -> Remote:
    item = _object(value, where)
    kind = _text(item, "type", where, required=True)
    if kind not in REMOTE_TYPES:
        raise DocumentError(f"{_at(where, 'type')}: a remote is streamable-http or sse, "
                         f"not {kind[:40]!r}")
    return Remote(kind, _text(item, "url", where, required=True),
                  _key_values(item, "headers", where), _variables(item, where))


def _arguments(item: Mapping[str, Any], key: str, where: str) -> tuple[Argument, ...]:
    found = []
    for index, value in enumerate(_list(item, key, where)):
        at = _at(where, f"{key}[{index}]")
        argument = _object(value, at)
        kind = _text(argument, "type", at, required=True)
        if kind not in ("positional", "named"):
            raise DocumentError(f"{_at(at, 'type')}: an argument is positional or named, "
                             f"not {kind[:40]!r}")
        name = _text(argument, "name", at, required=kind == "named")
        hint = _text(argument, "valueHint", at)
        if kind == "positional" and hint is None and argument.get("value") is None:
            raise DocumentError(f"{at}: a positional argument needs a value or a valueHint")
        found.append(Argument(kind, name, hint, _input(argument, at),
                              _flag(argument, "isRepeated", at)))
    return tuple(found)


def _key_values(item: Mapping[str, Any], key: str, where: str) -> tuple[KeyValue, ...]:
    found = []
    for index, value in enumerate(_list(item, key, where)):
        at = _at(where, f"{key}[{index}]")
        entry = _object(value, at)
        found.append(KeyValue(_text(entry, "name", at, required=True), _input(entry, at)))
    return tuple(found)


def _variables(item: Mapping[str, Any], where: str) -> tuple[tuple[str, Input], ...]:
    value = item.get("variables")
    if value is None:
        return ()
    at = _at(where, "variables")
    table = _object(value, at)
    if len(table) > MAX_ITEMS:
        raise DocumentError(f"{at}: more than {MAX_ITEMS} variables")
    return tuple((str(name)[:MAX_TEXT], _input(_object(v, f"{at}.{name}"), f"{at}.{name}",
                                               nested=True))
                 for name, v in table.items())


def _input(item: Mapping[str, Any], where: str, *, nested: bool = False) -> Input:
    fmt = _text(item, "format", where) or "string"
    if fmt not in FORMATS:
        raise DocumentError(f"{_at(where, 'format')}: unknown format {fmt[:40]!r} "
                         f"(known: {', '.join(FORMATS)})")
    choices = tuple(_string(c, _at(where, f"choices[{i}]"))
                    for i, c in enumerate(_list(item, "choices", where)))
    return Input(
        description=_text(item, "description", where) or "",
        is_required=_flag(item, "isRequired", where),
        is_secret=_flag(item, "isSecret", where),
        format=fmt, default=_text(item, "default", where), value=_text(item, "value", where),
        choices=choices, placeholder=_text(item, "placeholder", where),
        # A variable's own variables are not part of the schema: never followed.
        variables=() if nested else _variables(item, where),
    )


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise DocumentError(f"{where}: expected an object, not {_kind(value)}")
    return value


def _list(item: Mapping[str, Any], key: str, where: str) -> list[Any]:
    value = item.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise DocumentError(f"{_at(where, key)}: expected a list, not {_kind(value)}")
    if len(value) > MAX_ITEMS:
        raise DocumentError(f"{_at(where, key)}: more than {MAX_ITEMS} items")
    return value


def _text(item: Mapping[str, Any], key: str, where: str, *, required: bool = False) -> Any:
    value = item.get(key)
    if value is None:
        if required:
            raise DocumentError(f"{_at(where, key)}: missing")
        return None
    text = _string(value, _at(where, key))
    if required and not text.strip():
        raise DocumentError(f"{_at(where, key)}: empty")
    return text


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise DocumentError(f"{where}: expected a string, not {_kind(value)}")
    if len(value) > MAX_TEXT:
        raise DocumentError(f"{where}: longer than {MAX_TEXT} characters")
    if "\x00" in value:
        raise DocumentError(f"{where}: holds a NUL character")
    return value


def _flag(item: Mapping[str, Any], key: str, where: str) -> bool:
    value = item.get(key, False)
    if not isinstance(value, bool):
        raise DocumentError(f"{_at(where, key)}: expected true or false, not {_kind(value)}")
    return value


def _at(where: str, key: str) -> str:
    if not where:
        return key
    return f"{where}{key}" if key.startswith("[") else f"{where}.{key}"


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(value), "a number"
                                    if isinstance(value, int | float) else "a value")
