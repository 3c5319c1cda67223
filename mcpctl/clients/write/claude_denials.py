"""Claude Code's own tool filter: `permissions.deny` rules in its user settings (issue 29).

Claude Code has no per-server tool list in an MCP entry; its permission rules name a
tool as `mcp__SERVER__TOOL`, and a denied tool is not offered. `sync` (and `export --to
claude-code`) keep one rule per tool that is off under the exported server's
`[tools.NAME]` policy in `<claude config dir>/settings.json`, and take out a rule that
names a tool now on. The file is edited in place like every client file (only the
`deny` list changes; backup, lock, re-read until stable, the result re-parsed).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpctl.clients.files import write_client_file
from mcpctl.clients.table import client_by_id
from mcpctl.clients.write.export import ExportReport, user_servers
from mcpctl.clients.write.parse import read_document
from mcpctl.clients.write.plan import EntryChange, ExportPlan
from mcpctl.clients.write.tool_filters import claude_rules, decided_for, with_rules
from mcpctl.errors import ConfigError, McpctlError

if TYPE_CHECKING:
    from mcpctl.machine import Machine

CLIENT_ID = "claude-code"
_OFF = "permissions.deny: a tool that is off (mcpctl tools)"
_ON_AGAIN = "permissions.deny: a tool that is on again (mcpctl tools)"


def claude_settings(machine: Machine) -> Path:
    """Claude Code's user settings: `CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    folder = machine.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(folder) if folder else machine.home / ".claude") / "settings.json"


def deny_in_claude(machine: Machine, names: list[str] | None = None, *,
                   dry_run: bool) -> ExportReport:
    """Bring the deny rules of the exported servers (`names`, default all) up to date."""
    client = client_by_id(CLIENT_ID)
    if client is None:  # pragma: no cover - a row of the table
        raise LookupError(CLIENT_ID)
    path = claude_settings(machine)
    report = ExportReport(client, path)
    try:
        specs = user_servers(machine.config_file)
        chosen = [specs[n] for n in (names or sorted(specs)) if n in specs]
        wanted, unwanted = claude_rules(decided_for(machine, chosen))

        def compute(old: str | None) -> str:
            data = read_document(client, old, path)
            rules = with_rules(data, wanted, unwanted)
            current = set(_deny(data))
            report.plan = ExportPlan(
                [EntryChange(rule, "added", _OFF) for rule in rules or () if rule not in current]
                + [EntryChange(rule, "removed", _ON_AGAIN)
                   for rule in current if rules is not None and rule not in rules])
            if rules is None:
                return old or ""
            return _edited(old or "", data, rules, path)

        if dry_run:
            from mcpctl.clients.write.diff import masked_diff  # noqa: PLC0415

            old = _text(path)
            new = compute(old)
            if report.plan.writes:
                documents = (read_document(client, old, path), read_document(client, new, path))
                report.diff = masked_diff(old or "", new, str(path), documents)
            return report
        result = write_client_file(
            path, compute, backup_dir=machine.paths.data_dir / "backups" / "claude-settings",
            lock_dir=machine.paths.cache_dir / "locks", now=_now)
        report.path, report.written, report.backup = result.path, result.written, result.backup
    except McpctlError as error:
        report.error = error
    return report


def _deny(data: dict[str, Any]) -> list[str]:
    permissions = data.get("permissions")
    deny = permissions.get("deny") if isinstance(permissions, dict) else None
    return [r for r in deny if isinstance(r, str)] if isinstance(deny, list) else []


def _edited(text: str, data: dict[str, Any], rules: list[str], path: Path) -> str:
    import copy  # noqa: PLC0415
    import json  # noqa: PLC0415

    from mcpctl.syntax.json_edit import json_edit_at  # noqa: PLC0415

    permissions = data.get("permissions", {})
    if not isinstance(permissions, dict):
        raise ConfigError(f"{path}: 'permissions' is not an object; the file was not changed")
    expected = copy.deepcopy(data)
    expected.setdefault("permissions", {})["deny"] = rules
    new = json_edit_at(text, {("permissions",): {"deny": rules}})  # type: ignore[dict-item]
    if json.loads(new) != expected:
        raise ConfigError(f"{path}: the edited file would not mean what was intended; the "
                          "file was not changed (please report this)")
    return new


def _text(path: Path) -> str | None:
    from mcpctl.clients.files import client_text_or_none  # noqa: PLC0415

    return client_text_or_none(path)


def _now() -> Any:
    from datetime import UTC, datetime  # noqa: PLC0415

    return datetime.now(UTC)
