"""What a test needs from the machine, and what happens when it is missing.

Locally a missing component (gnome-keyring, dbus-daemon, node, an npm reference server)
skips the test with the command that installs it. On CI (`CI=true`) it fails the test:
`.ci/run` installs every component, so a green CI must mean every test ran, the
node-only attack cases included (issue 16). Every skip in the suite goes through here;
`tests/test_components.py` fails on any other.
"""

from __future__ import annotations

import os
import shutil
from typing import NoReturn

import pytest


def on_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def missing(component: str, install: str = ".ci/run installs it") -> NoReturn:
    """Skip the test, or fail it on CI, because `component` is missing."""
    message = f"{component} is missing ({install})"
    if on_ci():
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def require_program(name: str) -> str:
    """The path of program `name` on PATH, or `missing` it."""
    path = shutil.which(name)
    if path is None:
        missing(f"{name} (not on PATH)")
    return path
