"""Gemini CLI's folder trust: whether it starts any server in this folder (DESIGN §11).

Measured with Gemini CLI 0.61.0: folder trust is on by default, and in a folder that
is not trusted Gemini starts no server at all, the user's own included. The checks, in
Gemini's order: `GEMINI_RESTRICTED_MODE=true` or `GEMINI_CLI_TRUST_WORKSPACE=false`
(never trusted), `GEMINI_CLI_TRUST_WORKSPACE=true` (trusted), the user settings'
`security.folderTrust.enabled = false` (the feature is off: trusted), then the rules
of `trustedFolders.json` (next to the user settings, or `GEMINI_CLI_TRUSTED_FOLDERS_PATH`),
where the longest matching rule wins: `TRUST_FOLDER` and `DO_NOT_TRUST` name a folder
and what is below it, `TRUST_PARENT` the folder's parent and what is below that.
Paths are compared as real paths. The repo's own settings cannot turn trust off (they
are not read until the folder is trusted).

`folder_trust` is pure; `load_folder_trust` reads the two files.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpctl.model import Problem

RULES = ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST")
OFF_IN_SETTINGS = "folder trust is off in the user settings"


@dataclass(frozen=True)
class FolderTrust:
    trusted: bool
    reason: str
    problems: tuple[Problem, ...] = field(default_factory=tuple)


def folder_trust(root: str, environ: Mapping[str, str], settings: Any,
                 rules: Mapping[str, str]) -> FolderTrust:
    """Is `root` (a real path) trusted? `settings`: the parsed user settings (or None);
    `rules`: trustedFolders.json's rules, their paths already real."""
    if environ.get("GEMINI_RESTRICTED_MODE") == "true":
        return FolderTrust(False, "GEMINI_RESTRICTED_MODE=true")
    if environ.get("GEMINI_CLI_TRUST_WORKSPACE") in ("true", "false"):
        value = environ["GEMINI_CLI_TRUST_WORKSPACE"]
        return FolderTrust(value == "true", f"GEMINI_CLI_TRUST_WORKSPACE={value}")
    if _setting(settings, ("security", "folderTrust", "enabled")) is False:
        return FolderTrust(True, OFF_IN_SETTINGS)
    best: tuple[str, str] | None = None
    for path, rule in rules.items():
        scope = os.path.dirname(path) if rule == "TRUST_PARENT" else path
        if _within(root, scope) and (best is None or len(scope) > len(best[0])):
            best = (scope, rule)
    if best is None:
        return FolderTrust(False, "no rule in trustedFolders.json covers this folder, and "
                                  "folder trust is on by default")
    return FolderTrust(best[1] != "DO_NOT_TRUST", f"trustedFolders.json: {best[1]} for "
                                                  f"{best[0]}")


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _setting(settings: Any, keys: tuple[str, ...]) -> Any:
    for key in keys:
        if not isinstance(settings, Mapping):
            return None
        settings = settings.get(key)
    return settings


def trusted_folders_path(settings_file: Path, environ: Mapping[str, str]) -> Path:
    override = environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
    return Path(override) if override else settings_file.parent / "trustedFolders.json"


def load_folder_trust(root: Path, settings_file: Path,
                      environ: Mapping[str, str]) -> FolderTrust:
    """Edge: read the user settings and trustedFolders.json (JSON with comments). A file
    that cannot be read is a problem and counts as absent; an unknown rule value is a
    problem (Gemini refuses to start with it) and is not applied."""
    problems: list[Problem] = []
    settings = _read(settings_file, problems)
    rules_path = trusted_folders_path(settings_file, environ)
    raw = _read(rules_path, problems)
    rules: dict[str, str] = {}
    if raw is not None and not isinstance(raw, dict):
        problems.append(Problem(rules_path, 1, 1, "trustedFolders.json must be an object of "
                                                  "folder: rule"))
    for path, rule in (raw.items() if isinstance(raw, dict) else ()):
        if rule not in RULES:
            problems.append(Problem(rules_path, 1, 1, f"unknown trust rule for {path!r} "
                                                      f"(known: {', '.join(RULES)})"))
            continue
        rules[os.path.realpath(os.path.expanduser(path))] = rule
    found = folder_trust(os.path.realpath(root), environ, settings, rules)
    return FolderTrust(found.trusted, found.reason, tuple(problems))


def _read(path: Path, problems: list[Problem]) -> Any:
    from mcpctl.clients.files import read_client_text  # noqa: PLC0415
    from mcpctl.syntax import jsonc  # noqa: PLC0415

    if not path.exists():
        return None
    text = read_client_text(path)
    if isinstance(text, Problem):
        problems.append(text)
        return None
    try:
        return jsonc.parse(text, jsonc=True).value
    except jsonc.JsonSyntaxError as error:
        problems.append(Problem(path, error.line, error.column, error.message))
        return None
