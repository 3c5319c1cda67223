"""A registry server and the user's answers → one user-tier entry (pure).

Secret answers never enter the entry: each becomes `${secret:<server>-<key>}` and its
value is handed back to be stored in the keyring first. Text that came from the
registry may not hold `${…}`: mcpctl expands such references at launch, so a
published `"value": "${secret:github-pat}"` would hand another server's keyring
secret to this one. An optional value nobody gave is left out whole (its flag too).
"""

import re
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from mcpctl.config.origin import ORIGIN_KEY
from mcpctl.credentials.extraction import reference, secret_name_for
from mcpctl.errors import UsageError
from mcpctl.registry.document import Argument, Input, KeyValue, Package, Remote
from mcpctl.registry.inputs import argument_key, fill, questions, template_names
from mcpctl.registry.pins import Pin, pin_of

_DOCKER_OWN = ("run", "-i", "--rm", "--interactive")


class Built(NamedTuple):
    entry: dict[str, Any]
    secrets: dict[str, str]  # keyring name → value
    warnings: list[str]
    pin: Pin | None


def build(server: str, choice: Package | Remote, answers: dict[str, str],
          origin: dict[str, str]) -> Built:
    """The entry for `choice` with `answers` (key → checked value, given or defaulted)."""
    refuse_references(choice)
    secret_keys = {q.key for q in questions(choice) if q.input.is_secret}
    secrets: dict[str, str] = {}
    values: dict[str, str] = {}
    for key, value in answers.items():
        if key in secret_keys:
            name = secret_name_for(server, key)
            secrets[name] = value
            values[key] = reference(name)
        else:
            values[key] = value
    if isinstance(choice, Remote):
        entry = _remote_entry(choice, values)
        pin, warnings = None, []
    else:
        pin = pin_of(choice)
        entry = _package_entry(choice, pin, values)
        warnings = [f"warning: the image is pinned by its tag only ({pin.word}); a tag can "
                    "be moved to other contents: a digest (@sha256:…) pins it for good"] \
            if pin.only_tag else []
        origin = {**origin, "package": pin.package, "pinned": pin.word}
    entry[ORIGIN_KEY] = origin
    return Built(entry, secrets, warnings, pin)


def _remote_entry(remote: Remote, values: dict[str, str]) -> dict[str, Any]:
    missing = [name for name in template_names(remote.url) if name not in values]
    if missing:
        raise UsageError(f"the URL {remote.url} needs {', '.join(missing)}: give "
                         + " ".join(f"--env {name}=VALUE" for name in missing))
    entry: dict[str, Any] = {"type": "sse" if remote.transport == "sse" else "http",
                             "url": fill(remote.url, values)}
    headers = dict(_pairs(remote.headers, values))
    if headers:
        entry["headers"] = headers
    return entry


def _package_entry(package: Package, pin: Pin, values: dict[str, str]) -> dict[str, Any]:
    env = dict(_pairs(package.environment, values))
    runtime = list(_rendered(package.runtime_arguments, values))
    arguments = list(_rendered(package.package_arguments, values))
    index = _index_words(package)
    if package.registry_type == "npm":
        entry: dict[str, Any] = {"command": "npx", "args": [*index, "-y", *runtime, pin.word,
                                                            *arguments]}
    elif package.registry_type == "pypi":
        entry = {"command": "uvx", "args": [*index, *runtime, pin.word, *arguments]}
    else:
        entry = {"command": "docker", "args": [*_docker_prefix(package, values, env),
                                               pin.word, *arguments]}
    if env:
        entry["env"] = env
    return entry


