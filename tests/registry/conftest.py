"""The registry tests' loopback registry, serving every captured document."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.registry.registry_server import Registry, all_fixtures, serving


@pytest.fixture
def registry() -> Iterator[Registry]:
    served = Registry()
    served.publish(*all_fixtures())
    with serving(served) as running:
        yield running
