"""Validate a parsed config against its format's JSON Schema (schemas/, Draft 2020-12).

Importing jsonschema costs more than the rest of `mcpctl check` together (measured:
~110 ms against ~10 ms for a bare interpreter), and almost every file a pre-commit hook
sees is valid. So a small interpreter for the keywords our own schemas use answers
"valid?" first; only a file it rejects pays for jsonschema, which then explains every
error with its path. The interpreter refuses any keyword it does not know (and we fall
back to jsonschema), and a property test holds both to the same verdict.
"""

import json
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple

from mcpctl.syntax.jsonc import JsonPath

Schema = Mapping[str, Any] | bool

# Keywords that never affect validity (annotations); `errorMessage` is ours: the message
# shown when the keyword beside it fails, so errors read as sentences about the field.
_ANNOTATIONS = frozenset({
    "$schema", "$id", "$comment", "$defs", "title", "description", "default", "examples",
    "errorMessage", "deprecated", "then", "else",
})


class SchemaProblem(NamedTuple):
    """A schema violation at one JSON path."""

    path: JsonPath
    message: str


class _Unsupported(Exception):
    pass


def schema_problems(instance: Any, schema: Mapping[str, Any]) -> list[SchemaProblem]:
    try:
        if _valid(instance, schema, schema):
            return []
        instance = _failing_part(instance, schema)
    except _Unsupported:
        pass
    return list(_explain(instance, schema))


def _failing_part(instance: Any, schema: Mapping[str, Any]) -> Any:
    """`instance` without the entries of its maps (`mcpServers`) that are valid.

    Such a map's entries are validated one by one and nothing else is said about the
    map, so the valid ones cannot change jsonschema's errors: leaving them out keeps a
    1 MB file with a few bad servers from costing seconds in jsonschema.
    """
    if not isinstance(instance, dict):
        return instance
    reduced = dict(instance)
    for key, sub in schema.get("properties", {}).items():
        value = instance.get(key)
        if isinstance(value, dict) and isinstance(sub, dict) and set(sub) <= _ENTRY_MAP_KEYS:
            entry_schema = sub.get("additionalProperties", True)
            reduced[key] = {name: entry for name, entry in value.items()
                            if not _valid(entry, entry_schema, schema)}
    return reduced


_ENTRY_MAP_KEYS = frozenset({"type", "additionalProperties", "description", "title"})


def quick_valid(instance: Any, schema: Mapping[str, Any]) -> bool | None:
    """The fast verdict, or None when the schema uses a keyword this module lacks."""
    try:
        return _valid(instance, schema, schema)
    except _Unsupported:
        return None


def _valid(instance: Any, schema: Schema, root: Mapping[str, Any]) -> bool:
    if isinstance(schema, bool):
        return schema
    for keyword, value in schema.items():
        if keyword in _ANNOTATIONS:
            continue
        check = _KEYWORDS.get(keyword)
        if check is None:
            raise _Unsupported(keyword)
        if not check(instance, value, schema, root):
            return False
    return True


def _is_type(instance: Any, name: str) -> bool:
    if isinstance(instance, bool):
        return name == "boolean"
    match name:
        case "object":
            return isinstance(instance, dict)
        case "array":
            return isinstance(instance, list)
        case "string":
            return isinstance(instance, str)
        case "number":
            return isinstance(instance, int | float)
        case "integer":
            return isinstance(instance, int) or (
                isinstance(instance, float) and instance.is_integer()
            )
        case "null":
            return instance is None
        case "boolean":
            return False  # a bool was answered above
    raise _Unsupported(f"type {name}")


def _json_equal(left: Any, right: Any) -> bool:
    # JSON Schema tells `true` from `1`; Python's == does not.
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    return bool(left == right)


def _type(instance: Any, value: Any, _s: Any, _r: Any) -> bool:
    names = value if isinstance(value, list) else [value]
    return any(_is_type(instance, name) for name in names)


def _properties(instance: Any, value: Any, _s: Any, root: Any) -> bool:
    if not isinstance(instance, dict):
        return True
    return all(_valid(instance[k], sub, root) for k, sub in value.items() if k in instance)


def _additional(instance: Any, value: Any, schema: Any, root: Any) -> bool:
    if not isinstance(instance, dict):
        return True
    if "patternProperties" in schema:
        raise _Unsupported("patternProperties")
    known = schema.get("properties", {})
    return all(_valid(v, value, root) for k, v in instance.items() if k not in known)


