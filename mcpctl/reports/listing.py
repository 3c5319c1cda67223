"""What `list` and `show` say about servers, as data (pure; the CLI renders it)."""

import shlex
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from mcpctl.config.merge import MergedServer
from mcpctl.config.off_switch import disabled_note, switched_off
from mcpctl.credentials.masking import masked_args, masked_map, masked_tree, masked_url
from mcpctl.model import Definition, ServerSpec, Source, Tier
from mcpctl.trust.status import Status
from mcpctl.variables import Kind, expandable_fields, references, references_in

LIST_SCHEMA_VERSION = 1


class Row(NamedTuple):
    """One definition as `list` and `show` print it: its state and what shadows it."""

    definition: Definition
    state: str
    shadowed_by: Source | None
    note: str = ""

    @property
    def name(self) -> str:
        return self.definition.name


StateOf = Callable[[Definition], tuple[str, str]]


def default_state(definition: Definition) -> tuple[str, str]:
    return definition.source.tier.value, ""


def rows(servers: list[MergedServer], state_of: StateOf = default_state) -> Iterator[Row]:
    """A row per definition: each winner, then what it shadows."""
    for server in servers:
        state, note = state_of(server.winner)
        # The client reading it does not start it (Codex's `enabled = false`): said as
        # the client's own status says it, beside the trust state (issue 22).
        off = disabled_note(server.winner)
        yield Row(server.winner, state, None, "; ".join(part for part in (note, off) if part))
        for loser in server.shadowed:
            yield Row(loser, "shadowed", server.winner.source)


def command_line(spec: ServerSpec) -> str:
    """As a user would type it (secret-looking arguments masked); a remote server shows
    its URL."""
    if spec.url is not None:
        return masked_url(spec.url)
    return shlex.join([spec.command or "", *masked_args(spec.args)])


def spec_document(spec: ServerSpec) -> dict[str, Any]:
    """The definition as written, with secret-looking literal values masked."""
    document: dict[str, Any] = {"transport": spec.transport.value}
    if spec.url is not None:
        document["url"] = masked_url(spec.url)
        document["headers"] = masked_map(spec.headers)
    else:
        document["command"] = spec.command
        document["args"] = masked_args(spec.args)
        document["env"] = masked_map(spec.env)
        document["cwd"] = spec.cwd
    if spec.env_file is not None:
        document["envFile"] = spec.env_file
    if spec.timeout is not None:
        document["timeout"] = spec.timeout
    document["extra"] = masked_tree(dict(spec.extra))
    return document


def spec_lines(spec: ServerSpec, *, cwd_default: str | None = None) -> list[tuple[str, str]]:
    """(label, value) lines describing what runs, secret-looking values masked."""
    document = spec_document(spec)
    lines: list[tuple[str, str]] = []
    if spec.url is not None:
        lines.append(("url", document["url"]))
        lines += [("header", f"{key}: {value}") for key, value in document["headers"].items()]
    else:
        lines.append(("command", command_line(spec)))
        lines += [("env", f"{key}={value}") for key, value in document["env"].items()]
        cwd = spec.cwd if spec.cwd is not None else cwd_default
        if cwd is not None:
            lines.append(("cwd", cwd))
    if spec.env_file is not None:
        lines.append(("envFile", spec.env_file))
    return lines


def secret_lines(spec: ServerSpec) -> list[str]:
    """One line per keyring secret the server receives, and where (issue 11, item 7)."""
    used: dict[str, list[str]] = {}
    for field, text in expandable_fields(spec):
        for reference in references(text):
            if reference.kind is Kind.SECRET:
                used.setdefault(reference.name, []).append(field)
    return [f"receives your keyring secret `{name}` (in {', '.join(fields)})"
            for name, fields in used.items()]


def source_document(source: Source) -> dict[str, Any]:
    """`layers`: the farther files a layered (Codex) entry takes keys from, if any."""
    return {"tier": source.tier.value, "path": str(source.path), "line": source.line,
            "format": source.format_id,
            **({"layers": [{"path": str(path), "line": line} for path, line in source.layers]}
               if source.layers else {})}


def layer_lines(source: Source, shown: Callable[[Path], str]) -> list[str]:
    """What a layered entry takes from farther files, one line each, nearest first."""
    return [f"{shown(path)}:{line} (keys the nearer file does not set)"
            for path, line in source.layers]


def row_document(row: Row, folder: Path | None = None) -> dict[str, Any]:
    """`folder`: the one whose approvals gate a workspace definition (issue 22)."""
    spec = row.definition.spec
    workspace = row.definition.source.tier is Tier.WORKSPACE and folder is not None
    return {
        "name": row.name,
        "tier": row.definition.source.tier.value,
        "state": row.state,
        "note": row.note,
        **spec_document(spec),
        "source": source_document(row.definition.source),
        "shadowed_by": source_document(row.shadowed_by) if row.shadowed_by else None,
        "variables": [ref.text for ref in references_in(spec)],
        **({"trust_workspace": str(folder)} if workspace else {}),
        **_disabled_document(row.definition),
    }


def _disabled_document(definition: Definition) -> dict[str, Any]:
    switch = switched_off(definition)
    return {"disabled_in": {"client": switch.client, "setting": switch.written}} \
        if switch else {}


def why_wins(server: MergedServer) -> str:
    winner = server.winner.source
    if not server.shadowed:
        return "merged key by key from its files, the nearest winning per key, as its " \
            "client reads them" if winner.layers else "only definition"
    if winner.tier is Tier.USER:
        return "the user tier wins over the workspace"
    if server.shadowed[0].source.format_id == winner.format_id:
        return "the nearest file from the current folder wins, as its client reads them"
    return "earlier in the workspace file order (.mcp.json, mcp.json, .vscode/mcp.json, " \
           ".cursor/mcp.json)"


def trust_document(status: Status) -> dict[str, Any]:
    pins = status.pins
    return {
        "fingerprint": status.fingerprint,
        "pinned_files": [{"path": path, "digest": digest} for path, digest in status.files],
        "pin_set": None if pins is None else {
            "kind": pins.kind, "files": len(pins.files), "ignored": list(pins.ignored),
            "listed_by": pins.source, "digest": pins.digest},
        "approved_at": status.approval.approved_at if status.approval else None,
        "approved_fingerprint": status.approval.fingerprint if status.approval else None,
        "changes": list(status.changes),
    }
