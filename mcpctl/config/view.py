"""Load both tiers and merge them: what `list`, `show` and every launch look at."""

from pathlib import Path
from typing import NamedTuple

from mcpctl.config.merge import MergedServer, merge
from mcpctl.config.tier_load import TierLoad
from mcpctl.config.user_config import load_user_tier
from mcpctl.config.workspace import load_workspace
from mcpctl.model import Problem, Tier


class View(NamedTuple):
    """The tiers merged for one workspace: every server by name, and the problems."""

    root: Path
    config_file: Path
    servers: list[MergedServer]
    problems: list[Problem]


def load_view(root: Path, config_file: Path, tiers: frozenset[Tier] | None = None) -> View:
    loads = TierLoad()
    if tiers is None or Tier.USER in tiers:
        loads.extend(load_user_tier(config_file, root))
    if tiers is None or Tier.WORKSPACE in tiers:
        loads.extend(load_workspace(root))
    return View(root, config_file, merge(loads.definitions), loads.problems)
