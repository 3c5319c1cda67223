"""`doctor`'s static checks: why a server would or would not start, and the fix.

Pure except for what the caller passes in: the environment, a PATH lookup and a
secret lookup. Nothing here starts a server; the live probe is the caller's, and only
for servers the gate admitted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import PurePath

from mcpctl.config.entries import entry_from_spec
from mcpctl.credentials.argv import argv_exposure, secrets_in_spec
from mcpctl.lint.argv import command_line_hits
from mcpctl.model import ServerSpec
from mcpctl.variables import Context, Kind, expand, references, references_in

OK, WARN, FAIL = "ok", "warn", "fail"
_RUNNER_CODES = frozenset({"MCP020", "MCP021"})
# Variables whose values are paths mcpctl may show; an env var or secret may hold a
# token (a repo can name any variable in its command), so it is never expanded here.
_SHOWN_KINDS = frozenset({Kind.WORKSPACE_FOLDER, Kind.WORKSPACE_BASENAME, Kind.USER_HOME})


@dataclass(frozen=True)
class Check:
    check: str
    status: str  # ok | warn | fail
    message: str


@dataclass(frozen=True)
class Environment:
    workspace: PurePath
    home: PurePath
    environ: Mapping[str, str]
    which: Callable[[str], str | None]
    secret_exists: Callable[[str], bool | str]  # True/False, or why it cannot be known
    keyring: Callable[[], Check]  # whether secrets can be read here (asked once, if needed)


def static_checks(spec: ServerSpec, env: Environment) -> Iterator[Check]:
    if any(r.kind is Kind.SECRET for r in references_in(spec)):
        yield env.keyring()
    yield from _variable_checks(spec, env)
    yield from _empty_credentials(spec)
    if spec.command is not None:
        yield _command_check(spec.name, spec.command, env)
        yield from _runner_checks(spec)
        for secret in secrets_in_spec(spec.command, spec.args):
            yield Check("argv", WARN, argv_exposure(spec.name, secret))


def _variable_checks(spec: ServerSpec, env: Environment) -> Iterator[Check]:
    for reference in references_in(spec):
        match reference.kind:
            case Kind.SECRET:
                known = env.secret_exists(reference.name)
                if known is True:
                    yield Check("secret", OK, f"{reference.text} is in the keyring")
                elif known is False:
                    yield Check("secret", FAIL, f"{reference.text} is not in the keyring; set "
                                f"it with: mcpctl secret set {reference.name}")
                else:
                    yield Check("secret", FAIL, f"{reference.text}: {known}")
            case Kind.ENV if reference.name not in env.environ and reference.default is None:
                yield Check("variable", FAIL, f"{reference.text}: environment variable "
                            f"{reference.name} is not set")
            case Kind.INPUT:
                yield Check("variable", FAIL, f"{reference.text} is a VS Code input: only VS "
                            "Code can prompt for it, so mcpctl cannot start this server")
            case Kind.UNKNOWN:
                yield Check("variable", FAIL, f"{reference.text} is not a variable mcpctl knows")
            case _:
                continue


def _empty_credentials(spec: ServerSpec) -> Iterator[Check]:
    """An empty value under a credential's name, or a bare auth scheme: what a script's
    unset variable leaves in a hand-written entry (`add` refuses it, issue 26). Variables
    that are set but empty are not known here; only what the entry says as written."""
    from mcpctl.credentials.names import is_secret_name  # noqa: PLC0415

    for field, values in (("env", spec.env), ("header", spec.headers)):
        for key, value in values.items():
            bare = value.strip()
            if (not bare and (field == "header" or is_secret_name(key))) or \
                    bare.lower() in ("bearer", "basic", "token"):
                yield Check("value", FAIL, f"{field} {key} is {value!r}: no credential in it "
                            "(an unset variable when it was added?); set it with: mcpctl add "
                            f"{spec.name} --replace …")


def _command_check(server: str, written: str, env: Environment) -> Check:
    """The command as written, looked up on PATH with only path variables expanded."""
    hidden = [r.text for r in references(written) if r.kind not in _SHOWN_KINDS]
    if hidden:
        return Check("command", WARN, f"{written!r} depends on {', '.join(dict.fromkeys(hidden))}"
                     "; it is looked up on PATH only when the server starts")
    context = Context(env.workspace, env.home, {}, lambda _name: None)
    command = expand(written, context, server=server, field="command")
    shown = repr(written) if command == written else f"{written!r} ({command})"
    found = env.which(command)
    if found is None:
        return Check("command", FAIL, f"{shown} is not found on PATH (install it, or give "
                     "its full path)")
    return Check("command", OK, f"{written} → {found}")


def _runner_checks(spec: ServerSpec) -> Iterator[Check]:
    hits = command_line_hits((), entry_from_spec(spec))
    for hit in hits:
        if hit.code in _RUNNER_CODES:
            yield Check("pinned", WARN, f"{hit.message} (a cold download can outlast a "
                        "client's start timeout)")
