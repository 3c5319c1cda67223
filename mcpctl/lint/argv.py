"""MCP020-MCP031: what a server's command line will fetch and run.

The command line is read the way the runner reads it (its options, then the package),
because a version written in the wrong place pins nothing. Shell wrappers are looked
through: `cmd /c npx pkg` and `sh -c "npx pkg"` are checked like `npx pkg`.
"""

import re
import shlex
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from mcpctl.lint.rules import Hit, shown, where
from mcpctl.syntax.jsonc import JsonPath


class Arg(NamedTuple):
    """One word of a command line and where in the file it is written."""

    text: str
    path: JsonPath  # where the text is written (a shell script's words share one path)


def command_line_hits(server: JsonPath, entry: Mapping[str, Any]) -> Iterator[Hit]:
    command, args = entry.get("command"), entry.get("args", [])
    if not isinstance(command, str) or not isinstance(args, list):
        return
    argv = [Arg(command, (*server, "command"))]
    argv += [Arg(a, (*server, "args", i)) for i, a in enumerate(args) if isinstance(a, str)]
    hits = [Hit("MCP031", arg.path, f"{where(arg.path)}: downloads a script into a shell")
            for arg in argv if pipes_download_to_shell(arg.text)]
    hits += _argv_hits(argv, depth=0)
    hits += _literal_hits(argv)
    piped = any(hit.code == "MCP031" for hit in hits)
    # A download piped into a shell is MCP031 already; MCP033 is for the download alone.
    yield from (hit for hit in hits if not (piped and hit.code == "MCP033"))


def _argv_hits(argv: Sequence[Arg], depth: int) -> Iterator[Hit]:
    if not argv or depth > 3:  # wrappers in wrappers: deep enough, and bounded
        return
    program = _program(argv[0].text)
    rest = argv[1:]
    if _PACKAGE_NAME.fullmatch(argv[0].text.strip()):
        yield Hit("MCP045", argv[0].path, f"{where(argv[0].path)}: {shown(argv[0].text)} is "
                                          "a package's name, not a program (npx runs it)")
    elif program in {"npm", "pnpm", "yarn"} and [a.text for a in rest[:1]] in (
            ["install"], ["i"], ["add"]):
        yield Hit("MCP045", argv[0].path, f"{where(argv[0].path)}: {program} "
                                          f"{rest[0].text} installs a package and exits; "
                                          "it starts no server")
    elif program in _DOWNLOADERS:
        yield Hit("MCP033", argv[0].path, f"{where(argv[0].path)}: the program is the "
                                          f"downloader {program}, not a server")
    elif program == "env":
        yield from _argv_hits(_after_env(rest), depth + 1)
    elif program in _SHELLS:
        yield from _shell_hits(program, rest, depth)
    elif program in _RUNNER_PROGRAMS:
        yield from _runner_hits(program, rest, argv[0])
    elif program in {"docker", "podman"}:
        yield from _image_hits(program, rest, argv[0], depth)


_PACKAGE_NAME = re.compile(r"@[a-z0-9][\w.-]*/[\w.-]+(?:@[\w.^~<>=*-]+)?")
_DOWNLOADERS = frozenset({"curl", "wget", "iwr", "irm", "invoke-webrequest",
                          "invoke-restmethod", "certutil", "bitsadmin"})
# What `cmd /c` may start without a finding: Windows needs it for npx and the other
# runners, which are .cmd scripts CreateProcess cannot start by themselves.
_CMD_TARGETS = frozenset({"npx", "npm", "pnpm", "pnpx", "yarn", "bunx", "bun", "uvx",
                          "uv", "pipx", "node", "deno", "docker", "podman", "python", "py"})
_SHELL_OPERATOR = re.compile(r"[|&;<>]|\$\(|`")


def _program(command: str) -> str:
    name = re.split(r"[\\/]", command.strip())[-1].lower()
    return re.sub(r"\.(exe|cmd|bat|ps1)$", "", name)


