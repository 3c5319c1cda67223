"""What a registry server asks of the user, and whether an answer fits (pure).

Every value a package or remote declares is one `Question`, keyed by the name the
user gives it with: an environment variable's name, a header's name, a template
variable's name (`{token}` in `-e TOKEN={token}` or in a URL), or an argument's
`valueHint` (else its flag without dashes). A fixed `value` is not asked; the
variables inside it are. Answers are checked against the declared `choices` and
`format` (a number is a decimal number, a boolean `true` or `false`).
"""

import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from mcpctl.errors import UsageError
from mcpctl.registry.document import Argument, Input, KeyValue, Package, Remote

_TEMPLATE = re.compile(r"\{([A-Za-z0-9_.-]{1,128})\}")
_NUMBER = re.compile(r"^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$")


class Question(NamedTuple):
    key: str
    where: str  # env | header | variable | argument
    input: Input

    @property
    def label(self) -> str:
        return {"env": "env", "header": "header", "variable": "variable",
                "argument": "argument"}[self.where] + f" {self.key}"


def questions(choice: Package | Remote) -> list[Question]:
    """Every question of the choice, once per key, in the document's order."""
    found: dict[str, Question] = {}
    for question in _all(choice):
        held = found.get(question.key)
        if held is None:
            found[question.key] = question
        elif held.input.is_secret != question.input.is_secret:
            raise UsageError(f"the server declares {question.key!r} twice, once secret and "
                             "once not; mcpctl cannot tell which is meant")
    return list(found.values())


def _all(choice: Package | Remote) -> Iterator[Question]:
    if isinstance(choice, Remote):
        yield from (Question(n, "variable", i) for n, i in choice.variables)
        yield from _key_values(choice.headers, "header")
        return
    for argument in (*choice.runtime_arguments, *choice.package_arguments):
        yield from _argument(argument)
    yield from _key_values(choice.environment, "env")


def _key_values(items: Iterable[KeyValue], where: str) -> Iterator[Question]:
    for item in items:
        if item.input.value is not None:
            yield from (Question(n, "variable", i) for n, i in item.input.variables)
        else:
            yield Question(item.name, where, item.input)


def _argument(argument: Argument) -> Iterator[Question]:
    if argument.input.value is not None:
        yield from (Question(n, "variable", i) for n, i in argument.input.variables)
        return
    key = argument_key(argument)
    if key:
        yield Question(key, "argument", argument.input)


def argument_key(argument: Argument) -> str:
    return argument.value_hint or (argument.name or "").lstrip("-")


def check_answer(question: Question, value: str) -> str:
    """`value` as it will be written; UsageError naming the fix when it does not fit."""
    declared = question.input
    if declared.choices and value not in declared.choices:
        raise UsageError(f"{question.label} must be one of {', '.join(declared.choices)}, "
                         f"not {_shown(question, value)}")
    if declared.format == "boolean":
        if value.lower() not in ("true", "false"):
            raise UsageError(f"{question.label} is true or false, not {_shown(question, value)}")
        return value.lower()
    if declared.format == "number" and not _NUMBER.match(value.strip()):
        raise UsageError(f"{question.label} is a number, not {_shown(question, value)}")
    if "\x00" in value or (not declared.is_secret and "\n" in value):
        raise UsageError(f"{question.label} cannot hold a NUL or newline character")
    return value.strip() if declared.format == "number" else value


def _shown(question: Question, value: str) -> str:
    return "the value given" if question.input.is_secret else repr(value[:80])


def fill(template: str, values: dict[str, str]) -> str:
    """`{name}` parts replaced by their values; an unknown name stays as written (the
    schema says so)."""
    return _TEMPLATE.sub(lambda m: values.get(m[1], m[0]), template)


def template_names(template: str) -> list[str]:
    return _TEMPLATE.findall(template)
