"""The files git would hand a clone: tracked ones and untracked ones not ignored.

Git is run with the repo's own configuration neutralised (issue 11, item 2): a repo's
`.git/config` can name programs git runs (`core.fsmonitor`, hooks, filters, a pager,
credential or ssh helpers), and pinning must never execute the repo's code. So:

- `-c core.fsmonitor=` and `core.untrackedCache=false` (the fsmonitor hook is what
  `ls-files --others` would otherwise start), `core.hooksPath=/dev/null`;
- no system or global config (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`), no
  inherited `GIT_*` variable (`GIT_DIR`, `GIT_INDEX_FILE` would point git elsewhere);
- no pager, no prompts, stdin closed, a timeout, and an output cap.

Only `rev-parse` and `ls-files` are run; neither applies filters or runs aliases. A
worktree that git places elsewhere (`core.worktree`) is not this folder: the caller
then walks the folder instead.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

TIMEOUT = 30.0
MAX_OUTPUT = 256 * 1024 * 1024  # NUL-separated paths; the file bound is checked after
_NEUTRAL = ("-c", "core.fsmonitor=", "-c", "core.untrackedCache=false",
            "-c", "core.hooksPath=/dev/null", "-c", "core.pager=cat",
            "-c", "core.quotePath=false", "--no-pager", "--no-optional-locks")


TRACKED, UNTRACKED, NESTED = "tracked", "untracked", "nested"


class GitUnavailable(Exception):
    """Git is missing, refused the folder, or it is not a work tree of its own."""


def git_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The caller's environment without git's own variables, plus the neutral ones."""
    env = {key: value for key, value in environ.items() if not key.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0",
               GIT_PAGER="cat", PAGER="cat", GIT_ASKPASS="", SSH_ASKPASS="",
               GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    return env


def git_program(environ: Mapping[str, str]) -> str:
    """Git from the absolute entries of PATH only: a `.` entry would find the repo's own
    `git`, which is exactly the code pinning must not run."""
    for entry in environ.get("PATH", os.defpath).split(os.pathsep):
        found = os.path.join(entry, "git")
        # As `shutil.which` finds it (which would bring the compression modules along).
        if os.path.isabs(entry) and os.path.isfile(found) and os.access(found, os.X_OK):
            return found
    raise GitUnavailable("git is not on PATH")


def _git_outputs(folder: Path, commands: Sequence[list[str]],
                 environ: Mapping[str, str]) -> list[bytes]:
    """Each command's stdout. The commands run side by side (each git takes a few
    milliseconds to start, and `list` needs three), all within one TIMEOUT."""
    import subprocess  # noqa: PLC0415 - only when git runs

    program, env = git_program(environ), git_environment(environ)
    deadline = time.monotonic() + TIMEOUT
    started: list[subprocess.Popen[bytes]] = []
    try:
        for args in commands:  # one at a time: `finally` stops those started before a failure
            started.append(subprocess.Popen(  # noqa: PERF401
                [program, "-C", str(folder), *_NEUTRAL, *args], stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env))
        results = [process.communicate(timeout=max(0.0, deadline - time.monotonic()))
                   for process in started]
    except (OSError, subprocess.TimeoutExpired) as error:
        raise GitUnavailable(str(error)) from None
    finally:
        for process in started:  # none is left running, whatever ended the wait
            if process.poll() is None:
                process.kill()
                process.wait()
            for stream in (process.stdout, process.stderr):
                if stream is not None:
                    stream.close()
    for process, (out, err) in zip(started, results, strict=True):
        if process.returncode != 0 or len(out) > MAX_OUTPUT:
            raise GitUnavailable(err.decode("utf-8", "replace").strip()[:200])
    return [out for out, _ in results]


def work_tree_files(folder: Path, environ: Mapping[str, str]) -> dict[str, str]:
    """Path (relative, `/`-separated) → TRACKED, UNTRACKED or NESTED, for tracked and
    untracked non-ignored files under `folder`, which must be a work tree's top level or
    a folder inside one. NESTED (a submodule), or a path that ends in `/` (an untracked
    clone), is a repository of its own: the caller lists it on its own."""
    # `-s` gives each index entry's mode: 160000 is a submodule (no lstat per file).
    top, tracked, others = _git_outputs(folder, [
        ["rev-parse", "--show-toplevel"], ["ls-files", "-z", "-s"],
        ["ls-files", "-z", "--others", "--exclude-standard"]], environ)
    real = os.path.realpath(folder)
    top_real = os.path.realpath(top.decode("utf-8", "replace").rstrip("\n"))
    if real != top_real and not real.startswith(top_real.rstrip("/") + "/"):
        raise GitUnavailable(f"git's work tree is {top_real}, not this folder")
    paths: dict[str, str] = {}
    for raw in tracked.split(b"\0"):
        meta, _, name = raw.partition(b"\t")
        if name:
            paths[os.fsdecode(name)] = NESTED if meta.startswith(b"160000 ") else TRACKED
    for raw in others.split(b"\0"):
        if raw:
            paths.setdefault(os.fsdecode(raw), UNTRACKED)
    return paths
