"""Fitting a table to a width: the pure layout behind every table on a terminal."""

from __future__ import annotations

from mcpctl.cli.table_layout import column_widths, table_lines
from tests.work import calls_made

HEADERS = ["NAME", "TIER", "STATE", "TRANSPORT", "COMMAND", "SOURCE", "COST"]
ROW = ["github", "user", "user", "stdio", "docker run -i --rm ghcr.io/github/server:v1",
       "~/.config/mcpctl/config.toml:4", "-"]


def test_a_table_that_fits_is_left_alone() -> None:
    assert table_lines(HEADERS, [ROW], 200) == [
        "NAME    TIER  STATE  TRANSPORT  COMMAND                                      "
        "SOURCE                          COST",
        "github  user  user   stdio      docker run -i --rm ghcr.io/github/server:v1  "
        "~/.config/mcpctl/config.toml:4  -",
    ]


def test_narrower_the_command_is_cut_in_the_middle_and_implied_columns_go() -> None:
    lines = table_lines(HEADERS, [ROW], 80)
    assert lines == [
        "NAME    TIER  STATE  COMMAND                SOURCE                          COST",
        "github  user  user   docker run…/server:v1  ~/.config/mcpctl/config.toml:4  -",
    ]


def test_too_narrow_every_row_is_a_block_with_name_and_source_whole() -> None:
    assert table_lines(HEADERS, [ROW, ROW], 40) == [
        "github",
        "  TIER       user",
        "  STATE      user",
        "  TRANSPORT  stdio",
        "  COMMAND    docker run -i…hub/server:v1",
        "  SOURCE     ~/.config/mcpctl/config.toml:4",
        "  COST       -",
        "",
        "github",
        "  TIER       user",
        "  STATE      user",
        "  TRANSPORT  stdio",
        "  COMMAND    docker run -i…hub/server:v1",
        "  SOURCE     ~/.config/mcpctl/config.toml:4",
        "  COST       -",
    ]


def test_a_megabyte_cell_is_fitted_in_a_few_passes() -> None:
    huge = [*ROW[:4], "x" * 1_000_000, *ROW[5:]]
    small = [*ROW[:4], "x" * 1_000, *ROW[5:]]
    _, kilobyte = calls_made(lambda: column_widths(HEADERS, [small] * 50, 120))
    widths, megabyte = calls_made(lambda: column_widths(HEADERS, [huge] * 50, 120))
    # Counted, not timed (tests/work.py): a search over widths halves the range at each
    # pass, so a cell 1,000x longer costs twice the passes, not 1,000x.
    assert megabyte <= 3 * kilobyte, (megabyte, kilobyte)
    assert widths is not None
    assert sum(widths) + 2 * (len(HEADERS) - 1) <= 120
    assert widths[5] == len(ROW[5])  # SOURCE whole
