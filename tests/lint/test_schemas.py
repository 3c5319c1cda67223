"""The schemas in schemas/: valid Draft 2020-12, in step with the format table, and the
fast validity check agrees with jsonschema on them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator  # type: ignore[import-untyped, unused-ignore]

from mcpctl.config.formats import TRANSPORT_ALIASES, WORKSPACE_FORMATS
from mcpctl.lint import SCHEMA_NAMES, load_schema
from mcpctl.lint.schema import quick_valid, schema_problems

FORMAT_SCHEMAS = sorted(set(SCHEMA_NAMES.values()))


@pytest.mark.parametrize("name", [*FORMAT_SCHEMAS, "check-report"])
def test_schema_is_valid_draft_2020_12(name: str) -> None:
    schema = load_schema(name)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def test_every_format_has_a_schema_with_its_top_key() -> None:
    assert {f.id for f in WORKSPACE_FORMATS} == set(SCHEMA_NAMES)
    for fmt in WORKSPACE_FORMATS:
        properties = load_schema(SCHEMA_NAMES[fmt.id])["properties"]
        # A whole settings file (companion_keys None) describes only its servers.
        assert set(properties) == {fmt.top_key, *(fmt.companion_keys or {"$schema"})}, fmt.id


@pytest.mark.parametrize("name", FORMAT_SCHEMAS)
def test_server_fields_follow_the_format_table(name: str) -> None:
    server = load_schema(name)["$defs"]["server"]
    for fmt in WORKSPACE_FORMATS:
        if SCHEMA_NAMES[fmt.id] == name:
            assert set(fmt.aliases) <= set(server["properties"]), "aliases are described"
    if "type" not in server["properties"]:  # Codex has no `type`: command or url says it
        return
    assert server["properties"]["type"]["enum"] == list(TRANSPORT_ALIASES)
    stdio = [k for k, v in TRANSPORT_ALIASES.items() if v == "stdio"]
    stdio_rule = server["allOf"][3]["if"]["properties"]["type"]["enum"]
    assert stdio_rule == stdio


def test_messages_name_the_field_and_never_the_value() -> None:
    schema = load_schema("mcp-json")
    secret = "ghp_0123456789abcdefghijABCDEFGHIJexampl"
    document = {"mcpServers": {"a": {"command": "x", "args": secret, "env": {"K": 1}},
                               "b": {"command": "x", "url": secret}}}
    problems = [(p.path, p.message) for p in schema_problems(document, schema)]
    assert sorted(problems) == [
        (("mcpServers", "a", "args"), "must be an array"),
        (("mcpServers", "a", "env", "K"), "must be a string"),
        (("mcpServers", "b"), "has both 'command' and 'url'; a server has exactly one"),
        (("mcpServers", "b", "url"), "must be an http:// or https:// URL"),
    ]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-2, 2, allow_nan=False)
    | st.sampled_from(["", "x", "stdio", "http", "sse", "https://a.example", "${X}", "ws://a"]),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.sampled_from(["command", "url", "type", "args", "env", "id"]),
                      children, max_size=3),
    max_leaves=8,
)
FIELDS = ["type", "command", "args", "env", "cwd", "envFile", "url", "serverUrl", "httpUrl",
          "headers", "timeout", "disabled"]
entries = st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=5)
inputs = st.lists(st.dictionaries(
    st.sampled_from(["id", "type", "options", "command", "password", "default"]),
    json_values | st.sampled_from(["promptString", "pickString", "command"]), max_size=4),
    max_size=2)


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(FORMAT_SCHEMAS), servers=st.dictionaries(
    st.text(max_size=3), entries, max_size=3), extra=inputs)
def test_fast_check_agrees_with_jsonschema(
    name: str, servers: dict[str, Any], extra: list[Any]
) -> None:
    schema = load_schema(name)
    document = {"servers" if name == "vscode-mcp" else "mcpServers": servers, "inputs": extra}
    verdict = Draft202012Validator(schema).is_valid(document)
    assert quick_valid(document, schema) is verdict, json.dumps(document)
    assert (schema_problems(document, schema) == []) is verdict
