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
    "doctor": "doctor_cmd",
    "check": "check_cmd",
    "clients": "clients_cmd", "import": "import_cmd", "export": "export_cmd",
    "sync": "export_cmd",
}


def register_for(app: typer.Typer, argv: Sequence[str]) -> None:
    first = next((arg for arg in argv if not arg.startswith("-")), None)
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
