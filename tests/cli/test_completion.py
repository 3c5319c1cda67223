"""`--version`, and shell completion of commands, server and client names (bash, zsh, fish)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from mcpctl import __version__
from tests.conftest import REPO, run_mcpctl

EXAMPLE = ["--workspace", str(REPO / "examples" / "demo-repo"),
           "--config", str(REPO / "examples" / "config.toml")]


def bash_words(line: str) -> list[str]:
    """What bash's completion function gets back for the words of `line`."""
    words = line.split(" ")
    done = run_mcpctl([], env={"_MCPCTL_COMPLETE": "complete_bash", "COMP_WORDS": line,
                               "COMP_CWORD": str(len(words) - 1)})
    assert (done.code, done.err) == (0, "")
    return done.out.split()


def test_version_is_the_package_version() -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert __version__ == pyproject["project"]["version"]
    assert run_mcpctl(["--version"]).out == f"mcpctl {__version__}\n"


def test_commands_complete() -> None:
    assert bash_words("mcpctl co") == ["cost"]
    assert bash_words("mcpctl re") == ["remove", "revoke"]
    assert bash_words("mcpctl secret ") == ["set", "get", "rm", "list", "check"]


def test_server_names_complete_from_both_tiers() -> None:
    assert bash_words(f"mcpctl show {' '.join(EXAMPLE)} ") == [
        "docs", "github", "memory", "tasks", "time"]
    assert bash_words(f"mcpctl run {' '.join(EXAMPLE)} t") == ["tasks", "time"]
    assert bash_words(f"mcpctl cost {' '.join(EXAMPLE)} gi") == ["github"]


def test_server_names_complete_from_a_subfolder_as_list_reads_there(tmp_path: Path) -> None:
    """A subfolder's own `.mcp.json` (issue 22): its names complete there, not at the root."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "sub").mkdir()
    for folder, name in ((root, "top"), (root / "sub", "nearer")):
        (folder / ".mcp.json").write_text(json.dumps({"mcpServers": {name: {"command": "x"}}}))
    config = ["--config", str(tmp_path / "none.toml")]

    def words(cwd: Path) -> list[str]:
        line = f"mcpctl run {' '.join(config)} "
        done = run_mcpctl([], cwd=cwd, env={"_MCPCTL_COMPLETE": "complete_bash",
                                            "COMP_WORDS": line, "COMP_CWORD": "4"})
        assert (done.code, done.err) == (0, "")
        return done.out.split()

    assert words(root / "sub") == ["nearer", "top"]
    assert words(root) == ["top"]


def test_client_names_complete() -> None:
    assert bash_words("mcpctl export --to c") == ["claude-code", "claude-desktop", "cursor",
                                                   "codex"]
    assert bash_words("mcpctl clients enable g") == ["gemini"]


def test_a_broken_config_completes_nothing_and_prints_no_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "config.toml"
    bad.write_text("[servers.x\n")
    assert bash_words(f"mcpctl show --config {bad} ") == []


def test_zsh_and_fish_get_the_same_names() -> None:
    line = f"mcpctl run {' '.join(EXAMPLE)} t"
    zsh = run_mcpctl([], env={"_MCPCTL_COMPLETE": "complete_zsh", "_TYPER_COMPLETE_ARGS": line})
    assert zsh.out == "_arguments '*: :((\"tasks\"\n\"time\"))'\n"
    fish = run_mcpctl([], env={"_MCPCTL_COMPLETE": "complete_fish",
                               "_TYPER_COMPLETE_ARGS": line,
                               "_TYPER_COMPLETE_FISH_ACTION": "get-args"})
    assert fish.out.split() == ["tasks", "time"]


SCRIPT_LINES = {"bash": "complete -o default -F _mcpctl_completion mcpctl",
                "zsh": "#compdef mcpctl",
                "fish": "complete --command mcpctl --no-files"}


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_show_completion_prints_the_named_shells_script(shell: str) -> None:
    """The shell named wins over the one typer would detect from the parent process
    (here bash; from a script with no shell above it, detection finds none at all)."""
    bash = shutil.which("bash")
    assert bash is not None
    done = subprocess.run([bash, "-c", '"$0" -m mcpctl --show-completion "$1"; true',
                           sys.executable, shell], capture_output=True, text=True,
                          timeout=60, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    assert SCRIPT_LINES[shell] in done.stdout
    assert "_MCPCTL_COMPLETE" in done.stdout
    others = [line for name, line in SCRIPT_LINES.items() if name != shell]
    assert not any(line in done.stdout for line in others)


def test_the_bash_script_completes_in_a_real_bash(tmp_path: Path) -> None:
    bash = shutil.which("bash")
    assert bash is not None
    script = run_mcpctl(["--show-completion", "bash"]).out
    mcpctl = Path(shutil.which("mcpctl") or "")
    assert mcpctl.is_file(), "the mcpctl console script is installed in the environment"
    probe = (f"{script}\nCOMP_WORDS=(mcpctl export --to cu); COMP_CWORD=3\n"
             f"_mcpctl_completion {mcpctl}\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n")
    done = subprocess.run([bash, "--norc", "-c", probe], capture_output=True, text=True,
                          timeout=60, check=False)
    assert json.dumps(done.stdout.split()) == json.dumps(["cursor"])
