"""How an interpreter's command line names what it runs (`pinning/interpreters.py`), as
the pin set reads it: pure, argument texts in, candidate texts out."""

from __future__ import annotations

import pytest

from mcpctl.pinning.interpreters import (
    MODULE,
    PROGRAM,
    Interpreter,
    interpreter_named,
    program_of,
)


def python() -> Interpreter:
    found = interpreter_named("python3")
    assert found is not None
    return found


@pytest.mark.parametrize("name", ["tools/srv", "../tools.srv", "tools..srv", "1tools.srv",
                                  ""])
def test_a_module_name_python_cannot_import_names_no_file(name: str) -> None:
    """`python3 -m tools/srv` ends in "No module named": it loads no file, so none is a
    candidate. Planted by hand: without the check that each part is a name
    (`interpreters.py:85`), `tools/srv` became the stem `tools/srv` and `../tools.srv`
    one outside the folder."""
    assert list(program_of(["-m", name], python())) == []


def test_a_long_option_is_never_read_as_a_cluster_of_short_ones() -> None:
    """`--check-hash-based-pycs default` takes the next argument; its letters are not
    `-c` with code after it. Planted by hand: with long options read as clusters
    (`interpreters.py:73`) the program after them was never found (`-c` ends the
    command line), so it went unpinned."""
    assert list(program_of(["--check-hash-based-pycs", "default", "tools/srv"], python())) \
        == [("tools/srv", PROGRAM)]
    assert list(program_of(["-Wignore", "-mtools.srv"], python())) == [
        ("tools/__init__", MODULE), ("tools/srv", MODULE), ("tools/srv/__init__", MODULE),
        ("tools/srv/__main__", MODULE)]


@pytest.mark.parametrize("args", [[None, "srv.py"], ["-m", None]],
                         ids=["before-the-program", "the-module"])
def test_an_argument_known_only_at_launch_ends_the_search(args: list[str | None]) -> None:
    """An argument an unset variable or a secret leaves unknown here could be anything,
    the program itself: nothing after it is taken for the program. Planted by hand:
    without that stop (`interpreters.py:49`) an unknown argument was read as text (an
    AttributeError, which `trust` would end in exit 70)."""
    assert list(program_of(args, python())) == []