def _after_env(args: Sequence[Arg]) -> list[Arg]:
    """`env [-i] [-u NAME] [NAME=VALUE]... program args`: the program and its args."""
    index = 0
    while index < len(args):
        text = args[index].text
        if text in {"-u", "--unset", "-C", "--chdir"}:
            index += 2
        elif text.startswith("-") or "=" in text:
            index += 1
        else:
            break
    return list(args[index:])


# --- shells -----------------------------------------------------------------------

_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish",
                     "cmd", "powershell", "pwsh"})
# `curl URL | sh`, `wget -qO- URL | sudo bash`, `iwr URL | iex`, `curl URL | tee f | bash`,
# `bash <(curl URL)`, `sh -c "$(curl URL)"`: whatever the server sends runs. The text is
# cut into commands and their pipeline stages first, and each stage is matched from its
# start, so the work stays linear in the text's length (issue 6: 1 MB in under 1 s).
_COMMAND_SEPARATOR = re.compile(r"\|\||&&|[;&\n]")
_DOWNLOADER = re.compile(r"\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\b",
                         re.IGNORECASE)
# Compiled (and cached by `re`) when a stage follows a download, as few lines do.
_SHELL_STAGE = (r"(?i)\s*(?:sudo\s+(?:-\S+\s+)*)?(?:\S*/)?"
                r"(?:(?:ba|z|da|k|fi)?sh|iex|invoke-expression|python3?|node|pwsh|powershell)\b")
_SUBSTITUTED_DOWNLOAD = re.compile(r"[<$]\(\s*(?:curl|wget)\b", re.IGNORECASE)


def pipes_download_to_shell(text: str) -> bool:
    if _SUBSTITUTED_DOWNLOAD.search(text):
        return True
    for command in _COMMAND_SEPARATOR.split(text.replace("|&", "|")):
        downloaded = False
        for stage in command.split("|"):
            if downloaded and re.match(_SHELL_STAGE, stage):
                return True
            downloaded = downloaded or _DOWNLOADER.search(stage) is not None
    return False


_POWERSHELL_COMMAND = (r"(?i)-(?:c|co|com|comm|comma|comman|command|e|ec|enc"
                       r"|encodedcommand|commandwithargs|cwa)")  # compiled on first use


# Options that take the next word as their value (`bash -o pipefail -c ...`): that word
# is not a script file. PowerShell also accepts any unambiguous prefix of a parameter.
_SH_VALUE_OPTIONS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_FISH_VALUE_OPTIONS = frozenset({"-C", "--init-command", "-d", "--debug", "-o",
                                 "--debug-output", "-f", "--features", "--profile",
                                 "--profile-startup"})
_POWERSHELL_VALUE_PARAMETERS = (
    "executionpolicy", "windowstyle", "inputformat", "outputformat", "psconsolefile",
    "version", "configurationname", "configurationfile", "workingdirectory",
    "custompipename", "settingsfile", "encodedarguments",
)
_POWERSHELL_VALUE_ALIASES = frozenset({"ep", "ex", "w", "v", "if", "of", "wd", "config",
                                       "settings", "ea"})


def _shell_hits(program: str, args: Sequence[Arg], depth: int) -> Iterator[Hit]:
    skip = False
    for index, arg in enumerate(args):
        if skip:  # the value of the option before
            skip = False
            continue
        if not _is_command_flag(program, arg.text):
            if _runs_a_file(program, arg.text):
                return  # a script file: the shell runs a file, not a command string
            skip = _takes_a_value(program, arg.text)
            continue
        # sh -c takes one script (later words are its $0, $1...); cmd and powershell
        # take the rest of the line, as one string or as separate words.
        inner = list(args[index + 1:])
        if inner and (len(inner) == 1 or program not in {"cmd", "powershell", "pwsh"}):
            inner = _shell_words(inner[0])
        if not _plain_cmd_start(program, args[index + 1:], inner):
            yield Hit("MCP030", arg.path, f"{where(arg.path)}: runs a command string "
                                          f"through {program} {arg.text}")
        yield from _argv_hits(inner, depth + 1)
        return


