"""Load both tiers and merge them: what `list`, `show` and every launch look at."""

import os
from pathlib import Path
from typing import NamedTuple

from mcpctl.config.merge import MergedServer, merge
from mcpctl.config.tier_load import TierLoad
from mcpctl.config.user_config import load_user_tier
from mcpctl.config.workspace import load_workspace
from mcpctl.machine import Machine
from mcpctl.model import Problem, Tier


class View(NamedTuple):
    """The tiers merged for one workspace: every server by name, and the problems."""

    root: Path
    config_file: Path
    servers: list[MergedServer]
    problems: list[Problem]
    files: tuple[Path, ...] = ()  # the workspace files read


def load_view(root: Path, config_file: Path, tiers: frozenset[Tier] | None = None,
              here: Path | None = None) -> View:
    """`here`: read the workspace as each client does from that folder (`load_workspace`)."""
    loads = TierLoad()
    if tiers is None or Tier.USER in tiers:
        loads.extend(load_user_tier(config_file, root))
    files: tuple[Path, ...] = ()
    if tiers is None or Tier.WORKSPACE in tiers:
        workspace = load_workspace(root, here)
        loads.extend(workspace)
        files = tuple(workspace.files)
    return View(root, config_file, merge(loads.definitions), loads.problems, files)


def view_here(machine: Machine, tiers: frozenset[Tier] | None = None) -> View:
    """The view `list`, `show` and `trust` take: without `-w`, the workspace as each
    client reads it from the current folder (issue 22 item 2); with it, the root's files."""
    return load_view(machine.root, machine.config_file, tiers, reading_from(machine))


def reading_from(machine: Machine) -> Path | None:
    """The current folder, real, when the clients' reading rule applies: no `-w`, and
    the folder is the root or inside it."""
    if machine.root_given:
        return None
    here = Path(os.path.realpath(machine.cwd))
    return here if here == machine.root or machine.root in here.parents else None
