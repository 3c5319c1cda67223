"""`mcpctl run NAME` without typer: parse the common line, resolve the server, exec it.

Every client start of every server goes through here, so the common command line
(`run NAME`, with `--print`, `-w`/`--workspace`, `--config`, `--key`; and `run --guard
[--key K]`, the guard's one launch shape, issue 22) is parsed by hand in
`parse_fast` and never imports typer, which alone costs several times a bare interpreter
(issue 15). Anything else (`--help`, a typo, a workspace that is not a folder) goes to
the typer command in `run_cmd.py`, which gives the usual help and errors.
"""

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from mcpctl.cli.context import context
from mcpctl.cli.hand_parse import parse_common
from mcpctl.clients.guard_key import KEY_OPTION
from mcpctl.clients.guarded import GUARD_SERVER, GUARD_WORKSPACE
from mcpctl.config.merge import named
from mcpctl.config.off_switch import switched_off
from mcpctl.config.view import view_here
from mcpctl.errors import ConfigError, ExitCode, ServerFailed
from mcpctl.launch import Launch, child_environment, resolve_launch
from mcpctl.trust.gate import Admission, admit

if TYPE_CHECKING:
    from mcpctl.filtering.wire import ToolGate
    from mcpctl.machine import Machine
    from mcpctl.model import Definition

_FLAGS = {"--print": "print_remote", "--allow-insecure": "allow_insecure"}
# `--key`: the machine's guard key, which Claude Code's allowlist matches; taken and not
# checked (guard_key.py: a check here would come after the loader ran an entry's env).
_VALUED = {"-w": "workspace", "--workspace": "workspace", "--config": "config",
           KEY_OPTION: "key"}
# The definitions (name, file and line) of the `mcpctl run`s that exec'd this one: set only
# for a command that is mcpctl itself, so a server whose command is `mcpctl run` of
# itself (or a cycle of them) stops at its second start instead of forever (issue 23).
CHAIN = "MCPCTL_RUN_CHAIN"


class RunLine(NamedTuple):
    """A `run` command line as typer would have parsed it."""

    name: str
    print_remote: bool = False
    allow_insecure: bool = False
    workspace: Path | None = None
    config: Path | None = None
    guard: bool = False  # `run --guard`: the name and workspace come from the environment


def parse_fast(args: Sequence[str]) -> RunLine | None:
    """`run`'s arguments parsed without typer; None when the line needs typer's parser."""
    if _is_guard_line(args):
        return RunLine("", guard=True)
    line = parse_common(args, _FLAGS, _VALUED, takes_name=True)
    if line is None or line.name is None:
        return None
    return RunLine(line.name, "print_remote" in line.flags, "allow_insecure" in line.flags,
                   line.path("workspace"), line.path("config"))


def _is_guard_line(args: Sequence[str]) -> bool:
    """`--guard`, or `--guard --key K` (what the guard's entries say)."""
    words = list(args)
    if words == ["--guard"]:
        return True
    return len(words) == 3 and words[:2] == ["--guard", KEY_OPTION] and bool(words[2]) \
        and not words[2].startswith("-")


def start_line(line: RunLine) -> int:
    if line.guard:
        name, workspace = guard_target()
        return start(name, print_remote=False, allow_insecure=False, workspace=workspace,
                     config=None)
    return start(line.name, print_remote=line.print_remote, allow_insecure=line.allow_insecure,
                 workspace=line.workspace, config=line.config)


