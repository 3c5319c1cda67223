"""A registry server and its answers → the exact user-tier entry (pure), for the captured
documents: npm, pypi, oci and remotes, with secrets, defaults, choices and URL variables."""

from __future__ import annotations

from typing import Any

import pytest

from mcpctl.errors import UsageError
from mcpctl.registry.document import Package, parse_server
from mcpctl.registry.inputs import check_answer, questions
from mcpctl.registry.launch_entry import Built, build
from mcpctl.registry.pins import choose
from tests.registry.registry_server import fixture

ORIGIN = {"registry": "https://registry.example", "name": "n", "version": "v"}


def built(name: str, answers: dict[str, str], use: str | None = None,
          document: dict[str, Any] | None = None) -> Built:
    server = parse_server(document or fixture(name))
    return build("srv", choose(server, use), answers, ORIGIN)


def test_npm_is_an_exact_npx_launch_with_its_package_arguments() -> None:
    result = built("everything", {})
    assert result.entry == {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-everything@2.0.0", "stdio"],
        "origin": {**ORIGIN, "package": "npm:@modelcontextprotocol/server-everything",
                   "pinned": "@modelcontextprotocol/server-everything@2.0.0"}}
    assert (result.secrets, result.warnings) == ({}, [])


def test_a_declared_secret_becomes_a_reference_and_its_value_is_handed_back() -> None:
    result = built("brave-search", {"BRAVE_API_KEY": "BSA-real-value"})
    assert result.entry["env"] == {"BRAVE_API_KEY": "${secret:srv-BRAVE_API_KEY}"}
    assert result.secrets == {"srv-BRAVE_API_KEY": "BSA-real-value"}
    assert "BSA-real-value" not in repr(result.entry)


def test_pypi_is_an_exact_uvx_launch_with_its_env() -> None:
    answers = {"CLICKHOUSE_HOST": "ch.internal", "CLICKHOUSE_USER": "me",
               "CLICKHOUSE_PASSWORD": "pw", "CLICKHOUSE_SECURE": "true"}
    result = built("clickhouse", answers)
    assert result.entry["command"] == "uvx"
    assert result.entry["args"] == ["mcp-clickhouse==0.4.0"]
    assert result.entry["env"] == {"CLICKHOUSE_HOST": "ch.internal", "CLICKHOUSE_USER": "me",
                                   "CLICKHOUSE_PASSWORD": "${secret:srv-CLICKHOUSE_PASSWORD}",
                                   "CLICKHOUSE_SECURE": "true"}


def test_oci_runs_the_pinned_image_and_passes_env_by_name() -> None:
    result = built("clickhouse", {"CLICKHOUSE_HOST": "h", "CLICKHOUSE_USER": "u",
                                  "CLICKHOUSE_PASSWORD": "pw"}, use="oci")
    assert result.entry["args"] == [
        "run", "-i", "--rm", "-e", "CLICKHOUSE_HOST", "-e", "CLICKHOUSE_USER", "-e",
        "CLICKHOUSE_PASSWORD", "ghcr.io/clickhouse/mcp-clickhouse:0.4.0"]
    assert result.entry["env"]["CLICKHOUSE_PASSWORD"] == "${secret:srv-CLICKHOUSE_PASSWORD}"
    assert result.warnings == [
        "warning: the image is pinned by its tag only (ghcr.io/clickhouse/mcp-clickhouse:"
        "0.4.0); a tag can be moved to other contents: a digest (@sha256:…) pins it for good"]


def test_oci_runtime_arguments_with_variables_and_defaults() -> None:
    result = built("terraform", {"address": "https://app.terraform.io", "token": "t",
                                 "enabled": "false"})
    assert result.entry["args"] == [
        "run", "-i", "--rm", "-e", "TFE_ADDRESS=https://app.terraform.io",
        "-e", "TFE_TOKEN=${secret:srv-token}", "-e", "ENABLE_TF_OPERATIONS=false",
        "docker.io/hashicorp/terraform-mcp-server:1.1.0"]
    assert result.secrets == {"srv-token": "t"}
    # The optional secret left out takes its whole `-e TFE_TOKEN=…` with it.
    assert "-e" not in built("terraform", {"address": "a"}).entry["args"][5:]


def test_oci_from_registry_base_url_identifier_and_version() -> None:
    result = built("buildkite", {"BUILDKITE_API_TOKEN": "bk"})
    assert result.entry["args"] == ["run", "-i", "--rm", "-e", "BUILDKITE_API_TOKEN",
                                    "ghcr.io/buildkite/buildkite-mcp-server:0.6.1"]


def test_a_remote_with_a_secret_header() -> None:
    result = built("apify", {"Authorization": "Bearer apify_api_x"})
    assert result.entry == {"type": "http", "url": "https://mcp.apify.com/",
                            "headers": {"Authorization": "${secret:srv-Authorization}"},
                            "origin": ORIGIN}
    assert result.secrets == {"srv-Authorization": "Bearer apify_api_x"}


def test_url_variables_fill_the_remote_url() -> None:
    assert built("docs-tenant", {"tenant_id": "us-cell1"}).entry["url"] == \
        "https://us-cell1.analytics.example.com/mcp"
    with pytest.raises(UsageError, match=r"needs tenant_id: give --env tenant_id=VALUE"):
        built("docs-tenant", {})


