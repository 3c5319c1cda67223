"""From an admitted definition to what exactly runs: variables and secrets resolved.

Takes an `Admission`, which only the trust gate makes, so nothing reaches a process
without passing the gate. Expansion happens here and only here, when a server is
launched or probed (DESIGN §3).

Defence in depth for a workspace server: the files the *resolved* launch reaches
(argv, cwd, envFile, env values and the program on PATH, secrets included) are pinned
again, and any that is not in the approved set at the same digest refuses the launch —
whatever the status-time expansion could not see, and whatever changed since the gate.
A workspace server with no `cwd` starts at the workspace root, where its relative paths
were pinned, not wherever the client happened to start mcpctl; a user-tier one at the
home folder (issue 11, item 6): started in the project, `python3 -m tool` would import
the repo's `tool.py`. `${workspaceFolder}` as its `cwd` opts in to the project.

The program is found once, here, on the child's `PATH` from its own working folder,
and that path is what `run` execs and a probe spawns (issue 11, item 5): a second
search would fall through to the next `PATH` entry when the pinned one cannot be
exec'd (a CRLF shebang), and run a file nobody pinned.
"""

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from mcpctl.errors import ConfigError, TrustRefused
from mcpctl.model import PinnedFile, Tier, Transport
from mcpctl.pinning.program import located, on_path
from mcpctl.syntax.env_file import read_env_file
from mcpctl.trust.gate import Admission, unpinnable_message
from mcpctl.variables import Context, expand

if TYPE_CHECKING:
    from mcpctl.pinning.reach import Reach


class Launch(NamedTuple):
    """Exactly what runs: a server's resolved command line, environment, cwd or URL."""

    name: str
    transport: Transport
    argv: tuple[str, ...]
    env: Mapping[str, str]  # the server's own variables, resolved (not the whole environ)
    cwd: str | None
    url: str | None
    headers: Mapping[str, str]
    timeout: float | None
    root: Path
    program: str | None = None  # argv[0] found once: the absolute path exec'd
    # Where Python keeps the bytecode of a workspace server: mcpctl's cache, never the
    # `__pycache__` folders a delivered tree may bring (issue 23, item 2).
    bytecode: str | None = None


def resolve_launch(
    admission: Admission, environ: Mapping[str, str], home: Path,
    secret: Callable[[str], str | None],
) -> Launch:
    spec = admission.definition.spec
    context = Context(admission.root, home, environ, secret)

    def value(text: str, field: str) -> str:
        return expand(text, context, server=spec.name, field=field)

    # Relative paths of a repo's server are the repo's; a user-tier server's are the
    # user's (its home), never whatever repo mcpctl happens to run in.
    workspace = admission.definition.source.tier is Tier.WORKSPACE
    base = admission.root if workspace else home
    env: dict[str, str] = {}
    env_file = None
    if spec.env_file is not None:
        env_file = located(value(spec.env_file, "envFile"), base, home)
        env.update(read_env_file(env_file))
    env.update({key: value(text, f"env {key}") for key, text in spec.env.items()})
    cwd = located(value(spec.cwd, "cwd"), base, home) if spec.cwd is not None else base
    launch = Launch(
        name=spec.name,
        transport=spec.transport,
        argv=tuple(value(text, f"argv[{i}]") for i, text in enumerate(spec.argv()))
        if spec.command is not None else (),
        env=env,
        cwd=str(cwd) if cwd is not None else None,
        url=value(spec.url, "url") if spec.url is not None else None,
        headers={key: value(text, f"header {key}") for key, text in spec.headers.items()},
        timeout=spec.timeout,
        root=admission.root,
        bytecode=_bytecode_folder(environ) if workspace else None,
    )
    _refuse_nul(launch)
    if not launch.argv:
        return launch
    path = launch.env.get("PATH", environ.get("PATH", os.defpath))
    if workspace:
        _refuse_what_was_not_approved(admission, launch, str(env_file) if env_file else None,
                                      path)
    return launch._replace(program=program_for(launch.argv[0], path, str(cwd)))


def _refuse_nul(launch: Launch) -> None:
    """A NUL byte that only expansion brought (a keyring value): no exec can pass it on.
    The definition's own texts were checked when it was read; the value is not quoted."""
    texts = [*launch.argv, *launch.env.values(), launch.cwd or "", launch.url or "",
             *launch.headers.values()]
    if any("\0" in text for text in texts):
        raise ConfigError(f"server {launch.name!r}: a value it expands to holds a NUL byte, "
                          "which no launch can pass on")


