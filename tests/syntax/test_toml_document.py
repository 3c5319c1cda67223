"""Where a TOML file's keys are written: strings of every kind, arrays and inline tables
across lines, quoted keys, `[[tables]]`, and text built to make the reader slow."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpctl.syntax.jsonc import JsonPath, JsonSyntaxError
from mcpctl.syntax.toml_document import parse_toml
from mcpctl.syntax.toml_keys import MAX_DEPTH, key_positions, tokens
from tests.conftest import run_mcpctl
from tests.tier_files import make_workspace

DECOY_BASIC = '''model = "m"
notes = """
[mcp_servers.real]
command = "harmless"
"""

[mcp_servers.real]
command = "npx"
'''


@pytest.mark.parametrize("quotes", ['"""', "'''"])
def test_a_header_inside_a_multi_line_string_is_no_header(quotes: str) -> None:
    text = DECOY_BASIC.replace('"""', quotes)
    document = parse_toml(text)
    assert document.value["notes"] == '[mcp_servers.real]\ncommand = "harmless"\n'
    assert document.key_positions == {
        ("model",): (1, 1), ("notes",): (2, 1), ("mcp_servers",): (7, 1),
        ("mcp_servers", "real"): (7, 1), ("mcp_servers", "real", "command"): (8, 1)}


def test_keys_after_a_multi_line_string_get_their_true_line() -> None:
    # An escaped quote run, a line-ending backslash, and quotes just before the close
    # (`""""` is one quote of content, then the end) must not end the string early.
    text = ('[mcp_servers.real]\n'
            'description = """\\"""\n'
            'args = ["decoy"] \\\n'
            '    [mcp_servers.other]\n'
            '\'\'\' still inside ""\\""""\n'
            'args = ["-y", "pkg"]\n'
            "env = '''\n"
            "[mcp_servers.real.env]\n"
            '"quoted" = 1\'\'\'\'\n'
            'cwd = "/srv"\n')
    document = parse_toml(text)
    assert sorted(document.value["mcp_servers"]["real"]) == ["args", "cwd", "description",
                                                              "env"]
    assert document.key_positions == {
        ("mcp_servers",): (1, 1), ("mcp_servers", "real"): (1, 1),
        ("mcp_servers", "real", "description"): (2, 1),
        ("mcp_servers", "real", "args"): (6, 1), ("mcp_servers", "real", "env"): (7, 1),
        ("mcp_servers", "real", "cwd"): (10, 1)}


def test_quoted_keys_keep_their_dots() -> None:
    text = ('[mcp_servers."gh.enterprise"]\n'
            '"dotted.name".inner = 1\n'
            "  'lit.eral' = 2\n"
            '"esc\\u0041pe" = 3\n'
            '[ mcp_servers . \'sp ace\' ]\n')
    document = parse_toml(text)
    server = ("mcp_servers", "gh.enterprise")
    assert document.value["mcp_servers"]["gh.enterprise"] == {
        "dotted.name": {"inner": 1}, "lit.eral": 2, "escApe": 3}
    assert document.key_positions == {
        ("mcp_servers",): (1, 1), server: (1, 1),
        (*server, "dotted.name"): (2, 1), (*server, "dotted.name", "inner"): (2, 1),
        (*server, "lit.eral"): (3, 3), (*server, "escApe"): (4, 1),
        ("mcp_servers", "sp ace"): (5, 1)}


def test_arrays_across_lines_and_inline_tables() -> None:
    text = ('[mcp_servers.a]\n'
            'args = [  # a comment with ] and = in it\n'
            '  "x = 1",\n'
            "  '[mcp_servers.decoy]',\n"
            '  { name = "n", "q.k" = 2.5 },\n'
            ']\n'
            'env = { TOKEN = "${T}", nested.key = 1979-05-27T07:32:00Z }\n'
            'timeout = 3.5\n')
    document = parse_toml(text)
    server = ("mcp_servers", "a")
    assert document.key_positions == {
        ("mcp_servers",): (1, 1), server: (1, 1), (*server, "args"): (2, 1),
        (*server, "args", 2, "name"): (5, 5), (*server, "args", 2, "q.k"): (5, 17),
        (*server, "env"): (7, 1), (*server, "env", "TOKEN"): (7, 9),
        (*server, "env", "nested"): (7, 25), (*server, "env", "nested", "key"): (7, 25),
        (*server, "timeout"): (8, 1)}
    assert document.nearest((*server, "args", 1)) == (2, 1)


