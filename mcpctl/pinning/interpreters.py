"""How an interpreter reads its command line: which argument is the program it runs
(which may be a folder: `python3 srvdir`, `node .`) or the Python module (`-m a.b`).

Pure: takes argument texts, returns path texts.
"""

import os
import re
from collections.abc import Iterator, Sequence
from typing import NamedTuple

PROGRAM, MODULE = "program", "module"  # what an interpreter's candidate may be
_PYTHON = re.compile(r"(?:python|pypy)[0-9.]*")


class Interpreter(NamedTuple):
    """How a program that can run a folder (or a module) reads its command line."""

    valued: frozenset[str]  # options whose value is the next argument
    inline: frozenset[str]  # options that give the code inline: no program follows
    module: str = ""  # the option naming a module to run instead of a program
    clustered: str = ""  # short options that take the rest of a cluster (`-um mod`)
    # What the interpreter adds to a program's name that names no file (`node tools/srv`
    # runs tools/srv.js): each is a candidate too, so an excluded folder keeps it pinned.
    suffixes: tuple[str, ...] = ()


_PYTHON_CLI = Interpreter(frozenset({"-W", "-X", "--check-hash-based-pycs"}),
                          frozenset({"-c"}), module="-m", clustered="cmWX")
_NODE_CLI = Interpreter(frozenset({"-r", "--require", "--import", "--loader",
                                   "--experimental-loader", "-C", "--conditions",
                                   "--input-type", "--title"}),
                        frozenset({"-e", "--eval", "-p", "--print"}),
                        suffixes=(".js", ".mjs", ".cjs", ".json", ".node"))
_RUNNER_CLI = Interpreter(frozenset({"-p", "--package"}), frozenset({"-c", "--call"}))
_INTERPRETERS = {"node": _NODE_CLI, "nodejs": _NODE_CLI, "bun": _NODE_CLI,
                 "npx": _RUNNER_CLI, "bunx": _RUNNER_CLI, "pnpx": _RUNNER_CLI}


def interpreter_named(name: str) -> Interpreter | None:
    """The interpreter a program's base name is, if any."""
    return _PYTHON_CLI if _PYTHON.fullmatch(name) else _INTERPRETERS.get(name)


def program_of(args: Sequence[str | None], cli: Interpreter) -> Iterator[tuple[str, str]]:
    """The interpreter's program (which may be a folder) or module: its first non-option."""
    expecting = ""  # the option whose value the next argument is
    for arg in args:
        if arg is None:
            return  # known only at launch
        if expecting:
            if expecting == cli.module:
                yield from _module_stems(arg)
                return
            expecting = ""
            continue
        if not arg.startswith("-") or arg == "-":
            yield arg, PROGRAM
            yield from ((arg + suffix, PROGRAM) for suffix in cli.suffixes)
            return
        option, value = _option(arg, cli)
        if option in cli.inline:
            return
        if option == cli.module and value:
            yield from _module_stems(value)
            return
        if option == cli.module or (option in cli.valued and value is None):
            expecting = option


def _option(arg: str, cli: Interpreter) -> tuple[str, str | None]:
    """(option, the value given in the same argument, if any)."""
    if arg.startswith("--"):
        name, equals, value = arg.partition("=")
        return name, value if equals else None
    for index, letter in enumerate(arg[1:], start=1):
        if letter in cli.clustered:
            return "-" + letter, arg[index + 1:] or None
    return arg, None


def _module_stems(name: str) -> Iterator[tuple[str, str]]:
    """`-m a.b` loads a/__init__, then a/b as a module, or as a package and its __main__."""
    parts = name.split(".")
    if not all(part.isidentifier() for part in parts):
        return
    for depth in range(1, len(parts)):
        yield os.path.join(*parts[:depth], "__init__"), MODULE
    yield os.path.join(*parts), MODULE
    yield os.path.join(*parts, "__init__"), MODULE
    yield os.path.join(*parts, "__main__"), MODULE
