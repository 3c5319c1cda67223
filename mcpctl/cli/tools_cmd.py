"""`mcpctl tools NAME`: a server's tools with their cost and annotations, and switching
them on and off (`[tools.NAME]` in config.toml; issue 29)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from mcpctl.cli import render
from mcpctl.cli.cost_cmd import InsecureOption, TimeoutOption
from mcpctl.cli.options import ConfigOption, JsonOption, WorkspaceOption, context

if TYPE_CHECKING:
    from mcpctl.machine import Machine
    from mcpctl.probing.servers import ProbeOptions


def register(app: typer.Typer) -> None:
    app.command("tools")(tools_command)


def _words(values: list[str] | None) -> tuple[str, ...]:
    return tuple(word.strip() for value in values or () for word in value.split(",")
                 if word.strip())


def tools_command(
    name: Annotated[str | None, typer.Argument(
        help="The server (none with --global-budget).", show_default=False)] = None,
    disable: Annotated[list[str] | None, typer.Option(
        "--disable", metavar="TOOL", help="Switch these tools off (names or patterns: *, ?, "
        "[...]; repeat it, or separate with commas).")] = None,
    enable: Annotated[list[str] | None, typer.Option(
        "--enable", metavar="TOOL", help="Switch these tools on (beats a pattern that "
        "disables them, an --only, the budget and the annotation rules).")] = None,
    only: Annotated[list[str] | None, typer.Option(
        "--only", metavar="TOOL", help="Only these tools are on (tools the server adds "
        "later start off).")] = None,
    budget: Annotated[int | None, typer.Option(
        "--budget", min=0, max=10_000_000, metavar="TOKENS",
        help="Keep the tools that fit in this many tokens: enabled ones first, then the "
        "cheapest.")] = None,
    no_budget: Annotated[bool, typer.Option("--no-budget", help="Drop the budget.")] = False,
    global_budget: Annotated[int | None, typer.Option(
        "--global-budget", min=0, max=10_000_000, metavar="TOKENS",
        help="Keep this many tokens for every server here together: split now (enabled "
        "tools first, then the cheapest of all) into each server's own --budget, and "
        "again at each tools, cost and sync, so a server added later is inside it.")] = None,
    no_global_budget: Annotated[bool, typer.Option(
        "--no-global-budget", help="Drop the global budget and the budgets it set.")
    ] = False,
    deny_destructive: Annotated[bool | None, typer.Option(
        "--deny-destructive/--allow-destructive",
        help="Switch off tools whose destructiveHint is true or missing (the spec's "
        "default), unless --enable names them.", show_default=False)] = None,
    deny_open_world: Annotated[bool | None, typer.Option(
        "--deny-open-world/--allow-open-world",
        help="Switch off tools whose openWorldHint is true or missing.",
        show_default=False)] = None,
    reset: Annotated[bool, typer.Option("--reset", help="Forget the policy: every tool on.")
                     ] = False,
    refresh: Annotated[bool, typer.Option("--refresh", help="Probe again instead of using "
                                          "the last cached probe.")] = False,
    timeout: TimeoutOption = None,
    allow_insecure: InsecureOption = False,
    workspace: WorkspaceOption = None,
    config: ConfigOption = None,
    as_json: JsonOption = False,
) -> int:
    """List a server's tools with their tokens and annotations, and switch tools on or off.

    The policy is stored in config.toml as [tools.NAME]; `mcpctl run` enforces it for
    every client (tools/list leaves the tools that are off out, tools/call to them gets
    a JSON-RPC error), and `sync`/`export` write each client's own filter. Patterns
    are validated against the tools the server lists. A tool the server adds later is
    off under --only or a budget until you enable it, and is reported.

    Example: mcpctl tools everything --only 'get-*' --budget 2000
    (or, for all servers together: mcpctl tools --global-budget 20000)
    """
    from mcpctl.errors import UsageError  # noqa: PLC0415
    from mcpctl.filtering.change import PolicyChange  # noqa: PLC0415
    from mcpctl.probing.servers import ProbeOptions  # noqa: PLC0415
    from mcpctl.reports.tools import tools_report  # noqa: PLC0415

    if budget is not None and no_budget:
        raise UsageError("--budget and --no-budget contradict each other")
    if global_budget is not None and no_global_budget:
        raise UsageError("--global-budget and --no-global-budget contradict each other")
    options = ProbeOptions(frozenset({"roots"}), timeout, allow_insecure, refresh)
    if global_budget is not None or no_global_budget:
        if name is not None:
            raise UsageError("--global-budget is for every server here; name no server")
        return _global_budget(context(workspace, config), global_budget, options, as_json)
    if name is None:
        raise UsageError("name a server (or give --global-budget TOKENS)")
    change = PolicyChange(_words(enable), _words(disable),
                          _words(only) if only is not None else None, budget, no_budget,
                          deny_destructive, deny_open_world, reset)
    clash = sorted(set(change.enable) & set(change.disable))
    if clash:
        raise UsageError(f"{clash[0]!r} is both enabled and disabled")
    report = tools_report(context(workspace, config), name, change, options)
    return render.emit(report, as_json, lambda view: _print(view.document))


def _global_budget(machine: Machine, total: int | None, options: ProbeOptions,
                   as_json: bool) -> int:
    """--global-budget TOKENS (None: --no-global-budget)."""
    from mcpctl.reports.tools import (  # noqa: PLC0415
        drop_global_budget_report,
        global_budget_report,
    )

    if total is None:
        dropped = drop_global_budget_report(machine)
        return render.emit(dropped, as_json, lambda view: _print_dropped(view.document))
    report = global_budget_report(machine, total, options)
    return render.emit(report, as_json, lambda view: _print_split(view.document))


def _print(document: dict[str, Any]) -> None:
    rows = [[t["name"], "on" if t["on"] else "off", f"{t['tokens']:,}" if t["tokens"] is not None
             else "?", _hints(t["annotations"]), t["reason"] or ""] for t in document["tools"]]
    if rows:
        render.print_table(["TOOL", "STATE", "TOKENS", "HINTS", "WHY OFF"], rows)
    policy = document["policy"]
    if document["written"]:
        render.say(f"saved [tools.{document['server']}] in config.toml: `mcpctl run` enforces "
                   "it for every client now; `mcpctl sync` also writes it into Gemini CLI's, "
                   "Codex's and Claude Code's own filters")
    budget = f" (budget {document['budget']:,})" if document["budget"] is not None else ""
    render.say(f"{document['server']}: {document['tools_on']} of {document['tool_count']} tools "
               f"on, {document['tokens_on']:,} of {document['total_tokens']:,} tokens{budget}"
               + ("" if policy else "; no policy: every tool is on"))


def _print_split(document: dict[str, Any]) -> None:
    rows = [[s["name"], f"{s['budget']:,}", str(len(s["kept"])), ", ".join(s["left_out"])]
            for s in document["servers"]]
    if rows:
        render.print_table(["SERVER", "BUDGET", "ON", "LEFT OUT (over the budget)"], rows)
    render.say(f"{document['spent']:,} of {document['total']:,} tokens given to "
               f"{len(rows)} server(s), each as its own [tools.NAME] budget")


def _print_dropped(document: dict[str, Any]) -> None:
    if not document["total"]:
        render.say("no global budget was set")
        return
    servers = ", ".join(document["dropped"]) or "none"
    render.say(f"dropped the global budget of {document['total']:,} tokens and the budget "
               f"it set on: {servers}")


def _hints(annotations: dict[str, bool | None]) -> str:
    """ro (read-only), destructive, open world; `?` for a hint the server left out."""
    marks = []
    for hint, short in (("readOnlyHint", "ro"), ("destructiveHint", "destr"),
                        ("openWorldHint", "open")):
        value = annotations.get(hint)
        marks.append(short if value is True else f"{short}?" if value is None else "-")
    return " ".join(marks)
