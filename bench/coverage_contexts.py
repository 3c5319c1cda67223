"""A pytest plugin for `bench/coverage_map.py` and the mutants' runs (`-p
bench.coverage_contexts`, never in the suite's own runs).

While the map is made, each test runs with `STRUCTURAL_MUTATION_TEST` set to its node
id, so every Python process the test starts (`python -m mcpctl`, the console script, a
server written in the test) reads it as its coverage context at start-up (the map's
coverage configuration names it). The test's own process records the test by
coverage's `test_function` context.

While the map is made, `--test-durations FILE` also records how long each test took
(setup, call and teardown, as the controller hears of them under xdist), so a mutant's
tests can run quickest first.

For a mutant, `--mutant-tests FILE` keeps only the tests the file names (one node id a
line), in the file's order, and deselects the rest: with `-x` the run ends at the first
failure, so a quick test that kills it ends the run soonest. A node id may hold the
checkout's own path (a test parametrized by `sys.executable`), which differs between
the copy the map was made in and the copy a mutant runs in: both sides write it as
`ROOT`. A line without parameters names every parametrization of that test. A name
that matches nothing is skipped, never an error that could pass for a killed mutant.
"""

from __future__ import annotations

import json
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
                     help="run only the tests this file names (one node id a line), in "
                          "its order")
    parser.addoption("--test-durations", default=None,
                     help="write each test's seconds to this file (JSON) at the end")


# Last: after the suite's own conftest has put its long files first (an order for
# workers sharing the whole suite, not for one process that stops at a failure).
@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    listing = config.getoption("--mutant-tests")
    if listing is None:
        return
    with open(listing, encoding="utf-8") as file:
        names = [line.rstrip("\n") for line in file if line.strip()]
    rank = {name: index for index, name in reversed(list(enumerate(names)))}
    root = str(config.rootpath)
    kept: list[tuple[int, pytest.Item]] = []
    dropped: list[pytest.Item] = []
    for item in items:
        nodeid = portable(item.nodeid, root)
        place = rank.get(nodeid, rank.get(nodeid.split("[", 1)[0]))
        if place is None:
            dropped.append(item)
        else:
            kept.append((place, item))
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    kept.sort(key=lambda pair: pair[0])  # stable: a test's parametrizations stay in order
    items[:] = [item for _, item in kept]


_SECONDS: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _SECONDS[report.nodeid] = _SECONDS.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = session.config.getoption("--test-durations")
    if path is not None and not hasattr(session.config, "workerinput"):  # the controller's
        root = str(session.config.rootpath)
        with open(path, "w", encoding="utf-8") as file:
            json.dump({portable(nodeid, root): round(seconds, 3)
                       for nodeid, seconds in _SECONDS.items()}, file)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None
                            ) -> Generator[None, object, object]:
    del nextitem  # the hook's signature; only the running test is named
    os.environ[VARIABLE] = item.nodeid
    try:
        return (yield)
    finally:
        os.environ.pop(VARIABLE, None)
