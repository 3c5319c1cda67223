"""Options shared by several commands, and the one `Machine` an invocation builds."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from mcpctl.cli.context import context

if TYPE_CHECKING:
    from mcpctl.clients.table import ClientFormat

WorkspaceOption = Annotated[
    Path | None,
    typer.Option(
        "--workspace", "-w", help="Workspace root (default: nearest folder with .git, else cwd).",
        file_okay=False, exists=True,
    ),
]
ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", help="User-tier config file (default: <config dir>/config.toml)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print a JSON document (see schemas/).")]
OutputOption = Annotated[
    str, typer.Option("--output", help="text or json (--output json is --json).",
                      metavar="text|json")
]



def json_output(as_json: bool, output: str) -> bool:
    """`--json`, or `--output json` (the older spelling, still accepted)."""
    from mcpctl.errors import UsageError  # noqa: PLC0415

    if output not in ("text", "json"):
        raise UsageError(f"--output must be text or json, not {output!r}")
    return as_json or output == "json"


__all__ = ["ConfigOption", "JsonOption", "OutputOption", "WorkspaceOption", "context",
           "json_output"]


# ---- other clients' configs: clients, import, export, sync ------------------------------

NamesArgument = Annotated[
    list[str] | None, typer.Argument(help="Server names (default: all).", show_default=False)]
FileOption = Annotated[
    Path | None, typer.Option("--file", help="The client's file (default: where the client "
                              "keeps it on this OS).", dir_okay=False)]
ReplaceOption = Annotated[
    bool, typer.Option("--replace", help="Overwrite a different definition of the same name.")]


def client_help() -> str:
    """The help of an argument or option that names one client."""
    return f"Client: {_known_clients()}."


def client_named(client_id: str) -> ClientFormat:
    """The client `client_id` names; UsageError for an unknown one."""
    from mcpctl.clients.table import client_by_id  # noqa: PLC0415 - only the client commands need it
    from mcpctl.errors import UsageError  # noqa: PLC0415

    client = client_by_id(client_id)
    if client is None:
        raise UsageError(f"unknown client {client_id!r} (known: {_known_clients()})")
    return client


def _known_clients() -> str:
    from mcpctl.clients.table import CLIENT_IDS  # noqa: PLC0415

    return ", ".join(CLIENT_IDS)
