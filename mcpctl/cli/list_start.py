"""`mcpctl list` and `mcpctl show NAME` without typer: the common line parsed by hand,
the report built and printed here.

Scripts, hooks and editors run `list` often, and typer alone costs several times a bare
interpreter (issue 15), so `cli/main.py` sends the common lines here: `list` with
`--json`, `--tier user|workspace`, `--needs-attention`, `-w`/`--workspace PATH` and
`--config PATH`; `show NAME` with `--json`, `-w`/`--workspace` and `--config`. Anything
else (`--help`, a typo, a repeated option, a workspace that is not a folder) goes to
the typer commands in `list_cmd.py`, which give the usual help and errors and call the
same functions, so both print the same bytes (`tests/cli/test_list_fast.py`).
"""

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from mcpctl.cli import render
from mcpctl.cli.context import context
from mcpctl.cli.hand_parse import parse_common
from mcpctl.model import Tier
from mcpctl.reports import listing
from mcpctl.reports.file_syntax import field_line
from mcpctl.reports.servers import list_report, show_report
from mcpctl.variables import references_in

if TYPE_CHECKING:
    from mcpctl.clients.guard_words import GuardState
    from mcpctl.clients.precedence import RepoStarter
    from mcpctl.config.merge import MergedServer
    from mcpctl.model import ServerSpec
    from mcpctl.reports.servers import Listing, ServerDetail
    from mcpctl.trust.status import Status

_FLAGS = {"--json": "as_json", "--needs-attention": "needs_attention"}
_VALUED = {"-w": "workspace", "--workspace": "workspace", "--config": "config",
           "--tier": "tier"}
_TIERS = ("user", "workspace")  # list's --tier choices (ListedTier in list_cmd.py)


class ListLine(NamedTuple):
    """A `list` or `show` command line as typer would have parsed it."""

    command: str  # "list" or "show"
    name: str | None = None  # show's server
    as_json: bool = False
    needs_attention: bool = False
    tier: Tier | None = None
    workspace: Path | None = None
    config: Path | None = None


def parse_fast(command: str, args: Sequence[str]) -> ListLine | None:
    """`list`'s or `show`'s arguments parsed without typer; None when the line needs
    typer's parser (or its errors)."""
    flags, valued = dict(_FLAGS), dict(_VALUED)
    if command == "show":
        del flags["--needs-attention"], valued["--tier"]
    line = parse_common(args, flags, valued, takes_name=command == "show")
    if line is None or (command == "show" and line.name is None):
        return None
    tier = line.values.get("tier")
    if tier is not None and tier not in _TIERS:
        return None
    return ListLine(command, line.name, "as_json" in line.flags,
                    "needs_attention" in line.flags, Tier(tier) if tier else None,
                    line.path("workspace"), line.path("config"))


def run_line(line: ListLine) -> int:
    if line.name is not None:  # `show NAME` (a `list` line has no name)
        return show_servers(line.name, line.workspace, line.config, as_json=line.as_json)
    return list_servers(line.workspace, line.config, as_json=line.as_json, tier=line.tier,
                        needs_attention=line.needs_attention)


def list_servers(workspace: Path | None, config: Path | None, *, as_json: bool,
                 tier: Tier | None, needs_attention: bool) -> int:
    report = list_report(context(workspace, config), tier, needs_attention=needs_attention,
                         shown=render.display_path)
    return render.emit(report, as_json, print_listing)


def show_servers(name: str, workspace: Path | None, config: Path | None, *,
                 as_json: bool) -> int:
    return render.emit(show_report(context(workspace, config), name), as_json, print_detail)


def _cost_cell(probe: dict[str, Any] | None) -> str:
    if probe is None:
        return "-"
    on = f", {probe['tools_on']} on ({probe['tokens_on']:,} tok)" if "tools_on" in probe else ""
    return (f"{probe['tokens']:,} tok, {probe['tools']} tools{on} "
            f"({render.age(probe['age_seconds'])} ago)")


def print_listing(listed: "Listing") -> None:
    from mcpctl.clients.guarded import ENABLE_FIX  # noqa: PLC0415

    _print_rows(listed.rows, listed.probes)
    for definition, found in listed.starters.items_by_definition(listed.servers):
        for starter in found:
            render.warn(f"note: {render.display_path(definition.source.path)}:"
                        f"{definition.source.line}: {definition.name!r} is shadowed by "
                        f"the user tier here, but: {starter.why}")
    claude = listed.guards.get("claude-code")
    for name in listed.unguarded:
        if claude is not None and claude.state == "guarded":
            render.warn(f"warning: Claude Code does not start .mcp.json server {name!r}: it "
                        "is not wired through mcpctl's gate yet, and Claude Code's allowlist "
                        "blocks it; run `mcpctl sync`")
        else:
            render.warn(f"warning: Claude Code would start .mcp.json server {name!r} without "
                        "mcpctl's gate: it is not wired yet; run `mcpctl sync`")
    # Said once the user asked for the guard (claude-code in [clients] sync); `clients`
    # and --json say it always.
    if claude is not None and claude.state == "not guarded" and claude.fix != ENABLE_FIX \
            and any(
            row.definition.source.path.name == ".mcp.json" for row in listed.rows):
        fix = f"; to guard it: {claude.fix}" if claude.fix else ""
        render.warn(f"note: Claude Code is not guarded here: {claude.how}{fix}")
    for also in listed.also:
        where = render.display_path(also.path)
        names = ", ".join(also.servers) if also.servers else (
            "none" if also.servers is not None else "mcpctl cannot read it")
        render.warn(f"note: Claude Code here also reads {where} (servers: {names}), which "
                    f"this list does not show; see it with `mcpctl list -w "
                    f"{render.display_path(also.path.parent)}`")
    for approval in listed.weak:
        render.warn(f"warning: {render.display_path(approval.path)}:{approval.line}: "
                    f"{approval.message()}")


