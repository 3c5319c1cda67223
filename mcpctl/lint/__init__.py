"""`mcpctl check`: lint a repo's MCP config files without starting anything (DESIGN §7).

This module is the edge of the linter: it decides which files to check, reads them and
their formats' JSON Schemas, and keeps the findings the settings select. Everything it
calls in `checks` is pure.
"""

import errno
import functools
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from mcpctl.config.formats import WORKSPACE_FORMATS, format_for_path
from mcpctl.config.tier_load import MAX_CONFIG_BYTES, read_file_bytes
from mcpctl.errors import ExitCode, McpctlError, UsageError
from mcpctl.lint.checks import CLAUDE_SETTINGS, lint_bytes
from mcpctl.lint.report import CheckResult
from mcpctl.lint.settings import Selection
from mcpctl.model import Problem

# The schema each workspace format is validated against (schemas/NAME.schema.json).
SCHEMA_NAMES: Mapping[str, str] = {
    "claude": "mcp-json", "mcp.json": "mcp-json", "vscode": "vscode-mcp", "cursor": "cursor-mcp",
    "kiro": "kiro-mcp", "roo": "roo-mcp", "gemini": "gemini-settings", "codex": "codex-config",
    "claude-desktop": "claude-desktop",
}
KINDS = (*(f.id for f in WORKSPACE_FORMATS), CLAUDE_SETTINGS)
_CLAUDE_SETTINGS_FILES = (".claude/settings.json", ".claude/settings.local.json")


class SchemasMissing(McpctlError):
    """The installed package lacks its schemas: a packaging bug, not the user's input."""

    exit_code = ExitCode.INTERNAL


class Target(NamedTuple):
    """A file `check` lints: its path, how it is shown, and its format."""

    path: Path
    shown: str  # as the user wrote it, or relative to the current directory
    kind: str


def kind_for_path(path: str) -> str | None:
    fmt = format_for_path(path)
    if fmt is not None:
        return fmt.id
    normalized = "/" + path.replace("\\", "/")
    return CLAUDE_SETTINGS if normalized.endswith(
        tuple("/" + name for name in _CLAUDE_SETTINGS_FILES)) else None


def find_targets(files: Sequence[str], root: Path, format_of: str | None) -> list[Target]:
    """The named files (format by path or `format_of`), else the workspace's own files."""
    if format_of is not None and format_of not in KINDS:
        raise UsageError(f"--format-of: unknown format {format_of!r} (known: {', '.join(KINDS)})")
    if files:
        return [_named_target(name, format_of) for name in files]
    found = [(root / f.relative_path, f.id) for f in WORKSPACE_FORMATS if not f.any_folder]
    found.append((root / _CLAUDE_SETTINGS_FILES[0], CLAUDE_SETTINGS))
    return [Target(path, _relative(path), kind) for path, kind in found if path.exists()]


def _named_target(name: str, format_of: str | None) -> Target:
    kind = format_of or kind_for_path(name)
    if kind is None:
        raise UsageError(f"cannot tell the format of {name} from its name; pass --format-of "
                         f"({', '.join(KINDS)})")
    return Target(Path(name), name, kind)


def _relative(path: Path) -> str:
    """Relative to the current folder, `..` included, as linters print paths."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)


def check_targets(targets: Sequence[Target], selection: Selection) -> CheckResult:
    result = CheckResult()
    for target in targets:
        data = _read(target.path)
        if isinstance(data, str):
            result.unreadable.append((target.shown, data))
            continue
        result.files.append(target.shown)
        findings = lint_bytes(data, target.kind, target.shown, _schema_for(target.kind),
                              plugin=_in_plugin(target))
        result.findings.extend(f for f in findings if selection.enabled(f.code))
    return result


def _in_plugin(target: Target) -> bool:
    """A `.mcp.json` beside `.claude-plugin/plugin.json`: a plugin's, whose servers may
    stand at the top level (the plugin format's flat form)."""
    return target.kind == "claude" and (
        target.path.parent / ".claude-plugin" / "plugin.json").is_file()


def _read(path: Path) -> bytes | str:
    """The file's bytes, or why they cannot be had: the tiers' own bounded reader, which
    opens first and asks the open file what it is, so a FIFO swapped in after a look at
    the path cannot block the hook."""
    data = read_file_bytes(path, MAX_CONFIG_BYTES)
    if data is None:
        return os.strerror(errno.ENOENT)
    return data.message.removeprefix("cannot read: ") if isinstance(data, Problem) else data


def _schema_for(kind: str) -> Mapping[str, Any] | None:
    name = SCHEMA_NAMES.get(kind)
    return None if name is None else load_schema(name)


@functools.cache
def load_schema(name: str) -> Mapping[str, Any]:
    path = schema_dir() / f"{name}.schema.json"
    try:
        loaded: Mapping[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise SchemasMissing(f"cannot load the {name} schema from {path}: {error}") from None
    return loaded


def schema_dir() -> Path:
    """`mcpctl/schemas` inside an installed wheel, else `schemas/` of a source checkout."""
    package = Path(__file__).resolve().parent.parent
    packaged = package / "schemas"
    return packaged if packaged.is_dir() else package.parent / "schemas"


def cwd_root(workspace: str | None) -> Path:
    """The workspace root: `--workspace`, else the nearest folder holding .git, else cwd."""
    if workspace is not None:
        root = Path(workspace)
        if not root.is_dir():
            raise UsageError(f"--workspace: {workspace} is not a directory")
        return root.resolve()
    from mcpctl.config.workspace import find_workspace_root  # noqa: PLC0415

    return find_workspace_root(Path(os.getcwd()))