def _plain_cmd_start(program: str, written: Sequence[Arg], inner: Sequence[Arg]) -> bool:
    """`cmd /c npx -y pkg`: Windows' documented way to start a runner, no script in it."""
    return (program == "cmd" and bool(inner) and _program(inner[0].text) in _CMD_TARGETS
            and not any(_SHELL_OPERATOR.search(arg.text) for arg in written))


def _runs_a_file(program: str, text: str) -> bool:
    if program in {"powershell", "pwsh"}:  # -File: the rest is the script's own
        lowered = text.lower()
        return not text.startswith(("-", "/")) or (len(lowered) > 1
                                                    and "-file".startswith(lowered))
    if program in {"cmd", "fish"}:
        return not text.startswith(("-", "/"))
    return not text.startswith(("-", "/", "+"))


def _takes_a_value(program: str, text: str) -> bool:
    if program in {"powershell", "pwsh"}:
        name = text[1:].lower()
        return name in _POWERSHELL_VALUE_ALIASES or (
            len(name) >= 2 and any(p.startswith(name) for p in _POWERSHELL_VALUE_PARAMETERS))
    if program == "cmd":
        return False
    if program == "fish":
        return text in _FISH_VALUE_OPTIONS
    return text in _SH_VALUE_OPTIONS


def _is_command_flag(program: str, text: str) -> bool:
    if program == "cmd":
        return text.lower() in {"/c", "/k"}
    if program in {"powershell", "pwsh"}:
        return re.fullmatch(_POWERSHELL_COMMAND, text) is not None
    # -c, or a cluster of short options holding c: -lc, -ec, -xc
    return re.fullmatch(r"-[a-zA-Z]*c[a-zA-Z]*", text) is not None or text == "--command"


# The words a script starts with are what is looked through (the program, its options,
# the package); shlex is pure Python, so a 1 MB script is not split to its end, and it
# grows one long word a character at a time (quadratic), so it sees only the start.
_SHELL_WORDS = 256
_SHELL_CHARS = 16 * 1024


def _shell_words(script: Arg) -> list[Arg]:
    text = script.text[:_SHELL_CHARS]
    if len(text) < len(script.text):
        text = text.rsplit(None, 1)[0] if text.split() else ""  # no word cut in two
    lexer = shlex.shlex(text, posix=True)
    lexer.whitespace_split = True
    lexer.commenters = ""  # as shlex.split: `#` is an ordinary character
    words: list[Arg] = []
    try:
        while len(words) < _SHELL_WORDS:
            word = lexer.get_token()
            if word is None:
                break
            words.append(Arg(word, script.path))
    except ValueError:  # an unclosed quote among the first words: not a command line
        return []
    return words


# --- package runners --------------------------------------------------------------

_PACKAGE_RUNNERS = frozenset({"npx", "bunx", "pnpx", "uvx"})
_RUNNER_PROGRAMS = _PACKAGE_RUNNERS | {"pnpm", "yarn", "uv", "pipx"}  # with a subcommand
# Options of npx/bunx/pnpm dlx, uvx/uv tool run and pipx run that take a value: the word
# after them is not the package.
_NODE_VALUE_OPTIONS = frozenset({"-p", "--package", "-c", "--call", "--registry", "--cache",
                                 "--userconfig", "--prefix", "-w", "--workspace"})
_PYTHON_VALUE_OPTIONS = frozenset({
    "--from", "--spec", "--with", "-w", "--with-editable", "--with-requirements", "--python",
    "-p", "--index", "--default-index", "--index-url", "-i", "--extra-index-url",
    "--find-links", "-f", "--constraints", "-c", "--overrides", "--build-constraints", "-b",
    "--refresh-package", "--reinstall-package", "--upgrade-package", "-P", "--cache-dir",
    "--config-file", "--directory", "--project", "--env-file", "--color", "--pip-args",
    "--python-preference", "--index-strategy", "--keyring-provider", "--resolution",
    "--prerelease", "--exclude-newer", "--link-mode", "--config-setting", "-C", "--backend",
})
_NODE_PACKAGE_OPTIONS = frozenset({"-p", "--package"})
_PYTHON_PACKAGE_OPTIONS = frozenset({"--from", "--spec"})