def _required(instance: Any, value: Any, _s: Any, _r: Any) -> bool:
    return not isinstance(instance, dict) or all(key in instance for key in value)


def _items(instance: Any, value: Any, _s: Any, root: Any) -> bool:
    return not isinstance(instance, list) or all(_valid(item, value, root) for item in instance)


def _if(instance: Any, value: Any, schema: Any, root: Any) -> bool:
    branch = schema.get("then" if _valid(instance, value, root) else "else", True)
    return _valid(instance, branch, root)


def _ref(instance: Any, value: Any, _s: Any, root: Any) -> bool:
    if not isinstance(value, str) or not value.startswith("#/$defs/"):
        raise _Unsupported(f"$ref {value}")
    return _valid(instance, root["$defs"][value.removeprefix("#/$defs/")], root)


def _string_check(test: Callable[[str, Any], bool]) -> Callable[..., bool]:
    return lambda instance, value, _s, _r: not isinstance(instance, str) or test(instance, value)


def _number_check(test: Callable[[float, Any], bool]) -> Callable[..., bool]:
    def check(instance: Any, value: Any, _s: Any, _r: Any) -> bool:
        if isinstance(instance, bool) or not isinstance(instance, int | float):
            return True
        return test(instance, value)

    return check


_KEYWORDS: dict[str, Callable[[Any, Any, Any, Any], bool]] = {
    "type": _type,
    "properties": _properties,
    "additionalProperties": _additional,
    "required": _required,
    "items": _items,
    "if": _if,
    "$ref": _ref,
    "enum": lambda instance, value, _s, _r: any(_json_equal(instance, v) for v in value),
    "const": lambda instance, value, _s, _r: _json_equal(instance, value),
    "minLength": _string_check(lambda text, n: len(text) >= n),
    "pattern": _string_check(lambda text, pattern: re.search(pattern, text) is not None),
    "exclusiveMinimum": _number_check(lambda number, bound: number > bound),
    "maximum": _number_check(lambda number, bound: number <= bound),
    "minItems": lambda instance, n, _s, _r: not isinstance(instance, list) or len(instance) >= n,
    "allOf": lambda instance, subs, _s, root: all(_valid(instance, s, root) for s in subs),
    "anyOf": lambda instance, subs, _s, root: any(_valid(instance, s, root) for s in subs),
    "not": lambda instance, sub, _s, root: not _valid(instance, sub, root),
}


def _explain(instance: Any, schema: Mapping[str, Any]) -> Iterator[SchemaProblem]:
    # ~110 ms to import: only for a file the fast check rejected.
    from jsonschema import (  # type: ignore[import-untyped, unused-ignore]  # noqa: PLC0415
        Draft202012Validator,
    )

    for error in Draft202012Validator(schema).iter_errors(instance):
        yield SchemaProblem(tuple(error.absolute_path), _describe(error))


def _describe(error: Any) -> str:
    """A sentence about the field; never the offending value, which may be a secret."""
    schema, keyword, expected = error.schema, error.validator, error.validator_value
    if isinstance(schema, dict) and isinstance(schema.get("errorMessage"), str):
        return str(schema["errorMessage"])
    match keyword:
        case "type":
            kinds = expected if isinstance(expected, list) else [expected]
            return "must be " + " or ".join(_ARTICLE.get(str(k), str(k)) for k in kinds)
        case "required":
            have = error.instance if isinstance(error.instance, dict) else {}
            missing = [key for key in expected if key not in have]
            return "missing " + ", ".join(json.dumps(key) for key in missing)
        case "enum":
            return "must be one of " + ", ".join(json.dumps(v) for v in expected)
        case "const":
            return f"must be {json.dumps(expected)}"
        case "minLength":
            return "must not be empty" if expected == 1 else f"needs {expected}+ characters"
        case "pattern":
            return f"must match the pattern {expected}"
        case "exclusiveMinimum":
            return f"must be greater than {expected}"
        case "maximum":
            return f"must be at most {expected}"
        case "minItems":
            return f"needs at least {expected} item(s)"
    return f"fails the schema's {json.dumps(keyword)} rule"


_ARTICLE = {
    "object": "an object", "array": "an array", "string": "a string", "number": "a number",
    "integer": "an integer", "boolean": "true or false", "null": "null",
}
