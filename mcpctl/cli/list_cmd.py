"""`mcpctl list` and `mcpctl show NAME`: the typer commands (help, errors); the work
is in `list_start.py`, which the common lines reach without typer."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from mcpctl.cli.options import ConfigOption, JsonOption, WorkspaceOption
from mcpctl.model import Tier


def register(app: typer.Typer) -> None:
    app.command("list")(list_command)
    app.command("show")(show_command)


class ListedTier(StrEnum):
    """The tiers `list` merges; the client tier is `mcpctl clients`' (it was accepted
    here and listed nothing, issue 15)."""

    USER = "user"
    WORKSPACE = "workspace"


def list_command(
    workspace: WorkspaceOption = None,
    config: ConfigOption = None,
    as_json: JsonOption = False,
    tier: Annotated[
        ListedTier | None, typer.Option("--tier", help="Only this tier: user or workspace "
                                        "(what other clients start: mcpctl clients).")
    ] = None,
    needs_attention: Annotated[
        bool, typer.Option("--needs-attention",
                           help="Exit 1 when a workspace server is untrusted, changed or "
                                "unpinnable, or approved by name by another client "
                                "(for onboarding scripts and CI).")
    ] = False,
) -> int:
    """List every server that would run here, with its tier, state and source.

    Shadowed definitions are listed too, with what shadows them. States: user,
    trusted, untrusted, changed (with what changed), unpinnable (names more workspace
    code than mcpctl can pin), shadowed. COST is the last probe's (see: mcpctl cost),
    read without starting anything. Exit 3 when a config file or the trust store is
    invalid (the rest is still listed); with --needs-attention, exit 1 when a
    workspace server is untrusted, changed or unpinnable, or approved by name only
    by another client.

    Example: mcpctl list --workspace ~/src/project --json
    """

    from mcpctl.cli.list_start import list_servers  # noqa: PLC0415

    return list_servers(workspace, config, as_json=as_json, tier=Tier(tier) if tier else None,
                        needs_attention=needs_attention)


def show_command(
    name: Annotated[str, typer.Argument(help="Server name.")],
    workspace: WorkspaceOption = None,
    config: ConfigOption = None,
    as_json: JsonOption = False,
) -> int:
    """Show everything about one server: each definition, which wins and why.

    Example: mcpctl show github --json
    """

    from mcpctl.cli.list_start import show_servers  # noqa: PLC0415

    return show_servers(name, workspace, config, as_json=as_json)