def test_arrays_of_tables_are_indexed() -> None:
    text = "[[a]]\nx = 1\n[[a]]\nx = 2\n[a.b]\ny = 3\n[[a.b.c]]\n"
    document = parse_toml(text)
    assert document.value == {"a": [{"x": 1}, {"x": 2, "b": {"y": 3, "c": [{}]}}]}
    assert document.key_positions == {
        ("a",): (1, 1), ("a", 0): (1, 1), ("a", 0, "x"): (2, 1), ("a", 1): (3, 1),
        ("a", 1, "x"): (4, 1), ("a", 1, "b"): (5, 1), ("a", 1, "b", "y"): (6, 1),
        ("a", 1, "b", "c"): (7, 1), ("a", 1, "b", "c", 0): (7, 1)}


def test_a_byte_order_mark_and_crlf_lines() -> None:
    text = "\ufeff[mcp_servers.a]\r\ncommand = \"c\"\r\n"
    assert key_positions(text) == {("mcp_servers",): (1, 2), ("mcp_servers", "a"): (1, 2),
                                   ("mcp_servers", "a", "command"): (2, 1)}


# ---- every key of any document, and only those --------------------------------------------

_TRICKY = st.text(st.sampled_from(list("ab =[]{}.,#'\"\\\n\t")), max_size=12)
_KEYS = st.one_of(st.from_regex(r"[A-Za-z0-9_-]{1,6}", fullmatch=True), _TRICKY)
_LEAVES = st.one_of(_TRICKY, st.integers(), st.floats(allow_nan=False), st.booleans())
_TABLES = st.recursive(
    st.dictionaries(_KEYS, _LEAVES, max_size=3),
    lambda inner: st.dictionaries(_KEYS, st.one_of(inner, st.lists(inner, max_size=2),
                                                   st.lists(_LEAVES, max_size=3)), max_size=3),
    max_leaves=12)


def _key_paths(value: Any, path: JsonPath = ()) -> set[JsonPath]:
    found: set[JsonPath] = set()
    items = value.items() if isinstance(value, dict) else \
        enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        if isinstance(key, str):
            found.add((*path, key))
        found |= _key_paths(item, (*path, key))
    return found


def _rendered(value: dict[str, Any], style: int) -> str:
    """The value as TOML text, strings written as multi-line ones where they can be."""
    import tomlkit  # noqa: PLC0415 - only this test renders TOML

    def strings(item: Any) -> Any:
        if isinstance(item, dict):
            return {key: strings(inner) for key, inner in item.items()}
        if isinstance(item, list):
            return [strings(inner) for inner in item]
        if isinstance(item, str) and style and "'''" not in item and "\r" not in item:
            return tomlkit.string(item, multiline=True, literal=style == 2 and
                                  all(c >= " " or c in "\t\n" for c in item))
        return item

    return tomlkit.dumps(strings(value))


@given(_TABLES, st.sampled_from([0, 1, 2]))
def test_every_key_and_no_other_is_placed(value: dict[str, Any], style: int) -> None:
    text = _rendered(value, style)
    assert tomllib.loads(text) == value
    placed = {path for path in key_positions(text) if isinstance(path[-1], str)}
    assert placed == _key_paths(value)


# ---- text built to be slow: one token per step, each character read once -------------------

PATHOLOGICAL = {
    "quotes": '"',
    "apostrophes": "'",
    "triple quotes": '"""',
    "escaped quotes": '\\"',
    "brackets": "[",
    "open arrays": "a = [",
    "open inline tables": "{a=",
    "dotted keys": "a.",
    "mixed": "\"'[{#\n=.,]}'''\"\"\"\\",
}


def _work(text: str) -> tuple[int, int]:
    """Tokens read (one step of the state machine each) and path parts recorded."""
    spans = list(tokens(text))
    ends = [0] + [end for _, end in spans]
    assert all(start >= ends[index] and end > start
               for index, (start, end) in enumerate(spans))
    assert sum(end - start for start, end in spans) <= len(text)
    return len(spans), sum(len(path) for path in key_positions(text))


