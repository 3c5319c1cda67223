"""Which module holds which command; each module has `register(app)`.

Only the module of the command being run is imported and registered: importing and
building every command costs ~20 ms that `list` in a hook or script should not pay.
`--help`, no command, or an unknown word registers them all.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

import typer

MODULES: dict[str, str] = {
    "list": "list_cmd", "show": "list_cmd",
    "add": "add_cmd", "remove": "add_cmd",
    "trust": "trust_cmd", "revoke": "trust_cmd",
    "secret": "secret_cmd",
    "run": "run_cmd",
    "cost": "cost_cmd",
    "tools": "tools_cmd",
    "doctor": "doctor_cmd",
    "check": "check_cmd",
    "clients": "clients_cmd", "import": "import_cmd", "export": "export_cmd",
    "sync": "export_cmd",
    "search": "registry_cmd", "outdated": "registry_cmd", "upgrade": "registry_cmd",
}


def normalised(argv: list[str]) -> list[str]:
    """The command line with older spellings made current, and the neighbours' made
    mcpctl's (`spellings.py`).

    `add --json '{...}'` gave a whole entry before `--json` meant "print JSON" on every
    command. A `--json` followed by a word that starts like a JSON document (`{`, `[`,
    `"`) is still read as the entry (`--entry`); no server name, URL or option starts
    so. Any other `--json` asks for JSON output.
    """
    from mcpctl.cli.spellings import neighbours  # noqa: PLC0415

    argv = neighbours(argv)
    if _first_word(argv) != "add":
        return argv
    words = list(argv)
    end = words.index("--") if "--" in words else len(words)
    for i in range(end):
        word = words[i]
        if word.startswith("--json="):
            words[i] = "--entry=" + word[7:]
        elif word == "--json" and i + 1 < end and words[i + 1].lstrip()[:1] in _DOCUMENT:
            words[i] = "--entry"
    return words


_DOCUMENT = ("{", "[", '"')


def _first_word(argv: Sequence[str]) -> str | None:
    return next((arg for arg in argv if not arg.startswith("-")), None)


def register_for(app: typer.Typer, argv: Sequence[str]) -> None:
    first = _first_word(argv)
    if first in MODULES:
        _register(app, [MODULES[first]])
    else:
        register_all(app)


def register_all(app: typer.Typer) -> None:
    _register(app, list(dict.fromkeys(MODULES.values())))


def _register(app: typer.Typer, modules: list[str]) -> None:
    done: set[str] = app.__dict__.setdefault("_mcpctl_registered", set())
    for name in modules:
        if name not in done:
            importlib.import_module(f"mcpctl.cli.{name}").register(app)
            done.add(name)