def start(name: str, *, print_remote: bool, allow_insecure: bool, workspace: Path | None,
          config: Path | None) -> int:
    """Resolve server `name` and exec it, or bridge a URL server (with `print_remote`:
    print its resolved URL and header names instead)."""
    machine = context(workspace, config, home_required=False)  # started by clients
    # Without `-w`, the definition `list` shows from this folder: the one the clients
    # read here (issue 22), admitted as a server of its own file's folder.
    view = view_here(machine)
    server = named(view.servers, name, view.problems)
    # The definition itself, wherever the run starts: a server's cwd moves the workspace.
    source = server.winner.source
    link = f"{name} ({source.path}:{source.line})"
    chain = [item for item in machine.environ.get(CHAIN, "").split("\n") if item]
    if link in chain:
        raise ConfigError(f"server {name!r} launches itself: its command runs `mcpctl run` "
                          f"of {' → '.join([*chain[chain.index(link):], link])}, which would "
                          "start again forever; give it the real server's command")
    admission = admit(server, machine.root, machine.paths.trust_file, environ=machine.environ,
                      home=machine.home, cache_dir=machine.paths.cache_dir)
    _say_if_switched_off(name, server.winner)
    if server.winner.spec.url is not None and print_remote:
        return _print_remote(admission, machine.environ, machine.home)
    launch = resolve_launch(admission, machine.environ, machine.home, _secret)
    gate = _tool_gate(machine, name, admission, launch)  # None: no tool is off: exec as before
    if launch.url is not None:
        return _bridge(admission, launch, allow_insecure=allow_insecure, gate=gate)
    env = child_environment(machine.environ, launch)
    if launch.cwd is not None:
        try:
            os.chdir(launch.cwd)
        except OSError as error:
            raise _failed(admission, launch, f"server {name!r}: cannot enter cwd {launch.cwd}: "
                          f"{error.strerror}") from None
    program = launch.program  # found once, as pinned: exec'd as it is, never searched again
    if program is None:
        raise _failed(admission, launch,
                      f"server {name!r}: command {launch.argv[0]!r} not found on PATH")
    env.pop(CHAIN, None)
    if _is_mcpctl(launch.argv, program):
        env[CHAIN] = "\n".join([*chain, link])
    sys.stdout.flush()
    sys.stderr.flush()
    if gate is not None:
        return _relay(admission, launch, program, env, gate)
    try:
        os.execve(program, list(launch.argv), env)  # noqa: S606 - argv, never a shell
    except OSError as error:
        raise _failed(admission, launch, f"server {name!r}: cannot start {program}: "
                      f"{error.strerror}") from None
    return ExitCode.SERVER_FAILED  # not reached: execve replaced this process


def _say_if_switched_off(name: str, definition: "Definition") -> None:
    """Started all the same, once approved: asked for by name, it is what the user wants
    (a client's entry `mcpctl run NAME` names a user-tier server, which wins), and the
    repo's own switch guards nothing; but the user learns the client would not start it
    (issue 22; docs/design.md, "What each client reads")."""
    switch = switched_off(definition)
    if switch is None:
        return
    where = f"{definition.source.path}:{definition.source.line}"
    sys.stderr.write(f"note: {name!r} is disabled in {switch.title} ({where}: "
                     f"{switch.written}), which does not start it; mcpctl starts it because "
                     "it was asked for by name\n")


def guard_target() -> tuple[str, Path]:
    """What `run --guard` starts: the server MCPCTL_GUARD_SERVER names, in the folder
    MCPCTL_GUARD_WORKSPACE names, or else in the folder Claude Code took it from: the
    nearest `.mcp.json` from the current folder (the client's) up that defines it, as
    Claude Code reads them (measured with 2.1.197: every parent up to `/`, the nearest
    wins). A missing name, no such file, or one on the way that cannot be read is an
    error: nothing starts (fail closed)."""
    from mcpctl.errors import UsageError  # noqa: PLC0415

    # Read here, before the Machine exists: they decide its workspace root.
    environ = os.environ
    name = environ.get(GUARD_SERVER, "")
    if not name:
        raise UsageError(f"run --guard: {GUARD_SERVER} names no server (the guard's entry "
                         "sets it; run `mcpctl sync`)")
    folder = environ.get(GUARD_WORKSPACE)
    if folder is not None:
        workspace = Path(folder)
        if not workspace.is_absolute() or not workspace.is_dir():
            raise UsageError(f"run --guard: {GUARD_WORKSPACE}={folder!r} is not an absolute "
                             "path to a folder; nothing was started")
        return name, workspace
    return name, _defining_folder(name, Path.cwd())


def _defining_folder(name: str, start: Path) -> Path:
    from mcpctl.clients.guarded import GUARDED_FILE, repo_server_names  # noqa: PLC0415
    from mcpctl.errors import TrustRefused  # noqa: PLC0415

    here = Path(os.path.realpath(start))
    for folder in (here, *here.parents):
        path = folder / GUARDED_FILE
        if not (path.exists() or path.is_symlink()):
            continue
        names = repo_server_names(path)
        if names is None:
            raise TrustRefused(f"server {name!r}: {path} cannot be read, so which definition "
                               "Claude Code took is unknown; nothing was started")
        if name in names:
            return folder
    raise TrustRefused(f"server {name!r}: no {GUARDED_FILE} from {here} up defines it; "
                       "nothing was started")


def _is_mcpctl(argv: Sequence[str], program: str) -> bool:
    """The command is mcpctl: its entry point, or `python -m mcpctl`."""
    if os.path.basename(program) in ("mcpctl", "mcpctl.exe"):
        return True
    return list(argv[1:3]) == ["-m", "mcpctl"]


