"""server.json documents, checked: every captured one reads, malformed ones are refused
with the member at fault."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcpctl.registry.document import DocumentError, parse_server
from tests.registry.registry_server import FIXTURES, all_fixtures, fixture


def test_there_are_at_least_fifteen_captured_documents_each_with_its_source() -> None:
    files = sorted(p.name for p in FIXTURES.glob("*.json"))
    sources = (FIXTURES / "SOURCES.md").read_text(encoding="utf-8")
    captured = [f for f in files if not f.startswith("docs-")]
    assert len(captured) >= 15
    for name in files:
        assert f"`{name}`" in sources, name
    kinds = {p["registryType"] for d in all_fixtures() for p in d.get("packages", [])}
    assert {"npm", "pypi", "oci"} <= kinds


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.json")), ids=lambda p: p.stem)
def test_every_captured_document_reads(path: Any) -> None:
    raw = json.loads(path.read_text(encoding="utf-8"))
    document = parse_server(raw)
    assert (document.name, document.version) == (raw["name"], raw["version"])
    assert len(document.packages) == len(raw.get("packages", []))
    assert len(document.remotes) == len(raw.get("remotes", []))


def test_the_parts_mcpctl_reads_are_typed() -> None:
    clickhouse = parse_server(fixture("clickhouse"))
    pypi = clickhouse.packages[0]
    assert (pypi.registry_type, pypi.identifier, pypi.version, pypi.runtime_hint,
            pypi.transport) == ("pypi", "mcp-clickhouse", "0.4.0", "uvx", "stdio")
    secure = next(kv for kv in pypi.environment if kv.name == "CLICKHOUSE_SECURE")
    assert (secure.input.format, secure.input.default, secure.input.is_required) == (
        "boolean", "true", False)
    password = next(kv for kv in pypi.environment if kv.name == "CLICKHOUSE_PASSWORD")
    assert (password.input.is_secret, password.input.is_required) == (True, True)
    region = parse_server(fixture("docs-multi-region")).remotes[0]
    assert region.url == "https://api.example.com/{region}/mcp"
    assert region.variables[0][0] == "region"
    assert region.variables[0][1].choices == ("us-east-1", "eu-west-1", "ap-southeast-1")
    terraform = parse_server(fixture("terraform")).packages[0]
    token = terraform.runtime_arguments[1]
    assert (token.kind, token.name, token.input.value) == ("named", "-e", "TFE_TOKEN={token}")
    assert token.input.variables[0][1].is_secret is True


def test_a_package_without_transport_is_stdio_as_in_the_first_schema() -> None:
    assert parse_server(fixture("exa")).packages[0].transport == "stdio"


def _with(change: dict[str, Any]) -> dict[str, Any]:
    document = fixture("brave-search")
    document.update(change)
    return document


@pytest.mark.parametrize(("document", "message"), [
    ([], "server.json: expected an object, not a list"),
    ({"version": "1"}, "name: missing"),
    (_with({"name": "no-slash"}), "name: 'no-slash' is not a registry name"),
    (_with({"name": "a/b/c"}), "name: 'a/b/c' is not a registry name"),
    (_with({"version": 3}), "version: expected a string, not a number"),
    (_with({"packages": {"a": 1}}), "packages: expected a list, not an object"),
    (_with({"packages": [{"registryType": "npm"}]}), "packages[0].identifier: missing"),
    (_with({"packages": [{"registryType": "npm", "identifier": "x",
                          "transport": {"type": "websocket"}}]}),
     "packages[0].transport.type: unknown transport 'websocket'"),
    (_with({"remotes": [{"type": "streamable-http"}]}), "remotes[0].url: missing"),
    (_with({"remotes": [{"type": "stdio", "url": "x"}]}),
     "remotes[0].type: a remote is streamable-http or sse, not 'stdio'"),
    (_with({"remotes": [{"type": "sse", "url": "https://x", "headers": [
        {"name": "A", "isSecret": "yes"}]}]}),
     "remotes[0].headers[0].isSecret: expected true or false, not a string"),
    (_with({"packages": [{"registryType": "npm", "identifier": "x", "transport": {
        "type": "stdio"}, "packageArguments": [{"type": "positional"}]}]}),
     "packages[0].packageArguments[0]: a positional argument needs a value or a valueHint"),
    (_with({"packages": [{"registryType": "npm", "identifier": "x", "transport": {
        "type": "stdio"}, "environmentVariables": [{"name": "A", "format": "date"}]}]}),
     "packages[0].environmentVariables[0].format: unknown format 'date'"),
    (_with({"description": "x" * 5000}), "description: longer than 4096 characters"),
    (_with({"packages": [{}] * 300}), "packages: more than 256 items"),
])
def test_malformed_documents_are_refused_at_the_member(document: Any, message: str) -> None:
    with pytest.raises(DocumentError) as caught:
        parse_server(document)
    assert str(caught.value).startswith(message)