def _runner_hits(program: str, args: Sequence[Arg], command: Arg) -> Iterator[Hit]:
    runner, rest = _runner(program, args)
    if runner is None:
        return
    python = runner in {"uvx", "uv tool run", "pipx run"}
    if python:
        package = _package_arg(rest, _PYTHON_PACKAGE_OPTIONS, _PYTHON_VALUE_OPTIONS)
    else:
        package = _package_arg(rest, _NODE_PACKAGE_OPTIONS, _NODE_VALUE_OPTIONS)
    if package is None and any(a.text in {"-c", "--call"} or a.text.startswith("--call=")
                               for a in rest):
        return  # `npx -c 'cmd'` runs a command line, no package
    if package is None or not package.text.strip():
        at = package.path if package is not None else (rest[-1] if rest else command).path
        yield Hit("MCP045", at, f"{where(at)}: {runner} is given no package to run")
        return
    yield from _typosquat_hits(package)
    if not _from_registry(package.text):
        problem = _source_pin_problem(package.text, python=python)
    else:
        problem = (_python_pin_problem if python else _node_pin_problem)(package.text)
    if problem:
        yield Hit("MCP020", package.path,
                  f"{where(package.path)}: {runner} runs {shown(package.text)} {problem}")


def _runner(program: str, args: Sequence[Arg]) -> tuple[str | None, Sequence[Arg]]:
    words = [arg.text for arg in args]
    if program in _PACKAGE_RUNNERS:
        return program, args
    if program in {"pnpm", "yarn"} and "dlx" in words:
        return f"{program} dlx", args[words.index("dlx") + 1:]
    if program == "uv" and words[:2] == ["tool", "run"]:
        return "uv tool run", args[2:]
    if program == "pipx" and words[:1] == ["run"]:
        return "pipx run", args[1:]
    return None, args


def _package_arg(
    args: Sequence[Arg], package_options: frozenset[str], value_options: frozenset[str]
) -> Arg | None:
    """The package the runner installs: a `--package/--from/--spec` value given before
    the first operand, else that operand (what follows it is the package's own)."""
    end = _operand_index(args, value_options | package_options)
    for index, arg in enumerate(args[:end]):
        name, equals, value = arg.text.partition("=")
        if name in package_options:
            return Arg(value, arg.path) if equals else _at(args, index + 1)
    return _at(args, end)


def _operand_index(args: Sequence[Arg], value_options: frozenset[str]) -> int:
    """Where the first word that is neither an option nor an option's value is."""
    index = 0
    while index < len(args):
        text = args[index].text
        if text == "--":
            return index + 1
        if not text.startswith("-"):
            return index
        index += 2 if text in value_options else 1
    return index


def _at(args: Sequence[Arg], index: int) -> Arg | None:
    return args[index] if index < len(args) else None


def _from_registry(spec: str) -> bool:
    """False for paths, URLs, git and GitHub shorthands: pinned (or not) another way."""
    if "${" in spec or "://" in spec or spec.startswith((".", "/", "~", "\\")):
        return False
    if re.match(r"(?:file|git|git\+\w+|github|gitlab|bitbucket|npm|link|workspace):", spec):
        return False
    return not re.fullmatch(r"[\w.-]+/[\w.-]+(?:#.*)?", spec) and not spec.endswith(
        (".whl", ".tar.gz", ".tgz", ".zip"))


def _source_pin_problem(spec: str, *, python: bool) -> str | None:
    """A git source without a revision, or a tarball URL: what it runs can change."""
    if "${" in spec:
        return None
    lowered = spec.lower()
    if lowered.startswith(("git+", "git://", "github:", "gitlab:", "bitbucket:")):
        location = re.sub(r"^[A-Za-z+]+:(?://(?:[^@/]*@)?)?", "", spec)
        marker = "@" if python else "#"
        return None if marker in location or "#" in location else "from git without a " \
            "revision"
    if re.fullmatch(r"\w[\w.-]*/[\w.-]+", spec) and not python:
        return "from GitHub without a revision"
    if lowered.startswith(("http://", "https://")) and lowered.endswith(
            (".tgz", ".tar.gz", ".whl", ".zip")):
        return "from a download URL, which can serve other bytes tomorrow"
    return None