def program_for(command: str, path: str, cwd: str) -> str | None:
    """The file exec will run: `command` itself when it holds a `/` (from `cwd`), else
    the first executable match on `path` (relative entries from `cwd`), as pinned."""
    if "/" in command:
        found = os.path.join(cwd, command)
        return found if os.path.isfile(found) and os.access(found, os.X_OK) else None
    return on_path(command, path, cwd)


def _refuse_what_was_not_approved(admission: Admission, launch: Launch, env_file: str | None,
                                  path: str) -> None:
    """A workspace server's resolved launch, pinned again (pinning is imported only here:
    a user-tier server never pays for it)."""
    from mcpctl.pinning.digests import MAX_BYTES as NAMED_BYTES  # noqa: PLC0415
    from mcpctl.pinning.manifest import WORKSPACE  # noqa: PLC0415
    from mcpctl.pinning.pinned_files import pins_of  # noqa: PLC0415
    from mcpctl.pinning.reach import Reach  # noqa: PLC0415
    from mcpctl.pinning.workspace import MAX_BYTES as WORKSPACE_BYTES  # noqa: PLC0415

    reach = Reach(launch.argv, launch.cwd, env_file, launch.env, path)
    _refuse_per_process_paths(admission, reach)
    pins = admission.status.pins
    whole = pins is not None and pins.kind == WORKSPACE
    if pins is not None and not whole:
        _refuse_a_widened_runner(admission, launch, path)
    budget = WORKSPACE_BYTES if whole else NAMED_BYTES
    _refuse_unapproved_files(admission, pins_of(reach, admission.root, budget=budget))


def _refuse_a_widened_runner(admission: Admission, launch: Launch, path: str) -> None:
    """A narrow set approved, checked again with the variables the launch really
    receives (`envFile`'s included): one that moves the runner's configuration into the
    workspace, or a package the workspace now ships, needs the whole workspace."""
    from mcpctl.pinning.runner_inputs import narrow_inputs  # noqa: PLC0415

    real_root = Path(os.path.realpath(admission.root))
    spec = admission.definition.spec
    if narrow_inputs(launch.argv, launch.env, path, has_cwd=spec.cwd is not None,
                     env_known=True, real_root=real_root) is None:
        name = admission.definition.name
        raise TrustRefused(
            f"server {name!r} not started: it was approved for the files its package runner "
            "reads, but its launch now takes code or configuration from the workspace; "
            f"review it with: mcpctl trust {name} --workspace {admission.root}")


def _refuse_per_process_paths(admission: Admission, reach: "Reach") -> None:
    from mcpctl.pinning.pin_set import per_process  # noqa: PLC0415

    reason = per_process(reach)
    if reason is not None:
        raise TrustRefused(unpinnable_message(admission.definition.name, reason))


def _refuse_unapproved_files(admission: Admission, reached: list[PinnedFile]) -> None:
    """Every workspace file the resolved launch reaches must be approved at its digest."""
    from mcpctl.pinning.manifest import WORKSPACE  # noqa: PLC0415
    from mcpctl.pinning.pinned_files import unpinned_reason  # noqa: PLC0415

    name = admission.definition.name
    reason = unpinned_reason(reached)
    if reason is not None:
        raise TrustRefused(unpinnable_message(name, reason))
    pins = admission.status.pins
    approved = pins.files if pins is not None else {}
    whole = pins is not None and pins.kind == WORKSPACE
    for path, digest in reached:
        if whole and path.endswith("/") and path not in approved:
            continue  # a program folder: its files are in the workspace set, one by one
        # The set marks a tracked file's executable bit (`workspace.EXECUTABLE`).
        if (approved.get(path) or "").removeprefix("exec:") != digest:
            why = "was not pinned when it was approved" if path not in approved \
                else "is not the content that was approved"
            raise TrustRefused(
                f"server {name!r} not started: its resolved command line reaches workspace "
                f"file {path}, which {why}; review it with: "
                f"mcpctl trust {name} --workspace {admission.root}")


def _bytecode_folder(environ: Mapping[str, str]) -> str:
    from mcpctl.paths import Paths  # noqa: PLC0415 - only for a workspace server

    return str(Paths.from_environment(environ).cache_dir / "bytecode")


def child_environment(environ: Mapping[str, str], launch: Launch) -> dict[str, str]:
    """The user's environment plus the server's resolved variables; a workspace
    server's Python reads and writes bytecode only under mcpctl's cache, unless the user
    or the approved definition says where."""
    env = {**environ, **launch.env}
    if launch.bytecode is not None and not env.get("PYTHONPYCACHEPREFIX"):
        env["PYTHONPYCACHEPREFIX"] = launch.bytecode  # an empty one is no prefix
    return env