@pytest.mark.parametrize("name", sorted(PATHOLOGICAL))
def test_a_megabyte_of_pathological_text_is_read_in_one_pass(name: str) -> None:
    unit = PATHOLOGICAL[name]
    half = unit * (500_000 // len(unit))
    tokens_half, recorded_half = _work(half)
    tokens_whole, recorded_whole = _work(half + half)
    # Twice the text is twice the work, give or take the last unit.
    assert tokens_whole <= 2 * tokens_half + 2
    assert recorded_whole <= 2 * recorded_half + 2 * MAX_DEPTH


def test_valid_deep_and_long_keys_cost_at_most_max_depth_each() -> None:
    deep = "a = " + "[" * 300 + "{k = 1}, " * 20_000 + "]" * 300 + "\n"
    long_key = "a." * 2_000 + "a = 1\n"
    long_header = "[" + "a." * 2_000 + "a]\nk = 1\n"
    for text in (deep, long_key, long_header):
        tomllib.loads(text)
        positions = key_positions(text)
        assert max(len(path) for path in positions) <= MAX_DEPTH
        assert len(positions) <= MAX_DEPTH + 1


def test_a_valid_megabyte_string_full_of_decoys() -> None:
    text = 'x = """' + '""\\"[mcp_servers.decoy]\ncommand = "c"\n' * 25_000 + '"""\ny = 1\n'
    assert key_positions(text) == {("x",): (1, 1), ("y",): (50_002, 1)}


@pytest.mark.parametrize("shape", [("[", "]"), ("{a = ", "}")])
def test_deep_nesting_is_a_syntax_error(shape: tuple[str, str]) -> None:
    opening, closing = shape
    with pytest.raises(JsonSyntaxError) as raised:
        parse_toml("a = " + opening * 1_000 + "1" + closing * 1_000 + "\n")
    assert (raised.value.message, raised.value.line, raised.value.column) == (
        "nested too deeply", 1, 1)


@pytest.mark.parametrize("text", [
    "a." * 20_000 + "a = 1\n",  # valid TOML; tomllib would take gigabytes for it
    "x = 1\n[" + "t." * 20_000 + "t]\n",
    'x = 1\n[[' + '"q".' * 20_000 + '"q"]]\n',
])
def test_a_key_tomllib_would_choke_on_is_refused_first(text: str) -> None:
    with pytest.raises(JsonSyntaxError) as raised:
        parse_toml(text)
    assert raised.value.message == "a key of more than 128 dotted parts"
    assert raised.value.line == (1 if text.startswith("a.") else 2)


def test_a_key_of_128_parts_is_read() -> None:
    document = parse_toml("a." * 127 + "a = 1\n")
    value = document.value
    for _ in range(127):
        value = value["a"]
    assert value == {"a": 1}


# ---- what the commands show ------------------------------------------------------------------

CODEX = '''model = "m"
notes = """
[mcp_servers.real]
command = "npx"
args = ["-y", "@scope/pkg@1.0.0"]
"""

[mcp_servers.real]
command = "npx"
args = ["-y", "@scope/pkg"]
'''


def test_list_and_check_show_the_true_line(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {".codex/config.toml": CODEX})
    listed = run_mcpctl(["list", "--json", "--workspace", str(root)])
    assert listed.code == 0, listed.err
    source = json.loads(listed.out)["servers"][0]["source"]
    assert (source["path"], source["line"]) == (str(root / ".codex/config.toml"), 8)
    checked = run_mcpctl(["check", "--output", "json"], cwd=root)
    findings = json.loads(checked.out)["findings"]
    assert [(f["path"], f["line"], f["code"]) for f in findings] == [
        (".codex/config.toml", 10, "MCP020")]


def test_list_and_check_report_a_deeply_nested_file(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, {
        ".codex/config.toml": "args = " + "[" * 1_000 + "]" * 1_000 + "\n",
        ".mcp.json": '{"mcpServers": {"ok": {"command": "ok-server"}}}\n'})
    listed = run_mcpctl(["list", "--json", "--workspace", str(root)])
    report = json.loads(listed.out)
    assert [server["name"] for server in report["servers"]] == ["ok"]
    assert report["problems"] == [{"path": str(root / ".codex/config.toml"), "line": 1,
                                   "column": 1, "message": "nested too deeply"}]
    checked = run_mcpctl(["check"], cwd=root)
    assert checked.code == 1
    assert checked.out.startswith(".codex/config.toml:1:1: MCP001 error: nested too deeply ")


def test_the_users_own_deep_toml_is_an_error_not_a_crash(tmp_path: Path) -> None:
    """config.toml nested past tomllib's recursion: one line and exit 3, as any bad TOML."""
    config = tmp_path / "config.toml"
    config.write_text("[servers.a]\ncommand = \"x\"\nargs = " + "[" * 1_000 + "]" * 1_000 + "\n")
    where = ["--config", str(config), "--workspace", str(tmp_path)]
    for args in (["list", *where], ["add", "b", *where, "--", "y"], ["show", "a", *where]):
        done = run_mcpctl(args)
        assert done.code == 3, (args, done.err)
        assert "nested too deeply" in done.err, (args, done.err)
        assert "Traceback" not in done.err
        assert "unexpected" not in done.err
