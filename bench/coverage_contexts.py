"""A pytest plugin for `bench/coverage_map.py`: names the running test in the environment.

Loaded with `-p bench.coverage_contexts` only while the coverage map is made. Each test
runs with `STRUCTURAL_MUTATION_TEST` set to its node id, so every Python process the
test starts (`python -m mcpctl`, the console script, a server written in the test)
reads it as its coverage context at start-up (the map's coverage configuration names
it). The test's own process records the test by coverage's `test_function` context.
"""

from __future__ import annotations

import os
from collections.abc import Generator

import pytest

VARIABLE = "STRUCTURAL_MUTATION_TEST"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None
                            ) -> Generator[None, object, object]:
    del nextitem  # the hook's signature; only the running test is named
    os.environ[VARIABLE] = item.nodeid
    try:
        return (yield)
    finally:
        os.environ.pop(VARIABLE, None)
