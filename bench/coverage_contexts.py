"""A pytest plugin for `bench/coverage_map.py` and the mutants' runs (`-p
bench.coverage_contexts`, never in the suite's own runs).

While the map is made, each test runs with `STRUCTURAL_MUTATION_TEST` set to its node
id, so every Python process the test starts (`python -m mcpctl`, the console script, a
server written in the test) reads it as its coverage context at start-up (the map's
coverage configuration names it). The test's own process records the test by
coverage's `test_function` context.

For a mutant, `--mutant-tests FILE` keeps only the tests the file names (one node id a
line) and deselects the rest. A node id may hold the checkout's own path (a test
parametrized by `sys.executable`), which differs between the copy the map was made in
and the copy a mutant runs in: both sides write it as `ROOT`. A line without
parameters names every parametrization of that test. A name that matches nothing is
skipped, never an error that could pass for a killed mutant.
"""

from __future__ import annotations

import os
from collections.abc import Generator

import pytest

VARIABLE = "STRUCTURAL_MUTATION_TEST"
ROOT = "<checkout>"


def portable(nodeid: str, root: str) -> str:
    """The node id with the checkout's path written as ROOT."""
    return nodeid.replace(root, ROOT)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--mutant-tests", default=None,
                     help="run only the tests this file names (one node id a line)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    listing = config.getoption("--mutant-tests")
    if listing is None:
        return
    with open(listing, encoding="utf-8") as file:
        wanted = {line.rstrip("\n") for line in file if line.strip()}
    root = str(config.rootpath)
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        nodeid = portable(item.nodeid, root)
        chosen = nodeid in wanted or nodeid.split("[", 1)[0] in wanted
        (kept if chosen else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None
                            ) -> Generator[None, object, object]:
    del nextitem  # the hook's signature; only the running test is named
    os.environ[VARIABLE] = item.nodeid
    try:
        return (yield)
    finally:
        os.environ.pop(VARIABLE, None)