def _secret(name: str) -> str | None:
    # The keyring module only when the server references a secret.
    from mcpctl.credentials.keyring_store import get_secret  # noqa: PLC0415

    return get_secret(name)


def _print_remote(admission: Admission, environ: Mapping[str, str], home: Path) -> int:
    """Variables resolved, secrets left as their references: nothing secret printed."""
    from mcpctl.credentials.extraction import reference  # noqa: PLC0415
    from mcpctl.credentials.masking import masked_url  # noqa: PLC0415

    remote = resolve_launch(admission, environ, home, reference)
    sys.stdout.write(masked_url(remote.url or "") + "\n")
    for header in remote.headers:
        sys.stdout.write(f"header: {header}\n")
    return ExitCode.OK


def _failed(admission: Admission, launch: Launch, message: str) -> ServerFailed:
    """The resolved command and cwd may hold a secret: errors quote them redacted, as
    `cost` and `doctor` do (issue 14). The redaction is imported only for an error."""
    from mcpctl.credentials.redact import redact  # noqa: PLC0415
    from mcpctl.probing.redaction import hidden_values  # noqa: PLC0415

    return ServerFailed(redact(message, hidden_values(admission.definition.spec, launch)))


def _bridge(admission: Admission, launch: Launch, *, allow_insecure: bool,
            gate: "ToolGate | None") -> int:
    """A url server: stdio on this side, Streamable HTTP on the other (no process)."""
    from mcpctl.probing.redaction import hidden_values  # noqa: PLC0415
    from mcpctl.protocol.bridge import remote_of, serve  # noqa: PLC0415 - asyncio, httpx

    secrets = tuple(hidden_values(admission.definition.spec, launch))
    remote = remote_of(launch, secrets, allow_insecure=allow_insecure)
    if gate is None:
        serve(remote)
        return ExitCode.OK
    from mcpctl.protocol.filter_relay import relay_bridge  # noqa: PLC0415

    relay_bridge(lambda stdin_fd, stdout_fd: serve(remote, stdin_fd, stdout_fd), gate)
    return ExitCode.OK


def _tool_gate(machine: "Machine", name: str, admission: Admission,
               launch: Launch) -> "ToolGate | None":
    """The tool filter when `[tools.NAME]` switches anything off (issue 29). A budget is
    spent on the last cached probe of this very definition (its fingerprint). Judged
    answers are kept in the cache, keyed by the policy and the server's exact bytes."""
    from mcpctl.config.tool_policy import policy_for  # noqa: PLC0415

    policy = policy_for(machine.config_file, name)
    if policy is None or not policy.restricts:
        return None
    from mcpctl.filtering.answer_store import DiskAnswers  # noqa: PLC0415
    from mcpctl.filtering.live import LiveFilter  # noqa: PLC0415
    from mcpctl.filtering.wire import ToolGate  # noqa: PLC0415
    cached = None
    # The cached probe serves only a budget (its tokens) and the annotation rules (the
    # definitions a call is judged by before any list): a list of names needs neither.
    if policy.budget is not None or policy.deny_destructive or policy.deny_open_world:
        from mcpctl.probing import cache  # noqa: PLC0415

        cached = cache.load(machine.paths, admission.status.fingerprint)
    live = LiveFilter(name, policy, cached.tools if cached else (),
                      cached.tokens if cached else None)

    def say(text: str) -> None:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()

    def hidden() -> list[str]:  # what must not be written: asked only before a write
        from mcpctl.probing.redaction import hidden_values  # noqa: PLC0415

        return hidden_values(admission.definition.spec, launch)

    kept = None if live.budget_kept is None else sorted(live.budget_kept)
    store = DiskAnswers(machine.paths.cache_dir / "tool-answers",
                        machine.paths.data_dir / "tool-answers.key", [name, policy, kept],
                        hidden)
    return ToolGate(live, say, nonce=os.urandom(8).hex(), store=store)


def _relay(admission: Admission, launch: Launch, program: str, env: Mapping[str, str],
           gate: "ToolGate") -> int:
    """The server as a child behind the tool filter, instead of exec."""
    from mcpctl.protocol.filter_relay import relay_process  # noqa: PLC0415

    try:
        return relay_process(program, launch.argv, env, gate)  # in launch.cwd, entered above
    except OSError as error:
        raise _failed(admission, launch, f"server {launch.name!r}: cannot start {program}: "
                      f"{error.strerror}") from None
