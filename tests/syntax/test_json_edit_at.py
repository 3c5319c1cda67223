"""In-place edits at nested key paths (Claude Code's `projects[<folder>].mcpServers`)."""

from __future__ import annotations

import json

import pytest

from mcpctl.syntax.json_edit import Edits, json_edit_at
from mcpctl.syntax.json_scan import find_objects
from tests.work import calls_made

ENTRY = {"type": "stdio", "command": "mcpctl", "args": ["run", "x"]}
SERVERS = ("projects", "/src/app", "mcpServers")


def test_missing_sections_are_created_and_every_other_byte_stays() -> None:
    text = '{\n  "numStartups": 3,\n  "tips": [1, 2]\n}'
    new = json_edit_at(text, {SERVERS: {"x": ENTRY}})
    assert new == ('{\n  "numStartups": 3,\n  "tips": [1, 2],\n  "projects": {\n'
                   '    "/src/app": {\n      "mcpServers": {\n        "x": {\n'
                   '          "type": "stdio",\n          "command": "mcpctl",\n'
                   '          "args": [\n            "run",\n            "x"\n'
                   '          ]\n        }\n      }\n    }\n  }\n}')


def test_an_existing_project_gains_its_servers_section_after_its_last_member() -> None:
    text = '{"projects": {"/src/app": {"allowedTools": []}, "/b": {}}}'
    new = json_edit_at(text, {SERVERS: {"x": ENTRY}})
    assert new == ('{"projects": {"/src/app": {"allowedTools": [], "mcpServers": {"x": '
                   '{"type": "stdio", "command": "mcpctl", "args": ["run", "x"]}}}, "/b": {}}}')


def test_several_new_projects_go_into_one_object_in_one_pass() -> None:
    text = '{\n  "projects": {\n    "/old": {}\n  }\n}\n'
    edits: dict[tuple[str, ...], Edits] = {
        ("projects", f"/p{i}", "mcpServers"): {"x": {"command": "c"}} for i in range(3)}
    new = json_edit_at(text, edits)
    assert json.loads(new) == {"projects": {"/old": {}, **{
        f"/p{i}": {"mcpServers": {"x": {"command": "c"}}} for i in range(3)}}}
    assert new.startswith('{\n  "projects": {\n    "/old": {},\n    "/p0": {\n')


def test_edits_in_found_and_missing_sections_together() -> None:
    text = ('{\n  // Claude Code writes JSON; the scanner takes comments too\n  "projects": {\n'
            '    "/a": {"mcpServers": {"old": {"command": "o"}, "keep": {"command": "k"}}}\n'
            '  }\n}\n')
    new = json_edit_at(text, {("projects", "/a", "mcpServers"): {"old": None},
                              ("projects", "/b", "mcpServers"): {"x": {"command": "c"}},
                              ("mcpServers",): {"top": {"command": "t"}}})
    assert new == ('{\n  // Claude Code writes JSON; the scanner takes comments too\n'
                   '  "projects": {\n    "/a": {"mcpServers": {"keep": {"command": "k"}}},\n'
                   '    "/b": {\n      "mcpServers": {\n        "x": {\n'
                   '          "command": "c"\n        }\n      }\n    }\n  },\n'
                   '  "mcpServers": {\n    "top": {\n      "command": "t"\n    }\n  }\n}\n')


def test_removing_from_a_missing_section_changes_nothing() -> None:
    text = '{"a": 1}'
    assert json_edit_at(text, {SERVERS: {"x": None}}) == text


def test_a_key_inside_an_array_is_not_the_section() -> None:
    text = '{"list": [{"projects": {"/src/app": {"mcpServers": {}}}}]}'
    assert set(find_objects(text, [("projects",), SERVERS])) == set()
    new = json_edit_at(text, {SERVERS: {"x": {"command": "c"}}})
    assert json.loads(new)["list"] == json.loads(text)["list"]
    assert json.loads(new)["projects"] == {"/src/app": {"mcpServers": {"x": {"command": "c"}}}}


@pytest.mark.parametrize("projects", [500])
def test_a_large_file_is_scanned_once_however_many_projects_change(projects: int) -> None:
    """Linear: 200 new projects in a file of 500 cost about one scan, not 200."""
    data = {"projects": {f"/home/u/src/p{i}": {"allowedTools": ["Bash(git log:*)"] * 20,
                                               "history": [{"display": "x" * 200}] * 5}
                         for i in range(projects)}}
    text = json.dumps(data, indent=2)
    _, one_scan = calls_made(lambda: find_objects(text, [("projects",)]))
    edits: dict[tuple[str, ...], Edits] = {
        ("projects", f"/new/{i}", "mcpServers"): {"x": {"command": "c"}} for i in range(200)}
    new, edit = calls_made(lambda: json_edit_at(text, edits))
    assert len(json.loads(new)["projects"]) == projects + 200
    # Counted, not timed: a scan per project would be ~200 scans' calls.
    assert edit < 3 * one_scan, (edit, one_scan)
