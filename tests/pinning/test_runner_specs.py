"""The narrow pin set needs the whole package spec to be NAME@X.Y.Z (or NAME==X.Y.Z):
anything after the version makes it another spec, whose code may come from anywhere
(issue 30: planted by hand, `_NPM_PACKAGE.match` or `_PY_PACKAGE.match` in place of
`fullmatch` gave these specs the narrow set)."""

from __future__ import annotations

import pytest

from mcpctl.pinning.runner_inputs import runner_inputs

PATH = "/usr/bin:/bin"


@pytest.mark.parametrize("spec", ["left-pad@1.3.0/../../tools", "left-pad@1.3.0@latest",
                                  "left-pad@1.3.0:tag", "@scope/pkg@1.2.3#main",
                                  "left-pad@1.3.0 ./x", "left-pad@1.3.0/"])
def test_an_npx_spec_with_more_after_its_version_pins_the_whole_workspace(spec: str) -> None:
    assert runner_inputs(["npx", "-y", spec], {}, PATH, has_cwd=False) is None


@pytest.mark.parametrize("spec", ["ruff==0.6.1;python_version>'3'", "ruff==0.6.1 ./x",
                                  "ruff@0.6.1/../x", "ruff==0.6.1==0.7.0"])
def test_a_uvx_spec_with_more_after_its_version_pins_the_whole_workspace(spec: str) -> None:
    assert runner_inputs(["uvx", spec], {}, PATH, has_cwd=False) is None


@pytest.mark.parametrize(("argv", "runner"), [
    (["npx", "-y", "left-pad@1.3.0"], "npx"), (["npx", "@scope/pkg@1.2.3-rc.1"], "npx"),
    (["uvx", "ruff==0.6.1"], "uvx"), (["uvx", "ruff@0.6.1"], "uvx"),
])
def test_an_exact_spec_keeps_the_narrow_set(argv: list[str], runner: str) -> None:
    inputs = runner_inputs(argv, {}, PATH, has_cwd=False)
    assert inputs is not None
    assert (inputs.runner, inputs.package) == (runner, argv[-1])
