"""Placeholder secret detector (to be replaced by the full detector)."""

from __future__ import annotations

import re

_PREFIXES = re.compile(r"^(ghp_|gho_|github_pat_|sk-|xox[abp]-|AKIA|glpat-|AIza)")


def looks_secret(value: str) -> bool:
    return bool(_PREFIXES.match(value))


def mask(value: str) -> str:
    return value[:4] + "…"
