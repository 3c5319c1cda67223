"""`mcpctl add NAME --from-registry SERVER[@VERSION]` (or `--from-registry FILE.json`).

The one place that asks the user for a registry server's values: `--env KEY=VALUE`
and `--header Name=value` first, `--secret-from-env KEY=VAR` and `--stdin` for
secrets, then a prompt on a terminal (secrets hidden); a declared default fills what
is still missing. Everything is asked before anything is written; the entry is then
written by `add`'s own report (secrets to the keyring first, config.toml under its
lock), so a refused or interrupted add leaves nothing behind.
"""

import sys
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from mcpctl.errors import ConfigError, UsageError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from mcpctl.machine import Machine
    from mcpctl.registry.document import Package, Remote, ServerDocument
    from mcpctl.registry.inputs import Question
    from mcpctl.reports.report import Report
    from mcpctl.reports.user_tier import Edited

MAX_FILE = 1024 * 1024


class RegistryAdd(NamedTuple):
    """What `add` was given besides the name, for a registry server."""

    source: str  # SERVER[@VERSION] or a server.json path
    registry: str | None
    use: str | None
    env: list[str]
    headers: list[str]
    secret_from_env: list[str]
    from_stdin: bool
    replace: bool


class Added(NamedTuple):
    edit: "Edited"
    origin: str  # name@version from where
    runs: str  # the command line or URL, secret-looking parts masked


def add_from_registry(machine: "Machine", name: str, given: RegistryAdd) -> "Report[Added]":
    from mcpctl.config.entries import EntryError, spec_from_entry  # noqa: PLC0415
    from mcpctl.credentials.extraction import extract_secrets  # noqa: PLC0415
    from mcpctl.registry.launch_entry import build  # noqa: PLC0415
    from mcpctl.registry.pins import choose  # noqa: PLC0415
    from mcpctl.reports.listing import command_line  # noqa: PLC0415
    from mcpctl.reports.report import Report  # noqa: PLC0415
    from mcpctl.reports.user_tier import add_report  # noqa: PLC0415

    document, origin, notes = load_document(machine, given.source, given.registry)
    choice = choose(document, given.use)
    answers = collect_answers(choice, given, machine.environ)
    built = build(name, choice, answers, origin)
    entry, found = extract_secrets(name, built.entry)  # a token typed where none was declared
    try:
        spec = spec_from_entry(name, entry)
    except EntryError as error:
        raise UsageError(f"{document.name}: {error}") from None
    report = add_report(machine, name, entry, {**built.secrets, **found}, replace=given.replace)
    source = origin.get("registry") or origin.get("file")
    origin_line = f"{document.name}@{document.version} from {source}"
    return Report(report.schema, report.body, Added(report.data, origin_line, command_line(spec)),
                  report.exit_code, report.problems,
                  [*notes, *built.warnings, *report.warnings], report.errors, report.version)


def load_document(machine: "Machine", source: str, registry: str | None,
                  ) -> "tuple[ServerDocument, dict[str, str], list[str]]":
    """The document, the origin to record, and notes about it (deprecated, …)."""
    from mcpctl.registry.api import Registry  # noqa: PLC0415
    from mcpctl.registry.lookup import fetch_server  # noqa: PLC0415
    from mcpctl.registry.settings import registry_url  # noqa: PLC0415

    # `~/` with the home the invocation was given, as every other path of the Machine.
    path = machine.home / source[2:] if source.startswith("~/") else Path(source)
    if source.endswith(".json") or path.is_file():
        document = read_document_file(path)
        return document, {"file": str(path.resolve()), "name": document.name,
                          "version": document.version}, []
    name, _, version = source.partition("@")
    if "@" in source and not version:
        raise UsageError(f"--from-registry {source!r}: give a version after '@', or leave "
                         "'@' out for the latest")
    client = Registry(registry_url(machine.config_file, registry), machine.paths.cache_dir)
    entry = fetch_server(client, name, version or None)
    notes = []
    if entry.status == "deleted":
        raise UsageError(f"{name}@{entry.server.version} is deleted from {client.base_url}; "
                         "pick another version (mcpctl search NAME)")
    if entry.status == "deprecated":
        notes.append(f"warning: {name}@{entry.server.version} is deprecated in the registry")
    return entry.server, {"registry": client.base_url, "name": entry.server.name,
                          "version": entry.server.version}, notes


def read_document_file(path: Path) -> "ServerDocument":
    import json  # noqa: PLC0415

    from mcpctl.registry.document import parse_server  # noqa: PLC0415

    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE + 1)
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror or error}") from None
    if len(data) > MAX_FILE:
        raise ConfigError(f"{path} is over {MAX_FILE // 1024} KiB; a server.json is not")
    try:
        return parse_server(json.loads(data.decode("utf-8-sig")), "")
    except (ValueError, RecursionError) as error:
        raise ConfigError(f"{path}: not a server.json mcpctl can use: {error}") from None


