"""Every `--json` output, from real processes, against its schema in schemas/.

One workspace with a real MCP server in each tier, the real keyring, and real client
files: each command that reports or changes something runs once with `--json`, and its
stdout must validate against `schemas/<name>.schema.json`. A failing command in JSON
mode prints an error object (schemas/error.schema.json) on stdout and the same one
line on stderr.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcpctl.cli.app import app
from mcpctl.cli.commands import register_all
from tests.cli.test_run import SERVER
from tests.conftest import Result, run_mcpctl
from tests.registry.registry_server import Registry, at_version, fixture, serving
from tests.secret_service import SecretService
from tests.tier_files import SCHEMAS, assert_valid, make_workspace, write, write_servers

# Each command line (after `mcpctl`), the schema its --json output follows, and its
# exit code.
RUNS: list[tuple[list[str], str, int]] = [
    (["add", "tok", "--json", "--", sys.executable, str(SERVER)], "add", 0),
    (["add", "gone", "--entry", '{"command": "x"}', "--output", "json"], "add", 0),
    (["remove", "gone", "--json"], "remove", 0),
    (["remove", "gone", "--missing-ok", "--output", "json"], "remove", 0),
    (["list", "--json"], "list", 0),
    (["show", "wstok", "--json"], "show", 0),
    (["trust", "wstok", "--yes", "--json"], "trust", 0),
    (["cost", "--json"], "cost", 0),
    (["cost", "--json"], "cost", 0),  # the second one is served from the cache
    (["doctor", "--json"], "doctor", 0),
    (["doctor", "--no-probe", "--json"], "doctor", 0),
    (["revoke", "wstok", "--json"], "revoke", 0),
    (["revoke", "--stale", "--json"], "revoke", 0),
    (["secret", "set", "json-schema-test", "--stdin", "--json"], "secret-set", 0),
    (["secret", "list", "--json"], "secret-list", 0),
    (["secret", "rm", "json-schema-test", "--json"], "secret-rm", 0),
    (["check", "--json"], "check-report", 0),
    (["check", "--output", "json", "--list-rules"], "check-report", 0),
    (["clients", "enable", "cursor", "--json"], "clients-sync", 0),
    (["clients", "--json"], "clients", 0),
    (["clients", "command", "--json"], "clients-command", 0),
    (["import", "--from", "cursor", "--file", "{cursor}", "--json"], "import", 0),
    (["export", "--to", "vscode", "--file", "{vscode}", "--dry-run", "--json"], "export", 0),
    (["export", "--to", "vscode", "--file", "{vscode}", "--json"], "export", 0),
    (["sync", "--check", "--json"], "export", 1),  # cursor is out of date
    (["sync", "--json"], "export", 0),
    (["clients", "disable", "cursor", "--json"], "clients-sync", 0),
    (["tools", "tok", "--json"], "tools", 0),
    (["tools", "tok", "--deny-destructive", "--budget", "10", "--json"], "tools", 0),
    (["tools", "--global-budget", "1000", "--json"], "tools-budget", 0),
    (["tools", "--no-global-budget", "--json"], "tools-budget", 0),
    (["add", "ev", "--from-registry", "io.github.modelcontextprotocol/server-everything@2.0.0",
      "--registry", "{registry}", "--json"], "add", 0),
    (["search", "everything", "--registry", "{registry}", "--json"], "search", 0),
    (["outdated", "--json"], "outdated", 0),
    (["upgrade", "ev", "--json"], "upgrade", 0),
    (["guard", "--system", "--json"], "guard", 0),
    (["secret", "check", "--json"], "secret-check", 0),
]


@pytest.fixture
def place(tmp_path: Path, secret_service: SecretService) -> Iterator[dict[str, Any]]:
    root = make_workspace(tmp_path, {}, name="repo")
    write_servers(root, {"wstok": {"command": sys.executable, "args": [str(SERVER)]}})
    cursor = write(tmp_path / "cursor.json",
                   json.dumps({"mcpServers": {"imported": {"command": "uvx",
                                                           "args": ["tool==1.0"]}}}))
    registry = Registry()
    registry.publish(fixture("everything"), at_version(fixture("everything"), "2026.8.31"))
    with serving(registry):
        yield {"root": root, "cursor": cursor, "vscode": tmp_path / "vscode-mcp.json",
               "registry": registry.url}


def _run(argv: list[str], place: dict[str, Any]) -> Result:
    words = [str(place[word[1:-1]]) if word[1:-1] in place else word for word in argv]
    stdin = "a-value\n" if words[:2] == ["secret", "set"] else None
    return run_mcpctl(words, cwd=place["root"], stdin=stdin, timeout=120)


def test_every_json_output_follows_its_schema(place: dict[str, Path]) -> None:
    documents: list[dict[str, Any]] = []
    for argv, schema, code in RUNS:
        result = _run(argv, place)
        assert result.code == code, (argv, result.err)
        documents.append(json.loads(result.out))
        assert_valid(documents[-1], schema)
        # guard's is 2: its `key` field (issue 22).
        assert documents[-1]["schema_version"] == (2 if schema == "guard" else 1), argv
    # The runs reached what their schemas describe: real probes, a cache hit, a probe
    # in doctor, an approval and its revocation, an import and an export written.
    assert [(s["name"], s["status"]) for s in documents[7]["servers"]] == [
        ("tok", "probed"), ("wstok", "probed")]
    assert [s["status"] for s in documents[8]["servers"]] == ["cached", "cached"]
    assert [s["probe"]["status"] for s in documents[9]["servers"]] == ["ok", "ok"]
    assert [r["status"] for r in documents[6]["results"]] == ["trusted"]
    assert [r["name"] for r in documents[11]["revoked"]] == ["wstok"]
    assert [s["status"] for s in documents[21]["servers"]] == ["added"]
    assert documents[23]["clients"][0]["written"] is True


def test_every_command_with_json_output_is_run_above() -> None:
    register_all(app)
    import typer  # noqa: PLC0415

    def walk(group: Any, prefix: tuple[str, ...]) -> list[tuple[str, ...]]:
        found = []
        for name, command in group.commands.items():
            if hasattr(command, "commands"):
                found += walk(command, (*prefix, name))
                if any("--json" in p.opts for p in command.params):
                    found.append((*prefix, name))
            elif any("--json" in p.opts for p in command.params):
                found.append((*prefix, name))
        return found

    with_json = set(walk(typer.main.get_command(app), ()))
    run_above = {tuple(argv[:2]) if tuple(argv[:2]) in with_json else (argv[0],)
                 for argv, _, _ in RUNS}
    # `check` parses its own options (argparse); its --json is run above as well.
    assert with_json | {("check",)} == run_above


@pytest.mark.parametrize("argv", [
    ["show", "wstoc", "--json"],  # an McpctlError
    ["list", "--no-such-option", "--json"],  # a usage error from the parser
    ["check", "--json", "--no-such-option"],  # check's own parser
    ["add", "x", "--output", "json"],  # no command given
    ["cost", "nosuch", "--json"],
])
def test_an_error_in_json_mode_is_a_json_object_and_one_line_on_stderr(
    place: dict[str, Path], argv: list[str]
) -> None:
    result = _run(argv, place)
    document = json.loads(result.out)
    assert_valid(document, "error")
    assert document["exit_code"] == result.code == 2
    assert document["error"]["type"] == "usage"
    assert result.err.endswith(f"mcpctl: error: {document['error']['message']}\n")


def test_the_error_object_names_the_exit_code(place: dict[str, Path]) -> None:
    write(place["root"] / "mcp.json", '{"mcpServers": {"x": ')
    result = _run(["show", "x", "--json"], place)
    assert result.code == 3
    assert json.loads(result.out) == {
        "schema_version": 1, "exit_code": 3,
        "error": {"type": "invalid_config",
                  "message": "no server named 'x' here, and 1 config file problem(s) may hide "
                             "it (see above)"}}


def test_without_json_an_error_is_only_on_stderr(place: dict[str, Path]) -> None:
    result = _run(["show", "wstoc"], place)
    assert (result.code, result.out) == (2, "")
    assert result.err == ("mcpctl: error: no server named 'wstoc' here (did you mean "
                          "'wstok'?) (see: mcpctl list)\n")


def test_json_after_a_double_dash_belongs_to_the_server(place: dict[str, Path],
                                                        user_config: Path) -> None:
    result = _run(["add", "plain", "--", "tool", "--json"], place)
    assert (result.code, result.out) == (0, f"added plain in {user_config}\n")
    assert 'args = ["--json"]' in user_config.read_text()


@pytest.mark.parametrize("schema", sorted(p.name for p in SCHEMAS.glob("*.schema.json")))
def test_every_schema_is_valid_draft_2020_12(schema: str) -> None:
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped, unused-ignore]  # noqa: PLC0415

    document = json.loads((SCHEMAS / schema).read_text(encoding="utf-8"))
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(document)


def test_add_json_is_output_unless_an_entry_follows(place: dict[str, Path],
                                                    user_config: Path) -> None:
    # The older spelling: a JSON document after --json is the entry, and output is text.
    entry = _run(["add", "old", "--json", '{"command": "x", "args": ["1"]}'], place)
    assert (entry.code, entry.out) == (0, f"added old in {user_config}\n")
    as_array = _run(["add", "bad", "--json", "[1]"], place)
    assert (as_array.code, as_array.out) == (2, "")
    assert as_array.err == "mcpctl: error: --entry must be a JSON object (one server entry)\n"
    # Anything else after --json: JSON output, whichever way the entry is given.
    for argv in (["add", "new", "--json", "--", "x", "1"],
                 ["add", "--json", "newer", "--entry", '{"command": "x"}'],
                 ["add", "newest", "--entry", '{"command": "x"}', "--json"]):
        result = _run(argv, place)
        assert result.code == 0, result.err
        document = json.loads(result.out)
        assert_valid(document, "add")
        assert document["status"] == "added"
    assert '[servers.bad]' not in user_config.read_text()


def test_problems_have_one_shape_in_every_output(place: dict[str, Path]) -> None:
    broken = write(place["root"] / "mcp.json", '{"mcpServers": {"x": ')
    expected = [{"path": str(broken), "line": 1, "column": 22,
                 "message": "Expecting value (comments and trailing commas are not allowed "
                            "here)"}]
    for argv, schema in ((["list", "--json"], "list"), (["show", "wstok", "--json"], "show"),
                         (["doctor", "--no-probe", "--json"], "doctor"),
                         (["trust", "--all", "--yes", "--json"], "trust"),
                         (["secret", "list", "--json"], "secret-list")):
        result = _run(argv, place)
        document = json.loads(result.out)
        assert_valid(document, schema)
        assert document["problems"] == expected, argv


def test_the_guard_and_a_disabled_codex_entry_follow_the_schemas(tmp_path: Path) -> None:
    """The optional fields issue 22 added: `show`'s `guard`, `sync`'s `guards` and a row's
    `disabled_in` (a Codex entry with `enabled = false`), each present and valid."""
    root = make_workspace(tmp_path, {".codex/config.toml": '[mcp_servers.off]\n'
                                     'command = "off-mcp"\nenabled = false\n'})
    write_servers(root, {"wstok": {"command": sys.executable, "args": [str(SERVER)]}})
    config = write(tmp_path / "config.toml", '[clients]\nsync = ["claude-code"]\n')
    listed = run_mcpctl(["list", "--json", "--config", str(config)], cwd=root)
    document = json.loads(listed.out)
    assert_valid(document, "list")
    assert [row.get("disabled_in") for row in document["servers"]] == [
        {"client": "codex", "setting": "enabled = false"}, None]
    shown = json.loads(run_mcpctl(["show", "off", "--json", "--config", str(config)],
                                  cwd=root).out)
    assert_valid(shown, "show")
    assert shown["definitions"][0]["guard"]["client"] == "codex"
    synced = run_mcpctl(["sync", "--json", "--config", str(config)], cwd=root)
    assert synced.code == 0, synced.err
    document = json.loads(synced.out)
    assert_valid(document, "export")
    assert sorted(document["guards"]) == ["claude-code"]  # codex is not enabled
