"""The user tier: config.toml read with exact lines, and edited without losing a word."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from mcpctl.config.user_config import load_user_tier, server_lines
from mcpctl.config.user_config_edit import EditResult, add_server, remove_server
from mcpctl.errors import ConfigError, UsageError
from mcpctl.model import Source, Tier
from tests.tier_files import write


def test_server_lines_for_every_way_to_write_a_server() -> None:
    tables = (
        "# comment [servers.commented]\n"            # 1
        "[servers.table]\n"                           # 2
        'command = "c"\n'                             # 3
        "[servers.table.env]\n"                       # 4
        'K = "v"\n'                                   # 5
        '[ servers . "quoted name" ]\n'               # 6
        'command = "d"\n'                             # 7
        "[servers.'literal']\n"                       # 8
        'url = "https://l"\n'                         # 9
        "[servers]\n"                                 # 10
        'inline = { command = "e" }\n'                # 11
        '"quoted-inline" = { command = "f" }\n'       # 12
        'split.command = "g"\n'                       # 13
        "[other]\n"                                   # 14
        'notaserver = { command = "h" }\n'            # 15
    )
    assert server_lines(tables) == {
        "table": 2, "quoted name": 6, "literal": 8, "inline": 11, "quoted-inline": 12,
        "split": 13,
    }
    assert set(tomllib.loads(tables)["servers"]) == set(server_lines(tables))
    dotted = (
        "# servers.commented = 1\n"                   # 1
        'servers.dotted = { command = "a" }\n'        # 2
        "servers . spaced.command = 'b'\n"            # 3
        "[other]\n"                                   # 4
        'servers.not_top_level = { command = "c" }\n' # 5
    )
    assert server_lines(dotted) == {"dotted": 2, "spaced": 3}
    assert set(tomllib.loads(dotted)["servers"]) == set(server_lines(dotted))


def test_user_tier_definitions_carry_tier_file_and_line(tmp_path: Path) -> None:
    config = write(tmp_path / "config.toml", (
        "# mine\n"
        "[servers.github]\n"
        'command = "docker"\n'
        'args = ["run", "-i"]\n'
        "env = { TOKEN = \"${secret:gh}\" }\n"
        "\n"
        "[servers]\n"
        'docs = { url = "https://docs/mcp", type = "sse", headers = { X = "y" } }\n'
    ))
    load = load_user_tier(config)
    assert load.problems == []
    assert load.files == [config]
    assert [(d.name, d.source) for d in load.definitions] == [
        ("github", Source(Tier.USER, config, 2, 0, "config.toml")),
        ("docs", Source(Tier.USER, config, 8, 0, "config.toml")),
    ]
    assert load.definitions[0].spec.args == ("run", "-i")
    assert dict(load.definitions[1].spec.headers) == {"X": "y"}


def test_missing_user_config_is_an_empty_tier(tmp_path: Path) -> None:
    load = load_user_tier(tmp_path / "nope.toml")
    assert (load.definitions, load.problems, load.files) == ([], [], [])


@pytest.mark.parametrize(("text", "problems"), [
    ('[servers.a]\ncommand = "x"\nargs = [\n',
     ["4:1: Invalid value"]),
    ('[servers.a]\ncommand = "x"\n[servers.a]\n',
     ["3:11: Cannot declare ('servers', 'a') twice"]),
    ("servers = 5\n", ["1:1: 'servers' must be a table of [servers.NAME] tables"]),
    ('[servers.a]\nargs = ["x"]\n\n[servers.b]\ncommand = 1\n[servers.c]\ncommand = "ok"\n',
     ["1:1: server 'a' has neither 'command' nor 'url'; it needs exactly one",
      "4:1: server 'b': 'command' must be a string, not a number"]),
])
def test_user_config_problems_are_located(tmp_path: Path, text: str, problems: list[str]) -> None:
    config = write(tmp_path / "config.toml", text)
    load = load_user_tier(config)
    assert [str(p).removeprefix(f"{config}:") for p in load.problems] == problems


def test_a_directory_in_place_of_the_config(tmp_path: Path) -> None:
    (tmp_path / "config.toml").mkdir()
    assert [p.message for p in load_user_tier(tmp_path / "config.toml").problems] == [
        "is a directory, not a file"]


# --- editing ---------------------------------------------------------------------------


def test_add_to_a_missing_file_creates_it_0600(tmp_path: Path) -> None:
    config = tmp_path / "new" / "config.toml"
    assert add_server(config, "a", {"command": "x", "args": ["-y"]}, replace=False) == (
        EditResult("added"))
    assert config.read_text() == '[servers.a]\ncommand = "x"\nargs = ["-y"]\n'
    assert config.stat().st_mode & 0o777 == 0o600


def test_an_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    config = write(tmp_path / "config.toml", "# hi\n")
    config.chmod(0o640)
    add_server(config, "a", {"command": "x"}, replace=False)
    assert config.stat().st_mode & 0o777 == 0o640
    assert config.read_text() == '# hi\n\n[servers.a]\ncommand = "x"\n'


def test_add_into_a_servers_table_of_inline_entries(tmp_path: Path) -> None:
    before = (
        "# top\n"
        "[servers]\n"
        "# a is first\n"
        'a = { command = "x" }  # inline a\n'
        'b = { command = "y" }\n'
        "\n"
        "[other]\n"
        "k = 1\n"
    )
    config = write(tmp_path / "config.toml", before)
    add_server(config, "c", {"command": "z"}, replace=False)
    assert config.read_text() == (
        "# top\n"
        "[servers]\n"
        "# a is first\n"
        'a = { command = "x" }  # inline a\n'
        'b = { command = "y" }\n'
        "\n"
        "[servers.c]\n"
        'command = "z"\n'
        "\n"
        "[other]\n"
        "k = 1\n"
    )
    remove_server(config, "a")
    assert config.read_text() == (
        "# top\n"
        "[servers]\n"
        "# a is first\n"
        'b = { command = "y" }\n'
        "\n"
        "[servers.c]\n"
        'command = "z"\n'
        "\n"
        "[other]\n"
        "k = 1\n"
    )


def test_replace_an_inline_entry(tmp_path: Path) -> None:
    config = write(tmp_path / "config.toml", '[servers]\na = { command = "x" }\n')
    assert add_server(config, "a", {"command": "y"}, replace=True) == EditResult(
        "replaced", {"command": "x"})
    assert tomllib.loads(config.read_text()) == {"servers": {"a": {"command": "y"}}}


def test_dotted_keys_at_top_level(tmp_path: Path) -> None:
    config = write(tmp_path / "config.toml",
                   'servers.a = { command = "x" }\nservers.b.command = "y"\n')
    add_server(config, "c", {"command": "z"}, replace=False)
    assert config.read_text() == (
        'servers.a = { command = "x" }\nservers.b.command = "y"\n\n'
        '[servers.c]\ncommand = "z"\n')
    remove_server(config, "a")
    remove_server(config, "b")
    assert tomllib.loads(config.read_text()) == {"servers": {"c": {"command": "z"}}}


def test_remove_takes_every_sub_table_of_the_server(tmp_path: Path) -> None:
    config = write(tmp_path / "config.toml", (
        "[servers.a]\n"
        'command = "x"\n'
        "[servers.a.env]\n"
        'K = "v"\n'
        "[servers.a.meta]\n"
        "x = 1\n"
        "[[servers.a.list]]\n"
        "y = 2\n"
        "\n"
        "# about b\n"
        "[servers.b]\n"
        'command = "y"\n'
    ))
    assert remove_server(config, "a").status == "removed"
    assert config.read_text() == '# about b\n[servers.b]\ncommand = "y"\n'


def test_add_nested_extra_fields_round_trip(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    entry = {"command": "x", "meta": {"a": {"b": 1}}, "list": [{"k": 1}, {"k": 2}]}
    add_server(config, "n", entry, replace=False)
    assert tomllib.loads(config.read_text()) == {"servers": {"n": entry}}
    add_server(config, "m", {"command": "y"}, replace=False)
    remove_server(config, "n")
    assert tomllib.loads(config.read_text()) == {"servers": {"m": {"command": "y"}}}


def test_different_definition_is_refused_without_replace(tmp_path: Path) -> None:
    before = '[servers]\n\n[servers.a]\ncommand = "x"\n'
    config = write(tmp_path / "config.toml", before)
    with pytest.raises(UsageError) as raised:
        add_server(config, "a", {"command": "y", "args": ["1"]}, replace=False)
    assert str(raised.value) == (
        f"server 'a' already exists at {config}:3 with a different definition "
        '(old: {"command": "x"}; new: {"command": "y", "args": ["1"]}); '
        "use --replace to overwrite it")
    assert config.read_text() == before


def test_same_meaning_is_unchanged_and_not_rewritten(tmp_path: Path) -> None:
    config = write(tmp_path / "config.toml", '[servers.a]\ncommand = "x"\nargs = []  # none\n')
    inode = config.stat().st_ino
    result = add_server(config, "a", {"command": "x"}, replace=False)
    assert result == EditResult("unchanged", {"command": "x", "args": []})
    assert config.stat().st_ino == inode


@pytest.mark.parametrize("broken", [
    '[servers.a]\ncommand = "x\n', "[servers\n", 'servers = "not a table"\n'])
def test_a_config_that_does_not_parse_is_never_overwritten(tmp_path: Path, broken: str) -> None:
    config = write(tmp_path / "config.toml", broken)
    with pytest.raises(ConfigError, match="the file was not changed"):
        add_server(config, "b", {"command": "y"}, replace=False)
    assert config.read_text() == broken
    with pytest.raises(ConfigError, match="the file was not changed"):
        remove_server(config, "a")
    assert config.read_text() == broken


def test_a_symlinked_config_stays_a_symlink(tmp_path: Path) -> None:
    target = write(tmp_path / "dotfiles" / "mcpctl.toml", "# in my dotfiles\n")
    config = tmp_path / "config" / "config.toml"
    config.parent.mkdir()
    os.symlink(target, config)
    add_server(config, "a", {"command": "x"}, replace=False)
    assert config.is_symlink()
    assert target.read_text() == '# in my dotfiles\n\n[servers.a]\ncommand = "x"\n'


def test_no_temp_files_are_left_behind(tmp_path: Path) -> None:
    config = tmp_path / "folder" / "config.toml"
    add_server(config, "a", {"command": "x"}, replace=False)
    remove_server(config, "a")
    assert sorted(p.name for p in config.parent.iterdir()) == ["config.toml", "config.toml.lock"]


def test_an_inline_servers_table_is_edited_or_refused_never_broken(tmp_path: Path) -> None:
    text = 'servers = { a = { command = "x" } }\n'
    config = write(tmp_path / "config.toml", text)
    with pytest.raises(ConfigError) as raised:
        add_server(config, "b", {"command": "y"}, replace=False)
    assert str(raised.value) == (
        f"{config}: mcpctl cannot change 'b' here without changing what the rest of the file "
        "means (it edits [servers.NAME] tables; write servers that way); the file was not "
        "changed")
    assert config.read_text() == text
    remove_server(config, "a")
    assert tomllib.loads(config.read_text()) == {"servers": {}}


def test_a_sub_table_written_apart_from_its_server_goes_with_it(tmp_path: Path) -> None:
    config = write(tmp_path / "config.toml", (
        '[servers.a]\ncommand = "x"\n\n[other]\nx = 1\n\n[servers.a.env]\nK = "v"\n'))
    remove_server(config, "a")
    assert tomllib.loads(config.read_text()) == {"other": {"x": 1}}


def test_unicode_line_separators_inside_strings_are_not_line_ends(tmp_path: Path) -> None:
    text = '[servers.a]\ncommand = "x"\nargs = ["one\u2028[servers.b]", "\u0085"]\n'
    config = write(tmp_path / "config.toml", text)
    add_server(config, "c", {"command": "z"}, replace=False)
    assert config.read_text(encoding="utf-8") == text + '\n[servers.c]\ncommand = "z"\n'
    remove_server(config, "a")
    assert config.read_text(encoding="utf-8") == '[servers.c]\ncommand = "z"\n'


def test_provenance_lines_count_newlines_only(tmp_path: Path) -> None:
    config = write(tmp_path / "config.toml",
                   '[servers.a]\ncommand = "x\u2028y\u0085z"\n[servers.b]\ncommand = "y"\n')
    assert [(d.name, d.source.line) for d in load_user_tier(config).definitions] == [
        ("a", 1), ("b", 3)]