_EXACT_VERSION = re.compile(r"v?\d+(?:\.\d+){2}(?:[-+][0-9A-Za-z.+-]+)?")


def _node_pin_problem(spec: str) -> str | None:
    name, at, version = spec[1:].rpartition("@") if spec.startswith("@") else spec.rpartition("@")
    if not at or not name:
        return "without a version"
    return _version_problem(version)


def _python_pin_problem(spec: str) -> str | None:
    if "==" in spec:
        version = spec.split("==", 1)[1].lstrip("=").strip()
        return None if version and "*" not in version else "with a wildcard version"
    name, at, version = spec.partition("@")
    if at and name:  # uvx pkg@1.2 means pkg==1.2
        return None if re.fullmatch(r"\d[\w.!+-]*", version) else _version_problem(version)
    if re.search(r"[<>~!]=?|\^", spec):
        return "with a version range"
    return "without a version"


def _version_problem(version: str) -> str | None:
    if _EXACT_VERSION.fullmatch(version):
        return None
    if re.fullmatch(r"[A-Za-z][\w.-]*", version):
        return f"at the moving tag @{version}"
    return f"with the version range {shown(version)}"


# --- container images -------------------------------------------------------------

_DOCKER_VALUE_OPTIONS = frozenset({
    "-a", "--attach", "--add-host", "--annotation", "--blkio-weight", "--cap-add",
    "--cap-drop", "--cgroup-parent", "--cgroupns", "--cidfile", "-c", "--cpu-shares",
    "--cpus", "--cpuset-cpus", "--device", "--dns", "--dns-option", "--dns-search",
    "--domainname", "--entrypoint", "-e", "--env", "--env-file", "--expose", "--gpus",
    "--group-add", "--health-cmd", "--health-interval", "--health-retries", "-h",
    "--hostname", "--ip", "--ip6", "--ipc", "--isolation", "-l", "--label", "--label-file",
    "--link", "--log-driver", "--log-opt", "--mac-address", "-m", "--memory",
    "--memory-swap", "--mount", "--name", "--network", "--net", "--network-alias",
    "--pid", "--platform", "-p", "--publish", "--pull", "--restart", "--runtime",
    "--security-opt", "--shm-size", "--stop-signal", "--stop-timeout", "--storage-opt",
    "--sysctl", "--tmpfs", "-u", "--user", "--ulimit", "--userns", "--uts", "-v",
    "--volume", "--volumes-from", "-w", "--workdir",
})


# docker's options that come before the subcommand (`docker --context prod run ...`).
_DOCKER_GLOBAL_OPTIONS = frozenset({"--config", "-c", "--context", "-D", "--debug", "-H",
                                    "--host", "-l", "--log-level", "--tls", "--tlscacert",
                                    "--tlscert", "--tlskey", "--tlsverify"})


_DOCKER_EXEC_VALUE_OPTIONS = frozenset({"-e", "--env", "--env-file", "-u", "--user", "-w",
                                        "--workdir", "--detach-keys"})