def _print_rows(rows: list[listing.Row], probes: dict[str, dict[str, Any] | None]) -> None:
    table: list[list[str]] = []
    for row in rows:
        source = f"{render.display_path(row.definition.source.path)}:{row.definition.source.line}"
        state = row.state
        if row.shadowed_by is not None:
            by = row.shadowed_by
            state = f"shadowed by {render.display_path(by.path)}:{by.line}"
        elif row.note:
            state = f"{row.state} ({row.note})"
        cost = "" if row.shadowed_by is not None else _cost_cell(probes.get(row.name))
        if "origin" in row.definition.spec.extra:
            source += _origin_note(row.definition.spec)
        table.append([row.name, row.definition.source.tier.value, state,
                      row.definition.spec.transport.value,
                      listing.command_line(row.definition.spec), source, cost])
    if not table:
        render.say("no servers")
        return
    # print_table fits it to a terminal: COMMAND cut in the middle, NAME and SOURCE never.
    render.print_table(["NAME", "TIER", "STATE", "TRANSPORT", "COMMAND", "SOURCE", "COST"],
                       table)


def _origin_note(spec: "ServerSpec", *, where: bool = False) -> str:
    """` from NAME@VERSION` for an entry `add --from-registry` made (issue 28)."""
    from mcpctl.config.origin import origin_of  # noqa: PLC0415 - only such entries pay
    from mcpctl.reports.printable import printable  # noqa: PLC0415

    origin = origin_of(spec)
    if origin is None:
        return ""
    source = f" ({printable(origin.registry or origin.file or '')})" if where else ""
    return f" from {printable(origin.name)}@{printable(origin.version)}" + source


def print_detail(detail: "ServerDetail") -> None:
    for row, status, guard in zip(detail.rows, detail.statuses, detail.guards, strict=True):
        _print_definition(row, detail.server, status, detail.starters.of(row.definition),
                          guard)


def _print_definition(row: listing.Row, server: "MergedServer", status: "Status",
                      starters: "list[RepoStarter]", guard: "GuardState | None") -> None:
    spec = row.definition.spec
    source = row.definition.source
    render.say(f"{spec.name}  [{source.tier.value}] {render.display_path(source.path)}:"
               f"{source.line}")
    for line in listing.layer_lines(source, render.display_path):
        render.say(f"  merged:    {line}")
    if row.shadowed_by is None:
        render.say(f"  state:     {row.state}{f' ({row.note})' if row.note else ''}")
        render.say(f"  wins:      {listing.why_wins(server)}")
    else:
        by = row.shadowed_by
        render.say(f"  state:     shadowed by {render.display_path(by.path)}:{by.line}")
        for starter in starters:
            render.say(f"  clients:   {starter.why}")
    render.say(f"  transport: {spec.transport.value}")
    for label, value in listing.spec_lines(spec):
        render.say(f"  {label + ':':<10} {value}")
    for key, value in spec.extra.items():
        if key == "origin" and source.tier == Tier.USER and _origin_note(spec):
            render.say(f"  from:      {_origin_note(spec, where=True).removeprefix(' from ')}")
            continue
        render.say(f"  other:     {field_line(key, value, source.tier)}")
    refs = references_in(spec)
    if refs:
        render.say("  variables: " + ", ".join(f"{r.text} ({r.kind.value})" for r in refs))
    # Always, unlike `list`'s note: `show` is where one looks before approving, and a
    # client that starts the definition past the gate is said to (issue 22 item 5).
    if guard is not None:
        fix = f"; to guard it: {guard.fix}" if guard.fix else ""
        render.say(f"  guard:     {guard.client} {guard.state} ({guard.how}{fix})")
    _print_trust(status)


def _print_trust(status: "Status") -> None:
    render.say(f"  fingerprint: {status.fingerprint}")
    covers = f", {status.pins.describe()}" if status.pins is not None else ""
    render.say("    made of: transport, command, args, env pairs, cwd, envFile, url, "
               "header pairs" + covers + ("; names:" if status.files else ""))
    for path, digest in status.files:
        render.say(f"      {path} {digest}")
    if status.approval is not None:
        render.say(f"  approved:  {status.approval.approved_at} at "
                   f"{status.approval.fingerprint}")
    if status.changes:
        render.say("  changed since approval:")
        for change in status.changes:
            render.say(f"    {change}")
    render.say()
