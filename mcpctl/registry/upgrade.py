"""Move a registry-made entry to another version: only its pinned word changes (pure).

The entry keeps everything else as it is: env values, `${secret:…}` references,
headers, arguments the user gave. The new version's package is the one with the same
name (`npm:@scope/pkg`), and the launch word that was pinned (`@scope/pkg@1.0.0`) is
replaced by the new one where it stands. An entry whose pinned word is gone (edited
by hand) is not guessed at. A remote has no pinned word: only `origin.version` moves.
"""

import copy
from typing import Any, NamedTuple

from mcpctl.config.origin import ORIGIN_KEY, Origin
from mcpctl.errors import UsageError
from mcpctl.registry.document import Package, ServerDocument
from mcpctl.registry.inputs import questions
from mcpctl.registry.pins import pin_of


class Upgrade(NamedTuple):
    entry: dict[str, Any]
    changes: list[str]  # one line per changed field: `args[1]: old -> new`
    notes: list[str]


def upgraded(server: str, entry: dict[str, Any], origin: Origin,
             document: ServerDocument) -> Upgrade:
    new = copy.deepcopy(entry)
    changes: list[str] = []
    notes: list[str] = []
    if origin.package is not None:
        package = _same_package(origin, document)
        word = pin_of(package).word
        args = new.get("args")
        if not isinstance(args, list) or origin.pinned not in args:
            raise UsageError(f"{server}'s command line no longer holds {origin.pinned!r} (was "
                             f"it edited?); add it again: mcpctl add {server} --from-registry "
                             f"{origin.name} --replace")
        at = args.index(origin.pinned)
        if args[at] != word:
            changes.append(f"args[{at}]: {args[at]} -> {word}")
            args[at] = word
        new[ORIGIN_KEY] = {**new[ORIGIN_KEY], "pinned": word}
        notes += _new_requirements(server, package, new)
    if origin.version != document.version:
        changes.append(f"origin.version: {origin.version} -> {document.version}")
        new[ORIGIN_KEY] = {**new[ORIGIN_KEY], "version": document.version}
    return Upgrade(new, changes, notes)


def _same_package(origin: Origin, document: ServerDocument) -> Package:
    for package in document.packages:
        if package.transport != "stdio":
            continue
        try:
            if pin_of(package).package == origin.package:
                return package
        except UsageError:
            continue
    raise UsageError(f"{document.name}@{document.version} offers no {origin.package} package "
                     f"that mcpctl can pin; add it again with --from-registry and --replace")


def _new_requirements(server: str, package: Package, entry: dict[str, Any]) -> list[str]:
    """Required values the new version declares that the entry does not set."""
    written = entry.get("env")
    env: dict[str, Any] = written if isinstance(written, dict) else {}
    missing = [q.key for q in questions(package)
               if q.input.is_required and q.where == "env" and q.key not in env]
    return [f"warning: {server}: the new version requires {key}, which the entry does not "
            f"set; add it again with --from-registry and --replace to be asked"
            for key in missing]