def _image_hits(program: str, args: Sequence[Arg], command: Arg, depth: int = 0
                ) -> Iterator[Hit]:
    words = [arg.text for arg in args]
    if words[:1] == ["exec"] or words[:2] == ["container", "exec"]:
        # `docker exec -i box npx pkg`: what runs in the container is checked as itself.
        rest = args[1 if words[0] == "exec" else 2:]
        container = _operand_index(rest, _DOCKER_EXEC_VALUE_OPTIONS)
        yield from _argv_hits(rest[container + 1:], depth + 1)
        return
    first = words[0] if words else ""
    if not words or (first.startswith("-") and first.split("=")[0] not in
                     _DOCKER_GLOBAL_OPTIONS) or "/" in first or ":" in first:
        at = args[0].path if args else command.path
        yield Hit("MCP045", at, f"{where(at)}: {program} is given no subcommand (run, exec, "
                                f"compose...): {program} {shown(first) if first else ''} "
                                "exits without starting anything")
        return
    if words[:1] == ["run"]:
        rest = args[1:]
    elif words[:2] == ["container", "run"]:
        rest = args[2:]
    else:
        return
    image = _at(rest, _operand_index(rest, _DOCKER_VALUE_OPTIONS))
    if image is None or "${" in image.text:
        return
    tag, digest = _image_tag_and_digest(image.text)
    about = f"{where(image.path)}: {program} image {shown(image.text)}"
    if digest:
        return
    if not tag:
        yield Hit("MCP021", image.path, f"{about} has no tag (so it runs latest)")
    elif tag == "latest":
        yield Hit("MCP021", image.path, f"{about} is tagged latest")
    else:
        yield Hit("MCP022", image.path, f"{about} is pinned by tag, not by digest")


def _image_tag_and_digest(image: str) -> tuple[str, str]:
    # registry:5000/team/name:tag@sha256:...: the tag is after the last ':' of the
    # last path segment, so a registry's port is not mistaken for one.
    name, _, digest = image.partition("@")
    last = name.rsplit("/", 1)[-1]
    return last.partition(":")[2], digest


# --- scopes one typo away from a well-known one -----------------------------------

_KNOWN_SCOPES = ("@modelcontextprotocol",)


def _typosquat_hits(package: Arg) -> Iterator[Hit]:
    scope = package.text.split("/", 1)[0].lower() if package.text.startswith("@") else ""
    if not scope or scope in _KNOWN_SCOPES or len(scope) > 64:
        return
    for known in _KNOWN_SCOPES:
        if _within_two_edits(scope, known):
            yield Hit("MCP024", package.path, f"{where(package.path)}: scope {shown(scope)} "
                                              f"is one or two letters away from {known}")


def _within_two_edits(left: str, right: str) -> bool:
    """Levenshtein distance of 1 or 2 (both strings at most 64 characters: bounded)."""
    if abs(len(left) - len(right)) > 2 or left == right:
        return False
    previous = list(range(len(right) + 1))
    for i, a in enumerate(left, start=1):
        current = [i]
        for j, b in enumerate(right, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1,
                               previous[j - 1] + (a != b)))
        previous = current
    return previous[-1] <= 2


# --- shell syntax that no client expands -------------------------------------------

_SUBSTITUTION = re.compile(r"\$\([^()]*+\)|`[^`]++`")
_WINDOWS_VARIABLE = re.compile(r"%[A-Za-z_][A-Za-z0-9_]{0,64}+%")


def _literal_hits(argv: Sequence[Arg]) -> Iterator[Hit]:
    """MCP044 for `$(...)`, backticks and `%VAR%`, MCP043 for `~/` in an argument: a
    client passes them to the program as they are, unless the program is a shell (which
    expands them itself: `sh -c`, and `cmd` for `%VAR%`)."""
    program = _program(argv[0].text) if argv else ""
    if program in _SHELLS and program != "cmd":
        return
    for arg in argv:
        text = arg.text
        if program != "cmd" and ("$(" in text or "`" in text) and _SUBSTITUTION.search(text):
            yield Hit("MCP044", arg.path, f"{where(arg.path)}: {shown(text)} holds a shell "
                                          "substitution, which no client runs")
        elif "%" in text and program != "cmd" and _WINDOWS_VARIABLE.search(text):
            yield Hit("MCP044", arg.path, f"{where(arg.path)}: {shown(text)} holds a Windows "
                                          "%VAR%, which the client passes as it is")
        elif arg is not argv[0] and (text == "~" or text.startswith(("~/", "~\\"))
                                     or "=~/" in text):
            yield Hit("MCP043", arg.path, f"{where(arg.path)}: {shown(text)} uses '~', which "
                                          "only a shell expands")