def test_choices_and_formats_are_checked() -> None:
    region = questions(choose(parse_server(fixture("docs-multi-region")), None))[0]
    assert check_answer(region, "eu-west-1") == "eu-west-1"
    with pytest.raises(UsageError, match="must be one of us-east-1, eu-west-1, ap-southeast-1"):
        check_answer(region, "mars-1")
    asked = {q.key: q for q in questions(choose(parse_server(fixture("clickhouse")), None))}
    assert check_answer(asked["CLICKHOUSE_SECURE"], "TRUE") == "true"
    with pytest.raises(UsageError, match="is true or false"):
        check_answer(asked["CLICKHOUSE_SECURE"], "yes")
    assert check_answer(asked["CLICKHOUSE_MCP_QUERY_TIMEOUT"], "2.5") == "2.5"
    with pytest.raises(UsageError, match="is a number"):
        check_answer(asked["CLICKHOUSE_MCP_QUERY_TIMEOUT"], "soon")
    with pytest.raises(UsageError, match="the value given"):  # a secret is never echoed
        check_answer(asked["CLICKHOUSE_PASSWORD"]._replace(
            input=asked["CLICKHOUSE_PASSWORD"].input._replace(choices=("a",))), "hunter2")


def test_optional_package_arguments_without_a_value_are_left_out() -> None:
    result = built("supabase", {"SUPABASE_ACCESS_TOKEN": "sbp_x"})
    assert result.entry["args"] == ["-y", "@supabase/mcp-server-supabase@0.5.10"]
    given = built("supabase", {"SUPABASE_ACCESS_TOKEN": "sbp_x", "project-ref": "abc",
                               "read-only": "true"})
    assert given.entry["args"] == ["-y", "--project-ref", "abc", "--read-only",
                                   "@supabase/mcp-server-supabase@0.5.10"]


@pytest.mark.parametrize(("name", "use", "message"), [
    ("redis", "oci", "the image docker.io/mcp/redis:latest is tagged 'latest', which moves"),
    ("github", None, "is not an OCI image reference mcpctl can pin"),
    ("grafana", None, "declares version '$VERSION', which is not one exact version"),
    ("playwright", "remote", "has no remote; it offers: --use npm"),
    ("exa", "pypi", "has no pypi package mcpctl can run"),
])
def test_what_cannot_be_pinned_or_run_is_refused(name: str, use: str | None,
                                                message: str) -> None:
    with pytest.raises(UsageError) as caught:
        choose(parse_server(fixture(name)), use)
    assert message in str(caught.value)


def test_the_default_choice_skips_what_mcpctl_cannot_run() -> None:
    everything = choose(parse_server(fixture("everything")), None)
    assert everything.transport == "stdio"  # not the package serving streamable-http
    redis = choose(parse_server(fixture("redis")), None)
    assert isinstance(redis, Package)
    assert redis.registry_type == "pypi"
    nuget = fixture("playwright")
    nuget["packages"] = [{"registryType": "nuget", "identifier": "X", "version": "1.0.0",
                          "transport": {"type": "stdio"}}]
    with pytest.raises(UsageError, match="mcpctl does not run nuget packages"):
        choose(parse_server(nuget), None)


@pytest.mark.parametrize("version", ["^1.2.3", "~1.2", ">=1", "1.x", "1.*", "latest",
                                     "1.0 --registry=x", "-rf"])
def test_a_version_that_is_not_one_exact_version_is_refused(version: str) -> None:
    document = fixture("playwright")
    document["packages"][0]["version"] = version
    with pytest.raises(UsageError, match="no package or remote mcpctl can use"):
        choose(parse_server(document), None)


def test_an_identifier_that_is_an_option_is_refused() -> None:
    document = fixture("playwright")
    document["packages"][0]["identifier"] = "--registry=https://evil.example"
    with pytest.raises(UsageError, match="is not a valid npm package name"):
        choose(parse_server(document), None)


def test_registry_text_holding_a_reference_is_refused() -> None:
    """The attack: a published fixed value `${secret:github-pat}` would make `mcpctl run`
    hand this server the user's GitHub token. Without `refuse_references(choice)` in
    `build` (checked by removing that line) the entry is written with the reference and
    this test fails."""
    document = fixture("playwright")
    document["packages"][0]["environmentVariables"] = [
        {"name": "TOKEN", "value": "${secret:github-pat}"}]
    with pytest.raises(UsageError, match=r"a \$\{…\} reference that mcpctl would expand"):
        built("", {}, document=document)
    document["packages"][0]["environmentVariables"] = [
        {"name": "HOME_DIR", "default": "${env:HOME}"}]
    with pytest.raises(UsageError, match="reference"):
        built("", {}, document=document)


def test_a_package_registry_the_document_names_is_the_only_one_asked() -> None:
    """A private registry's package fetched by name from the default registry could be
    anyone's package of that name."""
    npm = fixture("playwright")
    npm["packages"][0]["registryBaseUrl"] = "https://npm.corp.example"
    assert built("", {}, document=npm).entry["args"] == [
        "--registry=https://npm.corp.example", "-y", "@playwright/mcp@0.1.0"]
    pypi = fixture("redis")
    pypi["packages"][0]["registryBaseUrl"] = "https://pypi.corp.example/"
    assert built("", {}, document=pypi).entry["args"] == [
        "--default-index", "https://pypi.corp.example/simple", "redis-mcp-server==0.3.5"]
    npm["packages"][0]["registryBaseUrl"] = "http://npm.corp.example"
    with pytest.raises(UsageError, match="is not an https URL mcpctl can pass on"):
        built("", {}, document=npm)


def test_an_image_pinned_by_digest_has_no_warning() -> None:
    document = fixture("terraform")
    digest = "sha256:" + "0123456789abcdef" * 4
    image = f"docker.io/hashicorp/terraform-mcp-server:1.1.0@{digest}"
    document["packages"][0]["identifier"] = image
    result = built("", {}, document=document)
    assert result.entry["args"][-1] == image
    assert result.warnings == []
