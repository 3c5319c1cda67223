"""What `trust` and `revoke` report: approvals made or forgotten, as `Report`s."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpctl.config.merge import MergedServer, named
from mcpctl.config.view import view_here
from mcpctl.config.workspace import folder_of
from mcpctl.errors import ExitCode, TrustRefused, UsageError
from mcpctl.machine import Machine
from mcpctl.model import Problem, Tier
from mcpctl.reports import listing
from mcpctl.reports.report import Report
from mcpctl.trust.gate import unpinnable_message
from mcpctl.trust.state import TrustState
from mcpctl.trust.status import Status

Review = Callable[[list[tuple[MergedServer, Status]]], None]  # show what will be asked
Confirm = Callable[[list[MergedServer]], bool]  # the user's one answer for all of them


@dataclass(frozen=True)
class Approvals:
    results: list[dict[str, Any]]
    root: str = ""  # the workspace root; a result recorded for another folder says so


def trust_report(machine: Machine, names: list[str], all_servers: bool, *,
                 review: Review, confirm: Confirm | None, can_ask: bool,
                 ignore_changes_in: Sequence[str] = (),
                 accept_changed: bool = False) -> Report[Approvals]:
    """Approve the chosen workspace servers at their current fingerprint. `review` is
    shown every server not yet trusted (unpinnable ones too), `confirm` asks once for
    the approvable ones (None: --yes); with neither a way to ask nor --yes, nothing is
    approved. Without asking (--yes), a *changed* server is approved only with
    `accept_changed`; otherwise nothing at all is approved (issue 26): a script's
    `trust --all --yes` takes in new servers and stops on a change, with the diff.
    `ignore_changes_in`: folders the approval leaves out."""
    from mcpctl.trust import actions as trust_actions  # noqa: PLC0415

    view = view_here(machine)
    servers = select_to_trust(view.servers, names, all_servers, view.problems)
    if confirm is not None and not can_ask:
        raise TrustRefused("not a terminal: nothing approved; review with `mcpctl show NAME` "
                           "and approve non-interactively with --yes")
    folders = {server.name: folder_of(server.winner.source, machine.root) for server in servers}
    ignored = ignored_folders(ignore_changes_in, _one_folder(folders, machine.root)) \
        if ignore_changes_in else None
    pending = trust_actions.statuses(servers, machine, ignored)
    asking = [(server, status) for server, status in pending
              if status.state is not TrustState.TRUSTED]
    review(asking)
    results: list[dict[str, Any]] = []
    errors: list[str] = []
    approvable = []
    for server, status in pending:
        if status.state is TrustState.TRUSTED:
            results.append(_result(server, status, "already-trusted", folders))
        elif status.state is TrustState.UNPINNABLE:
            # Never approvable; the others still are, and the exit code says it at the end.
            errors.append(unpinnable_message(server.name, status.unpinned))
            results.append(_result(server, status, "unpinnable", folders))
        else:
            approvable.append((server, status))
    changed = [(server, status) for server, status in approvable
               if status.state is TrustState.CHANGED]
    if confirm is None and changed and not accept_changed:
        return _changed_refused(machine, pending, changed, view.problems, folders)
    declined = bool(approvable) and confirm is not None \
        and not confirm([server for server, _ in approvable])
    for server, status in approvable:
        if declined:
            results.append(_result(server, status, "declined", folders))
            continue
        trust_actions.approve(server, status, folders[server.name], machine.paths.trust_file)
        results.append(_result(server, status, "trusted", folders))
    # A declined prompt approved nothing the user asked for: the same exit as a refusal
    # without a terminal, so `mcpctl trust x && mcpctl run x` stops there (issue 15).
    if errors or declined:
        code = ExitCode.TRUST_REFUSED
    else:
        # A broken file may hide servers that were meant to be reviewed: say so by exit code.
        code = ExitCode.INVALID_CONFIG if view.problems else ExitCode.OK
    return Report("trust", {"workspace": str(machine.root), "results": results},
                  Approvals(results, str(machine.root)), code, view.problems, errors=errors)


def _changed_refused(machine: Machine, pending: list[tuple[MergedServer, Status]],
                     changed: list[tuple[MergedServer, Status]],
                     problems: Sequence[Problem], folders: Mapping[str, Path]
                     ) -> Report[Approvals]:
    """--yes met a server changed since its approval: approve nothing, name each one."""
    refused = {server.name for server, _ in changed}
    results = []
    for server, status in pending:
        outcome = "changed" if server.name in refused else (
            "already-trusted" if status.state is TrustState.TRUSTED else "not-approved")
        result = _result(server, status, outcome, folders)
        if server.name in refused:
            result["changes"] = list(status.changes)
        results.append(result)
    names = ", ".join(repr(server.name) for server, _ in changed)
    errors = [f"changed since approval: {names}; nothing approved (the diff is above: "
              "`mcpctl show NAME` shows it again); approve a change with --accept-changed, "
              "or run `mcpctl trust` in a terminal"]
    return Report("trust", {"workspace": str(machine.root), "results": results},
                  Approvals(results, str(machine.root)), ExitCode.TRUST_REFUSED, problems,
                  errors=errors)


def _one_folder(folders: Mapping[str, Path], root: Path) -> Path:
    """The folder `--ignore-changes-in` is relative to: the one every chosen server's
    approval is recorded for (from a subfolder, maybe not the root)."""
    distinct = set(folders.values())
    if len(distinct) > 1:
        raise UsageError("--ignore-changes-in: the servers chosen are approved in different "
                         f"folders ({', '.join(sorted(map(str, distinct)))}); approve them "
                         "one folder at a time")
    return distinct.pop() if distinct else root


def ignored_folders(texts: Sequence[str], root: Path) -> list[str]:
    """Workspace-relative folders, `/`-separated; anything else is a usage error."""
    folders = []
    for text in texts:
        relative = Path(text)
        if relative.is_absolute():
            try:
                relative = relative.relative_to(root)
            except ValueError:
                raise UsageError(f"--ignore-changes-in {text!r} is not inside the workspace "
                                 f"{root}") from None
        parts = relative.parts
        if not parts or parts == (".",) or ".." in parts:
            raise UsageError(f"--ignore-changes-in {text!r}: name a folder inside the "
                             "workspace (not the root, no `..`)")
        folders.append("/".join(p for p in parts if p != ".") + "/")
    return sorted(set(folders))


def select_to_trust(servers: list[MergedServer], names: list[str], all_servers: bool,
                    problems: Sequence[Problem]) -> list[MergedServer]:
    if bool(names) == all_servers:
        raise UsageError("name the servers to trust, or give --all (not both)")
    if all_servers:
        return [s for s in servers if s.winner.source.tier is Tier.WORKSPACE]
    chosen = []
    for name in dict.fromkeys(names):
        server = named(servers, name, problems)
        if server.winner.source.tier is Tier.USER:
            raise UsageError(f"server {name!r} is in your user tier, which is trusted as written; "
                             "only workspace servers need approval")
        chosen.append(server)
    return chosen


def _result(server: MergedServer, status: Status, outcome: str,
            folders: Mapping[str, Path]) -> dict[str, Any]:
    """`workspace`: the folder the approval is (or would be) recorded for (issue 22)."""
    return {"name": server.name, "status": outcome, "fingerprint": status.fingerprint,
            "source": listing.source_document(server.winner.source),
            "workspace": str(folders[server.name])}


def _folders_of(machine: Machine, names: list[str]) -> dict[Path, list[str]]:
    """Where each named approval is recorded: the folder of the definition `list` shows
    here (another folder's file, issue 22), else the root; with `-w`, the root."""
    winners = {} if machine.root_given else {
        s.name: s.winner for s in view_here(machine, frozenset({Tier.WORKSPACE})).servers}
    folders: dict[Path, list[str]] = {}
    for name in dict.fromkeys(names):
        definition = winners.get(name)
        folder = machine.root if definition is None else folder_of(definition.source,
                                                                   machine.root)
        folders.setdefault(folder, []).append(name)
    return folders


def _workspace_folders(machine: Machine) -> list[Path]:
    """What `revoke --whole-workspace` empties: the root's approvals, as ever, and from
    a subfolder (issue 22) those of every folder whose file `list` reads there, shadowed
    definitions included: every approval `list` there shows. Forgetting more than the
    root's never starts anything (a revoked server is refused)."""
    folders = [machine.root]
    if not machine.root_given:
        for server in view_here(machine, frozenset({Tier.WORKSPACE})).servers:
            folders += (folder_of(d.source, machine.root) for d in server.definitions)
    return list(dict.fromkeys(folders))


@dataclass(frozen=True)
class Revoked:
    removed: list[dict[str, Any]]


def revoke_report(machine: Machine, names: list[str], *, whole_workspace: bool,
                  all_approvals: bool, stale: bool) -> Report[Revoked]:
    """Forget approvals: by name here, all of this workspace, all, or the stale ones."""
    from mcpctl.trust import actions as trust_actions  # noqa: PLC0415

    if sum([bool(names), whole_workspace, all_approvals, stale]) != 1:
        raise UsageError("give server names, or one of --whole-workspace, --all, --stale")
    store = machine.paths.trust_file
    if stale:
        removed = trust_actions.revoke_stale(machine)
    elif all_approvals:
        removed = trust_actions.revoke_all(store)
    elif names:
        removed = []
        for folder, named_here in _folders_of(machine, names).items():
            removed += trust_actions.revoke_in(store, folder, named_here)
    else:
        removed = []
        for folder in _workspace_folders(machine):
            removed += trust_actions.revoke_in(store, folder, None)
    return Report("revoke", {"revoked": removed, "running_servers_stopped": False},
                  Revoked(removed))
