"""`mcpctl cost`: what each server's tool definitions cost in context tokens."""

from __future__ import annotations

import math
import time
from typing import Annotated, Any

import typer

from mcpctl.cli import render
from mcpctl.cli.options import ConfigOption, JsonOption, WorkspaceOption, context
from mcpctl.config.entries import MAX_TIMEOUT
from mcpctl.errors import UsageError

KNOWN_CAPABILITIES = ("roots", "sampling", "elicitation")


def _finite(value: float | None) -> float | None:
    # The range check lets NaN through: every comparison with NaN is false.
    if value is not None and math.isnan(value):
        raise typer.BadParameter(f"must be a number of seconds from 0.1 to {MAX_TIMEOUT}")
    return value


TimeoutOption = Annotated[
    float | None, typer.Option("--timeout", min=0.1, max=MAX_TIMEOUT, callback=_finite,
                               help="Seconds to wait for each server, at most "
                                    f"{MAX_TIMEOUT} (default: its own `timeout`, else 30).")
]
CapabilitiesOption = Annotated[
    str, typer.Option("--capabilities", help="Client capabilities to declare, comma-separated "
                      "(roots, sampling, elicitation); servers may list other tools for others.")
]
InsecureOption = Annotated[
    bool, typer.Option("--allow-insecure", help="Allow plain http:// to a non-loopback host.")
]


def register(app: typer.Typer) -> None:
    app.command("cost")(cost_command)


def parse_capabilities(text: str) -> frozenset[str]:
    chosen = frozenset(part.strip() for part in text.split(",") if part.strip())
    unknown = sorted(chosen - set(KNOWN_CAPABILITIES))
    if unknown:
        raise UsageError(f"unknown capability {unknown[0]!r} (known: "
                         f"{', '.join(KNOWN_CAPABILITIES)})")
    return chosen


def cost_command(
    names: Annotated[list[str] | None, typer.Argument(help="Servers (default: all here).")
                     ] = None,
    tools: Annotated[bool, typer.Option("--tools", help="List every tool with its tokens.")
                     ] = False,
    refresh: Annotated[
        bool, typer.Option("--refresh", help="Probe again even when the last probe is cached.")
    ] = False,
    timeout: TimeoutOption = None,
    capabilities: CapabilitiesOption = "roots",
    allow_insecure: InsecureOption = False,
    workspace: WorkspaceOption = None,
    config: ConfigOption = None,
    as_json: JsonOption = False,
) -> int:
    """Start trusted servers, list their tools, and count the tokens each tool costs.

    Counts the compact JSON of each tool's name, description and input schema as
    received, with the o200k_base tokenizer (offline). Untrusted or changed workspace
    servers are never started. The last probe of each server is cached: --refresh
    probes again and says which tools were added, removed or changed since.
    Exit 6 if a server failed; 4 if a server named on the command line was refused;
    143 (SIGTERM) or 129 (SIGHUP) if stopped by a signal, after stopping every server.

    Example: mcpctl cost --tools --refresh
    """
    from mcpctl.cli.progress import progress  # noqa: PLC0415
    from mcpctl.probing.servers import ProbeOptions  # noqa: PLC0415
    from mcpctl.reports.cost import cost_report  # noqa: PLC0415

    options = ProbeOptions(parse_capabilities(capabilities), timeout, allow_insecure, refresh)
    report = cost_report(context(workspace, config), names or [], options,
                         lambda total: progress("probing", total))
    return render.emit(report, as_json, lambda costs: _print_report(costs.document, tools))


def _print_tools(measured: list[dict[str, Any]]) -> None:
    """Every tool: by server, the costliest first, counts right-aligned to compare."""
    rows = sorted(((s["name"], t["name"], t["tokens"]) for s in measured for t in s["tools"]),
                  key=lambda row: (row[0], -row[2], row[1]))
    if not rows:
        return
    digits = max(len(f"{tokens:,}") for _, _, tokens in rows)
    width = max(digits, len("TOKENS"))
    render.print_table(["SERVER", "TOOL", "TOKENS".rjust(width)],
                       [[server, tool, f"{tokens:,}".rjust(width)]
                        for server, tool, tokens in rows])


def _after(server: dict[str, Any]) -> str:
    """The cost after the server's tool policy (`mcpctl tools`): tools and tokens on."""
    return f"{server['tools_on']} / {server['tokens_on']:,}"


def _print_report(document: dict[str, Any], tools: bool) -> None:
    servers = document["servers"]
    measured = [s for s in servers if s["total_tokens"] is not None]
    # ON (the cost after the tool filters) only when a filter leaves something out.
    filtered = any(s["tools_off"] for s in measured)
    rows = [[s["name"], s["state"], f"{s['protocol_version']} ({s['style']})",
             str(s["tool_count"]), f"{s['total_tokens']:,}", *([_after(s)] if filtered else []),
             f"{s['share']:.0%}", ", ".join(f"{t['name']} {t['tokens']:,}" for t in s["largest"])]
            for s in measured]
    if rows:
        render.print_table(["SERVER", "STATE", "PROTOCOL", "TOOLS", "TOKENS",
                            *(["ON"] if filtered else []), "SHARE", "LARGEST"], rows)
    now = time.time()
    for server in measured:
        if server["status"] == "cached":
            age = render.age(now - server["probed_at"])
            render.say(f"{server['name']}: from the probe {age} ago (--refresh probes again)")
    if tools:
        _print_tools(measured)
    for server in servers:
        if server["status"] == "failed":
            render.say(f"failed: {server['name']}: {server['error']}")
            for line in server["stderr_tail"][-5:]:
                render.say(f"  stderr: {line}")
        elif server["status"] == "refused":
            render.say(f"not started: {server['error']}")
    after = (f"; after the tool filters {document['total_tools_on']} tools, "
             f"{document['total_tokens_on']:,} tokens") if filtered else ""
    render.say(f"total: {document['total_tools']} tools, {document['total_tokens']:,} tokens "
               f"in {len(measured)} server(s){after} (tokenizer {document['tokenizer']}; "
               f"capabilities declared: {', '.join(document['capabilities']) or 'none'})")