def collect_answers(choice: "Package | Remote", given: RegistryAdd,
                    environ: "Mapping[str, str]") -> dict[str, str]:
    """key → value for every question that has one; UsageError for what is missing."""
    from mcpctl.registry.inputs import check_answer, questions  # noqa: PLC0415

    asked = questions(choice)
    by_key = {q.key: q for q in asked}
    flags = {**_pairs(given.env, "--env", "="), **_pairs(given.headers, "--header", ":=")}
    from_env = _pairs(given.secret_from_env, "--secret-from-env", "=")
    for key in [*flags, *from_env]:
        if key not in by_key:
            known = ", ".join(q.key for q in asked) or "nothing"
            raise UsageError(f"the server declares no value named {key!r} (it declares: "
                             f"{known})")
    stdin_for = _stdin_target(asked, flags, from_env, given.from_stdin)
    answers: dict[str, str] = {}
    for question in asked:
        value = _given(question, flags, from_env, environ, stdin_for)
        if value is None:
            value = _asked(question)
        if value == "" and (question.input.is_required or question.key in flags):
            raise UsageError(f"{question.label} was left empty; "
                             + _how_to_give(question))
        if value:
            answers[question.key] = check_answer(question, value)
    return answers


def _stdin_target(asked: "list[Question]", flags: dict[str, str], from_env: dict[str, str],
                  from_stdin: bool) -> str | None:
    if not from_stdin:
        return None
    open_secrets = [q.key for q in asked if q.input.is_secret and q.key not in flags
                    and q.key not in from_env]
    required = [q for q in asked if q.key in open_secrets and q.input.is_required]
    target = required[0].key if len(required) == 1 else (
        open_secrets[0] if len(open_secrets) == 1 else None)
    if not open_secrets:
        raise UsageError("--stdin reads a secret, but the server declares none that is "
                         "still without a value; leave --stdin out")
    if target is None:
        raise UsageError("--stdin reads one secret, but the server declares "
                         f"{len(open_secrets)} without a value ({', '.join(open_secrets)}); "
                         "give the others with --secret-from-env KEY=VAR")
    return target


def _given(question: "Question", flags: dict[str, str], from_env: dict[str, str],
           environ: "Mapping[str, str]", stdin_for: str | None) -> str | None:
    from mcpctl.cli.secret_cmd import read_secret_value  # noqa: PLC0415

    if question.key in flags:
        return flags[question.key]
    if question.key in from_env:
        variable = from_env[question.key]
        if variable not in environ:
            raise UsageError(f"--secret-from-env {question.key}={variable}: {variable} is not "
                             "set in mcpctl's environment")
        return environ[variable]
    if question.key == stdin_for:
        return read_secret_value(True, "")
    return None


def _asked(question: "Question") -> str:
    """A terminal's answer; without one, the declared default or "" (not given)."""
    declared = question.input
    if declared.default is not None and not declared.is_secret:
        return declared.default
    needs = declared.is_required or declared.is_secret
    if not needs or not sys.stdin.isatty():
        if declared.is_required:
            raise UsageError(f"{question.label} is required and there is no terminal to "
                             "ask on; " + _how_to_give(question))
        return ""
    prompt = _prompt(question)
    if declared.is_secret:
        import getpass  # noqa: PLC0415

        return getpass.getpass(prompt)
    sys.stderr.write(prompt)
    sys.stderr.flush()
    return sys.stdin.readline().rstrip("\n")


def _prompt(question: "Question") -> str:
    declared = question.input
    from mcpctl.reports.printable import printable  # noqa: PLC0415

    about = f" ({printable(declared.description[:200])})" if declared.description else ""
    options = f" [{'/'.join(declared.choices)}]" if declared.choices else ""
    optional = "" if declared.is_required else " (optional, Enter to skip)"
    return f"{question.label}{about}{options}{optional}: "


def _how_to_give(question: "Question") -> str:
    if question.input.is_secret:
        return (f"give it on a terminal, with --stdin, or with --secret-from-env "
                f"{question.key}=VAR")
    flag = "--header" if question.where == "header" else "--env"
    return f"give it with {flag} {question.key}=VALUE"


def _pairs(items: list[str], flag: str, separators: str) -> dict[str, str]:
    """KEY=VALUE (or, for headers, `Name: value`): the first separator ends the key."""
    found: dict[str, str] = {}
    for item in items:
        cut = min((at for at in (item.find(s) for s in separators) if at >= 0), default=-1)
        key = item[:cut].strip() if cut >= 0 else ""
        if not key:
            raise UsageError(f"{flag} takes KEY=VALUE, got {item[:80]!r}")
        if key in found:
            raise UsageError(f"{flag} {key} is given twice")
        value = item[cut + 1:]
        found[key] = value.strip() if item[cut] == ":" else value
    return found


def run(name: str, given: RegistryAdd, conflicting: list[str], machine: "Machine",
        as_json: bool, *, no_sync: bool = False) -> int:
    """`add --from-registry`: the report, rendered; then the clients in `[clients] sync`
    brought up to date, as after any other `add`."""
    from mcpctl.cli import render  # noqa: PLC0415
    from mcpctl.cli.syncing import sync_after_edit  # noqa: PLC0415

    if conflicting:
        raise UsageError(f"--from-registry makes the whole entry; leave out "
                         f"{', '.join(conflicting)}")
    report = add_from_registry(machine, name, given)
    code = render.emit(report, as_json, _print_added)
    sync_after_edit(machine, report.data.edit.status, no_sync=no_sync)
    return code


def _print_added(added: "Added") -> None:
    from mcpctl.cli import render  # noqa: PLC0415
    from mcpctl.reports.printable import printable  # noqa: PLC0415

    edit = added.edit
    said = {"added": "added", "replaced": "replaced", "unchanged": "unchanged:"}[edit.status]
    render.say(f"{said} {edit.name} in {render.display_path(edit.config_file)}"
               + (" (already defined like this)" if edit.status == "unchanged" else ""))
    render.say(f"  from:      {printable(added.origin)}")
    render.say(f"  runs:      {printable(added.runs)}")
