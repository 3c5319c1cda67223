"""Fitting a table to a width: the pure layout behind every table on a terminal."""

from __future__ import annotations

import time

from mcpctl.cli.table_layout import column_widths, table_lines

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
    started = time.perf_counter()
    widths = column_widths(HEADERS, [huge] * 50, 120)
    assert time.perf_counter() - started < 2
    assert widths is not None
    assert sum(widths) + 2 * (len(HEADERS) - 1) <= 120
    assert widths[5] == len(ROW[5])  # SOURCE whole
