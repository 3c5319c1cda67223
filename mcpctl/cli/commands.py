"""The list of command modules; each has `register(app)`."""

from __future__ import annotations

import typer


def register_all(app: typer.Typer) -> None:
    if getattr(app, "_mcpctl_registered", False):
        return
    from mcpctl.cli import (  # noqa: PLC0415
        add_cmd,
        list_cmd,
        run_cmd,
        secret_cmd,
        trust_cmd,
    )

    for module in (list_cmd, add_cmd, trust_cmd, secret_cmd, run_cmd):
        module.register(app)
    app._mcpctl_registered = True  # type: ignore[attr-defined]