def _index_words(package: Package) -> list[str]:
    """The package registry the document names, as the runner's own option: the package
    is then fetched from there and nowhere else. Left out, npx and uvx would look the
    name up in their default registry, where anyone may have published a package of the
    same name (a private registry's `internal-tool`). Given, it replaces the default, so
    a wrong one fails the launch instead of falling back."""
    base = package.registry_base_url
    if base is None or package.registry_type not in ("npm", "pypi"):
        return []
    if not re.fullmatch(r"https://[A-Za-z0-9.-]+(?::[0-9]+)?(?:/[A-Za-z0-9._~%/+-]*)?", base):
        raise UsageError(f"the {package.registry_type} package's registryBaseUrl "
                         f"{base[:80]!r} is not an https URL mcpctl can pass on")
    if package.registry_type == "npm":
        return [f"--registry={base}"]
    return ["--default-index", base.rstrip("/") + "/simple"]


def _docker_prefix(package: Package, values: dict[str, str], env: dict[str, str]) -> list[str]:
    """`run -i --rm`, `-e KEY` for each env var (docker copies its value from its own
    environment, so no value is on the command line), then the runtime's named
    arguments. Positional runtime arguments are left out: for docker they are `run`
    and the image, which mcpctl writes itself, pinned."""
    words = ["run", "-i", "--rm"]
    for key in env:
        words += ["-e", key]
    named = [a for a in package.runtime_arguments if a.kind == "named"]
    for word in _rendered(named, values):
        if word in _DOCKER_OWN and words.count(word):
            continue
        words.append(word)
    # `-e` with no value (a publisher listing docker's own flags) names the next word.
    while words and words[-1] == "-e":
        words.pop()
    return words


def _pairs(items: Iterable[KeyValue], values: dict[str, str]) -> Iterator[tuple[str, str]]:
    for item in items:
        text = _value(item.input, item.name, values)
        if text is not None:
            yield item.name, text


def _value(declared: Input, key: str, values: dict[str, str]) -> str | None:
    """The text for one input, or None when an optional part has no value."""
    if declared.value is None:
        return values.get(key)
    names = [n for n, _ in declared.variables]
    if any(n not in values for n in names if n in template_names(declared.value)):
        return None
    return fill(declared.value, values)


def _rendered(arguments: Iterable[Argument], values: dict[str, str]) -> Iterator[str]:
    for argument in arguments:
        text = _value(argument.input, argument_key(argument), values)
        if text is None:
            continue
        if argument.kind == "positional":
            yield text
        elif argument.input.format == "boolean" and text in ("true", "false"):
            if text == "true":
                yield argument.name or ""
        else:
            yield from (argument.name or "", text)


def refuse_references(choice: Package | Remote) -> None:
    """UsageError when registry text that could reach the entry holds `${`."""
    for where, text in _texts(choice):
        if "${" in text:
            raise UsageError(f"the server's {where} holds {text[:60]!r}: a ${{…}} reference "
                             "that mcpctl would expand at launch (another server's secret, "
                             "an env var); refused")


def _texts(choice: Package | Remote) -> Iterator[tuple[str, str]]:
    if isinstance(choice, Remote):
        yield "url", choice.url
        items: tuple[KeyValue, ...] = choice.headers
        inputs = [(f"variable {n}", i) for n, i in choice.variables]
    else:
        yield "identifier", choice.identifier
        yield "version", choice.version or ""
        items = choice.environment
        inputs = [(f"argument {argument_key(a) or a.name}", a.input)
                  for a in (*choice.runtime_arguments, *choice.package_arguments)]
        yield from ((f"argument {a.name}", a.name) for a in
                    (*choice.runtime_arguments, *choice.package_arguments) if a.name)
    inputs += [(item.name, item.input) for item in items]
    yield from ((f"name {item.name}", item.name) for item in items)
    for where, declared in inputs:
        yield from _input_texts(where, declared)


def _input_texts(where: str, declared: Input) -> Iterator[tuple[str, str]]:
    for text in (declared.value, declared.default, *declared.choices):
        if text is not None:
            yield where, text
    for name, variable in declared.variables:
        yield from _input_texts(f"{where} variable {name}", variable)
