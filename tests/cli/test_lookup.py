"""The one "no server named X" lookup: every command that takes a name says the same,
with the closest name as a suggestion, in bounded time."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpctl.config.merge import closest
from tests.conftest import Cli
from tests.tier_files import make_workspace, write_servers


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = make_workspace(tmp_path, {}, name="ws")
    write_servers(root, {"github": {"command": "gh-mcp"}, "memory": {"command": "mem"}})
    return root


@pytest.mark.parametrize("command", [["show"], ["run"], ["cost"], ["doctor"],
                                     ["trust", "--yes"]])
def test_every_command_that_takes_a_name_suggests_the_closest(
    cli: Cli, ws: Path, command: list[str]
) -> None:
    result = cli(*command, "githb", "-w", str(ws))
    assert (result.code, result.out) == (2, "")
    assert result.err == ("mcpctl: error: no server named 'githb' here (did you mean "
                          "'github'?) (see: mcpctl list)\n")


def test_no_suggestion_when_nothing_is_close(cli: Cli, ws: Path) -> None:
    result = cli("show", "zzzz", "-w", str(ws))
    assert result.err == "mcpctl: error: no server named 'zzzz' here (see: mcpctl list)\n"


# A general similarity (difflib's ratio) takes time of the product of the lengths:
# these two 20,000-character names (the same distinct characters, reordered) take over
# three minutes with it on a 2-core machine; never compared, they take microseconds.
@pytest.mark.timeout(30)
def test_long_names_are_never_compared() -> None:
    name = "".join(chr(0x4E00 + i) for i in range(20_000))
    asked = name[1::2] + name[0::2]
    assert closest(asked, [name, "github"]) is None
    assert closest("githb", [name, "github"]) == "github"


# 10,000 names of 64 distinct characters, each a rotation of the alphabet asked for:
# with difflib every one costs a full comparison (about 20 s in all). The banded edit
# distance costs 64 x 7 steps per name, over the first 1,000 only: 0.01 s idle. Its
# steps are loop iterations, not calls (tests/work.py cannot count them), so the bound
# is the test's own, 1,000x the idle time and half the slow one.
@pytest.mark.timeout(10)
def test_many_similar_names_are_compared_in_bounded_time() -> None:
    letters = [chr(0x4E00 + i) for i in range(64)]
    names = ["".join(letters[i:] + letters[:i]) for i in range(64)] * 157
    asked = "".join(letters[1::2] + letters[0::2])
    assert closest(asked, names) is None


@pytest.mark.parametrize(("asked", "names", "suggested"), [
    ("githb", ["github", "memory"], "github"),  # one deletion
    ("memroy", ["github", "memory"], "memory"),  # two replacements
    ("gihtub", ["github"], "github"),
    ("gh", ["ghx", "gy"], "ghx"),  # equals: the first
    ("zzzz", ["github"], None),
    ("abcdef", ["badcfe"], None),  # more than a third of the name changed
])
def test_closest_is_the_fewest_edits_away(asked: str, names: list[str],
                                          suggested: str | None) -> None:
    assert closest(asked, names) == suggested
