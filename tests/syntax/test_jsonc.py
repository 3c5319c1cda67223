"""JSON and JSONC reading: exact positions, comments and trailing commas, duplicate keys."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpctl.syntax import jsonc
from mcpctl.syntax.json_scan import find_object
from mcpctl.syntax.jsonc import DuplicateKey, JsonSyntaxError, blank_jsonc, parse


def test_plain_json_value_and_key_positions() -> None:
    text = '{\n  "mcpServers": {\n    "memory": {"command": "npx"},\n      "b": {}\n  }\n}\n'
    document = parse(text, jsonc=False)
    assert document.value == {"mcpServers": {"memory": {"command": "npx"}, "b": {}}}
    assert document.key_positions[("mcpServers",)] == (2, 3)
    assert document.key_positions[("mcpServers", "memory")] == (3, 5)
    assert document.key_positions[("mcpServers", "memory", "command")] == (3, 16)
    assert document.key_positions[("mcpServers", "b")] == (4, 7)
    assert document.value_positions[("mcpServers", "memory", "command")] == (3, 27)
    assert document.duplicates == []


def test_array_items_have_value_positions() -> None:
    document = parse('{"args": [\n  "a",\n  {"k": 1}\n]}', jsonc=False)
    assert document.value_positions[("args", 0)] == (2, 3)
    assert document.value_positions[("args", 1)] == (3, 3)
    assert document.key_positions[("args", 1, "k")] == (3, 4)


def test_position_falls_back_from_key_to_value_to_start() -> None:
    document = parse('[{"a": 1}]', jsonc=False)
    assert document.position((0, "a")) == (1, 3)
    assert document.position((0,)) == (1, 2)
    assert document.position(("missing",)) == (1, 1)


def test_jsonc_comments_and_trailing_commas() -> None:
    text = (
        "{\n"
        "  // a line comment, with \"quotes\" and a comma,\n"
        "  \"servers\": { /* a block\n"
        "     comment spanning lines */ \"time\": {\n"
        "      \"args\": [\"a\", \"b\",],\n"
        "    }, // trailing comma above and here\n"
        "  },\n"
        "}\n"
    )
    document = parse(text, jsonc=True)
    assert document.value == {"servers": {"time": {"args": ["a", "b"]}}}
    assert document.key_positions[("servers", "time")] == (4, 32)
    assert document.key_positions[("servers", "time", "args")] == (5, 7)


def test_jsonc_keeps_comment_markers_inside_strings() -> None:
    text = '{"url": "https://example.com//x", "glob": "src/*.ts", "q": "a\\" // b", }'
    document = parse(text, jsonc=True)
    assert document.value == {"url": "https://example.com//x", "glob": "src/*.ts",
                              "q": 'a" // b'}


def test_comment_in_plain_json_is_an_error_with_its_position() -> None:
    with pytest.raises(JsonSyntaxError) as raised:
        parse('{\n  // not allowed\n  "mcpServers": {}\n}', jsonc=False)
    assert (raised.value.line, raised.value.column) == (2, 3)
    assert raised.value.message == "Expecting property name enclosed in double quotes"
    assert str(raised.value) == "2:3: Expecting property name enclosed in double quotes"


def test_trailing_comma_in_plain_json_is_an_error() -> None:
    with pytest.raises(JsonSyntaxError) as raised:
        parse('{"mcpServers": {},\n}', jsonc=False)
    assert (raised.value.line, raised.value.column) == (2, 1)


@pytest.mark.parametrize("tail", ["/* never closed", "/*/", "/* almost *"])
def test_unterminated_block_comment_in_jsonc_is_an_error(tail: str) -> None:
    with pytest.raises(JsonSyntaxError) as raised:
        parse('{"servers": {}}\n  ' + tail, jsonc=True)
    assert (raised.value.line, raised.value.column) == (2, 3)
    assert raised.value.message == "unterminated /* comment"
    assert parse('{"servers": {}} /**/ /* closed */', jsonc=True).value == {"servers": {}}


@pytest.mark.parametrize("text", ["", "   \n\n", "// only a comment\n"])
def test_empty_document(text: str) -> None:
    with pytest.raises(JsonSyntaxError) as raised:
        parse(text, jsonc=True)
    assert (raised.value.line, raised.value.column, raised.value.message) == (
        1, 1, "empty file; expected a JSON object")


def test_duplicate_keys_at_every_depth() -> None:
    text = (
        '{\n'
        '  "mcpServers": {\n'
        '    "a": {"command": "x", "args": [{"k": 1, "k": 2}]},\n'
        '    "a": {"command": "y", "command": "z"}\n'
        '  },\n'
        '  "mcpServers": {}\n'
        '}\n'
    )
    document = parse(text, jsonc=False)
    assert document.duplicates == [
        DuplicateKey(("mcpServers", "a", "args", 0, "k"), 3, 45, first_line=3),
        DuplicateKey(("mcpServers", "a"), 4, 5, first_line=3),
        DuplicateKey(("mcpServers", "a", "command"), 4, 27, first_line=4),
        DuplicateKey(("mcpServers",), 6, 3, first_line=2),
    ]


def test_escaped_duplicate_key_is_still_a_duplicate() -> None:
    document = parse('{"ab": 1, "a\\u0062": 2}', jsonc=False)
    assert document.duplicates == [DuplicateKey(("ab",), 1, 11, first_line=1)]


def test_byte_order_mark_is_accepted_and_columns_stay_exact() -> None:
    document = parse('\ufeff{"mcpServers": {}}', jsonc=False)
    assert document.value == {"mcpServers": {}}
    assert document.key_positions[("mcpServers",)] == (1, 3)


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    with pytest.raises(JsonSyntaxError) as raised:
        parse("[" * 100_000 + "]" * 100_000, jsonc=False)
    assert str(raised.value) == "1:1: nested too deeply"


def test_strict_loader_refuses_duplicates() -> None:
    assert jsonc.load_object_pairs_strict('{"a": {"b": 1}}') == {"a": {"b": 1}}
    with pytest.raises(ValueError, match="duplicate key 'b'"):
        jsonc.load_object_pairs_strict('{"a": {"b": 1, "b": 2}}')


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=12,
)


@given(json_values)
def test_blanking_keeps_length_lines_and_meaning(value: object) -> None:
    text = json.dumps(value, indent=1)
    commented = text.replace("\n", " // note, with a comma,\n") + " /* end */"
    blanked = blank_jsonc(commented)
    assert len(blanked) == len(commented)
    assert blanked.count("\n") == commented.count("\n")
    assert json.loads(blanked) == value
    assert parse(commented, jsonc=True).value == value


def test_a_comma_before_a_comment_that_holds_a_bracket_is_kept() -> None:
    # issue 13: the comma was taken for a trailing one when a later comment held `]`.
    text = ('{\n  "servers": {\n    "a": {"command": "node", // see [docs] }\n'
            '      "args": ["x"] /* } */,\n    },\n  },\n}\n')
    document = parse(text, jsonc=True)
    assert document.value == {"servers": {"a": {"command": "node", "args": ["x"]}}}
    assert document.key_positions[("servers", "a", "args")] == (4, 7)


def test_only_a_comma_after_a_value_is_trailing() -> None:
    # `[,]` and `{,}` hold no value: the comma is an error, not a trailing comma.
    with pytest.raises(JsonSyntaxError) as raised:
        parse('{"args": [,]}', jsonc=True)
    assert (raised.value.line, raised.value.column) == (1, 11)
    assert blank_jsonc('{"a": [1, {},], "b": "x",}') == '{"a": [1, {} ], "b": "x" }'


def test_tokens_name_their_kind_and_span() -> None:
    text = '{"a": [1, true], // c\n "b": null} /* d */ /'
    assert [(t.kind, text[t.start:t.end]) for t in jsonc.lex(text)] == [
        ("{", "{"), ('"', '"a"'), (":", ":"), ("[", "["), ("w", "1"), (",", ","),
        ("w", "true"), ("]", "]"), (",", ","), ("/", "// c"), ('"', '"b"'), (":", ":"),
        ("w", "null"), ("}", "}"), ("/", "/* d */"), ("/", "/"),
    ]


def test_an_unclosed_string_ends_at_its_line() -> None:
    text = '{"a": "x\\"\n, "b": 1}'
    assert [text[t.start:t.end] for t in jsonc.lex(text)][:4] == ['{', '"a"', ":", '"x\\"']
    with pytest.raises(JsonSyntaxError) as raised:
        parse(text, jsonc=True)
    assert (raised.value.line, raised.value.column) == (1, 11)  # where the line ends


ADVERSARIAL = {
    # 60 KB shapes that made the old blanking regex quadratic or worse.
    "escaped quotes, never closed": '{"servers": {"a": "' + '\\"' * 30_000,
    "quote runs": '"\\"\\"' * 20_000,
    "open comments": "/*" * 30_000,
    "stars": "/*" + "*" * 60_000,
    "commas then comments": '{"a": 1' + ", //x\n" * 10_000 + "}",
    "slashes": "[" + "/ " * 30_000 + "]",
}


# Quadratic work on 60 KB is ~10^9 steps (minutes); linear is milliseconds. The work is
# in regular expressions (C, not countable: tests/work.py), so the bound is the test's.
@pytest.mark.timeout(30)
@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_text_is_read_in_linear_time(name: str) -> None:
    text = ADVERSARIAL[name]
    with pytest.raises(JsonSyntaxError):
        parse(text, jsonc=True)


@given(json_values)
def test_the_member_scanner_and_the_indexer_agree(value: object) -> None:
    text = "// lead\n" + json.dumps({"top": value}, indent=1).replace("\n", " /* , ] */\n")
    document = parse(text, jsonc=True)
    found = find_object(text, ())
    assert found is not None
    member = found.members[0]
    assert member.key == "top"
    assert jsonc.Lines(text).at(member.key_start) == document.key_positions[("top",)]
    assert json.loads(blank_jsonc(text)[member.value_start:member.value_end]) == value
