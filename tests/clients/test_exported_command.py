"""The command exported entries run: `mcpctl` where every client finds it, else the
absolute path of the running mcpctl, never one a git work tree holds while another can
be found, and `mcpctl clients command` to set it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema  # type: ignore[import-untyped, unused-ignore]

from mcpctl.clients.exported_command import DEFAULT_COMMAND, ExportedCommand, default_command
from tests.clients import TOKEN_SERVER, write_config
from tests.conftest import REPO, Cli
from tests.sdk_client import list_tools

CONSOLE_SCRIPT = Path(sys.executable).with_name("mcpctl")  # this checkout's, installed


def executable(path: Path, text: str = "#!/bin/sh\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def git_repo(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(path)], check=True, timeout=60)
    return path


def elsewhere(tmp_path: Path) -> dict[str, str]:
    """What the running mcpctl runs, put where no work tree holds it, and no PATH: the
    tests of the choice do not depend on where this checkout or its venv lie."""
    return {"interpreter": str(executable(tmp_path / "python" / "bin" / "python3")),
            "code": str(tmp_path / "site-packages" / "mcpctl"), "search_path": ""}


def in_work_tree(script: Path | str, tree: Path) -> str:
    return (f"exported entries run {script}, which lies in the git work tree {tree}: a "
            "commit or checkout there changes what every client runs; install mcpctl outside "
            "it (uv tool install, pipx) or set the command with `mcpctl clients command PATH`")


def test_the_console_script_outside_the_system_folders_is_named_absolutely(
        tmp_path: Path) -> None:
    script = executable(tmp_path / "home" / ".local" / "bin" / "mcpctl")
    assert default_command([str(script), "sync"], **elsewhere(tmp_path)) == \
        ExportedCommand(str(script))


def test_a_symlinked_script_keeps_the_path_it_was_started_by(tmp_path: Path) -> None:
    target = executable(tmp_path / "tools" / "mcpctl" / "bin" / "mcpctl")
    link = tmp_path / "bin" / "mcpctl"
    link.parent.mkdir()
    link.symlink_to(target)
    assert default_command([str(link)], **elsewhere(tmp_path)) == ExportedCommand(str(link))


def test_a_script_in_a_system_folder_is_found_by_name(tmp_path: Path) -> None:
    script = executable(tmp_path / "usr" / "bin" / "mcpctl")
    assert default_command([str(script)], standard=[str(script.parent)]) == \
        ExportedCommand(DEFAULT_COMMAND)


def test_run_another_way_the_name_is_all_there_is(tmp_path: Path) -> None:
    main = executable(tmp_path / "mcpctl" / "__main__.py")
    assert default_command([str(main)]) == ExportedCommand(DEFAULT_COMMAND)
    assert default_command([str(tmp_path / "missing" / "mcpctl")]) == \
        ExportedCommand(DEFAULT_COMMAND)
    assert default_command([]) == ExportedCommand(DEFAULT_COMMAND)


def test_a_script_in_a_git_work_tree_is_written_with_a_warning(tmp_path: Path) -> None:
    clone = git_repo(tmp_path / "clone")
    script = executable(clone / ".venv" / "bin" / "mcpctl")
    assert default_command([str(script)], **elsewhere(tmp_path)) == ExportedCommand(
        str(script), warning=in_work_tree(script, clone))
    # A link from outside into the clone runs the clone's file.
    link = tmp_path / "bin" / "mcpctl"
    link.parent.mkdir()
    link.symlink_to(script)
    assert default_command([str(link)], **elsewhere(tmp_path)) == ExportedCommand(
        str(link), warning=in_work_tree(link, clone))


def test_what_the_script_runs_counts_too(tmp_path: Path) -> None:
    """The interpreter of a venv made in a clone, and the code of an editable install of a
    checkout (here a linked worktree, whose `.git` is a file)."""
    script = executable(tmp_path / "home" / ".local" / "bin" / "mcpctl")
    clone = git_repo(tmp_path / "clone")
    interpreter = executable(clone / ".venv" / "bin" / "python3")
    assert default_command([str(script)], **{**elsewhere(tmp_path), "interpreter": str(
        interpreter)}) == ExportedCommand(str(script), warning=in_work_tree(script, clone))
    subprocess.run(["git", "-C", str(clone), "-c", "user.name=t", "-c", "user.email=t@t",
                    "commit", "-q", "--allow-empty", "-m", "first"], check=True, timeout=60)
    worktree = tmp_path / "worktree"
    subprocess.run(["git", "-C", str(clone), "worktree", "add", "-q", str(worktree)],
                   check=True, timeout=60)
    assert (worktree / ".git").is_file()
    assert default_command([str(script)], **{**elsewhere(tmp_path), "code": str(
        worktree / "src" / "mcpctl")}) == ExportedCommand(str(script),
                                                          warning=in_work_tree(script, worktree))


def test_an_mcpctl_on_path_outside_every_work_tree_is_preferred(tmp_path: Path) -> None:
    clone = git_repo(tmp_path / "clone")
    script = executable(clone / ".venv" / "bin" / "mcpctl")
    other_clone = git_repo(tmp_path / "other")
    in_other = executable(other_clone / "bin" / "mcpctl")
    runs_a_clones_python = executable(tmp_path / "venv-bin" / "mcpctl",
                                      f"#!{other_clone / '.venv' / 'bin' / 'python'}\n")
    not_executable = executable(tmp_path / "plain" / "mcpctl")
    not_executable.chmod(0o644)
    installed = executable(tmp_path / "home" / ".local" / "bin" / "mcpctl",
                           f"#!{tmp_path / 'tools' / 'python'} -I\n")
    search = os.pathsep.join(["relative/bin", str(script.parent), str(in_other.parent),
                              str(runs_a_clones_python.parent), str(not_executable.parent),
                              str(installed.parent), str(tmp_path / "later")])
    assert default_command([str(script)], **{**elsewhere(tmp_path), "search_path": search}) \
        == ExportedCommand(str(installed), note=(
            f"the running mcpctl ({script}) lies in the git work tree {clone}; exported "
            f"entries run {installed}, found on PATH"))
    system = executable(tmp_path / "usr" / "bin" / "mcpctl")
    assert default_command([str(script)], standard=[str(system.parent)], **{
        **elsewhere(tmp_path), "search_path": str(system.parent)}) == ExportedCommand(
        DEFAULT_COMMAND, note=(f"the running mcpctl ({script}) lies in the git work tree "
                               f"{clone}; exported entries run {system}, found on PATH"))


def test_clients_command_sets_shows_and_resets_keeping_comments(
        cli: Cli, user_config: Path) -> None:
    write_config(user_config, '# mine\n[clients]\nsync = ["cursor"] # both\n')
    set_it = cli("clients", "command", "/opt/mcpctl/bin/mcpctl", "--json")
    assert set_it.code == 0, set_it.err
    assert json.loads(set_it.out) == {
        "schema_version": 1, "command": "/opt/mcpctl/bin/mcpctl",
        "exported_command": "/opt/mcpctl/bin/mcpctl", "changed": True,
        "path": str(user_config)}
    assert user_config.read_text() == ('# mine\n[clients]\nsync = ["cursor"] # both\n'
                                       'command = "/opt/mcpctl/bin/mcpctl"\n')
    again = cli("clients", "command", "/opt/mcpctl/bin/mcpctl")
    assert again.out.endswith("(already so)\n")
    reset = cli("clients", "command", "--reset")
    assert reset.code == 0, reset.err
    assert user_config.read_text() == '# mine\n[clients]\nsync = ["cursor"] # both\n'
    both = cli("clients", "command", "/x", "--reset")
    assert (both.code, both.err) == (2, "mcpctl: error: give a PATH or --reset, not both\n")


def test_an_exported_entry_starts_in_a_client_whose_path_lacks_mcpctl(
        tmp_path: Path, user_config: Path, isolated_home: Path) -> None:
    """The installed console script exports its own absolute path; a client with only
    the system folders on PATH then starts the server through it."""
    write_config(user_config, f'[servers.tokens]\ncommand = "{sys.executable}"\n'
                              f'args = ["{TOKEN_SERVER}"]\nenv = {{ API_TOKEN = "plain" }}\n')
    exported = subprocess.run([str(CONSOLE_SCRIPT), "export", "--to", "cursor", "tokens"],
                              capture_output=True, text=True, timeout=60, check=False,
                              env={**os.environ, "PATH": "/usr/bin:/bin"})
    # This checkout's venv lies in its work tree (not in an unpacked sdist).
    said = f"warning: {in_work_tree(CONSOLE_SCRIPT, REPO)}\n" \
        if os.path.lexists(REPO / ".git") else ""
    assert (exported.returncode, exported.stderr) == (0, said)
    entry = json.loads((isolated_home / ".cursor" / "mcp.json").read_text())["mcpServers"][
        "tokens"]
    assert entry == {"command": str(CONSOLE_SCRIPT), "args": ["run", "tokens"]}
    tools = list_tools(entry["command"], entry["args"], {"PATH": "/usr/bin:/bin"})
    assert [name for name, _ in tools] == ["whoami"]


def console_script(path: Path) -> Path:
    """An mcpctl console script as an installer writes one, for this interpreter."""
    return executable(path, f"#!{sys.executable}\nimport sys\n"
                            "from mcpctl.cli.main import main\nsys.exit(main())\n")


def test_export_from_a_clone_warns_then_prefers_an_mcpctl_outside_it(
        tmp_path: Path, user_config: Path, isolated_home: Path) -> None:
    write_config(user_config, f'[servers.tokens]\ncommand = "{sys.executable}"\n'
                              f'args = ["{TOKEN_SERVER}"]\nenv = {{ API_TOKEN = "plain" }}\n')
    clone = git_repo(tmp_path / "clone")
    script = console_script(clone / ".venv" / "bin" / "mcpctl")
    cursor = isolated_home / ".cursor" / "mcp.json"

    def export(search_path: str, *options: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(script), "export", "--to", "cursor", "tokens", *options],
                              capture_output=True, text=True, timeout=60, check=False,
                              cwd=tmp_path, env={**os.environ, "PATH": search_path})

    alone = export("/usr/bin:/bin")
    assert (alone.returncode, alone.stderr) == (0, f"warning: {in_work_tree(script, clone)}\n")
    assert json.loads(cursor.read_text())["mcpServers"]["tokens"]["command"] == str(script)
    as_json = export("/usr/bin:/bin", "--json", "--dry-run")
    report = json.loads(as_json.stdout)
    jsonschema.validate(report, json.loads((REPO / "schemas" / "export.schema.json")
                                           .read_text(encoding="utf-8")))
    # Warnings go to stderr in JSON mode too (a person reading the JSON still sees them).
    assert (as_json.stderr, report["command"], report["warnings"], report["notes"]) == (
        f"warning: {in_work_tree(script, clone)}\n", str(script), [in_work_tree(script, clone)],
        [])

    # Installed elsewhere too (here a wrapper, as a package manager might write one):
    # that one is named, and the entry starts through it with a desktop client's PATH.
    installed = executable(tmp_path / "tools" / "bin" / "mcpctl",
                           f'#!/bin/sh\nexec "{sys.executable}" -m mcpctl "$@"\n')
    preferred = export(f"{script.parent}:{installed.parent}:/usr/bin:/bin", "--json")
    report = json.loads(preferred.stdout)
    note = (f"the running mcpctl ({script}) lies in the git work tree {clone}; exported "
            f"entries run {installed}, found on PATH")
    assert (preferred.returncode, report["command"], report["warnings"], report["notes"]) == (
        0, str(installed), [], [note])
    assert [change["status"] for change in report["clients"][0]["changes"]] == ["updated"]
    entry = json.loads(cursor.read_text())["mcpServers"]["tokens"]
    assert entry == {"command": str(installed), "args": ["run", "tokens"]}
    tools = list_tools(entry["command"], entry["args"], {"PATH": "/usr/bin:/bin"})
    assert [name for name, _ in tools] == ["whoami"]
    said = export(f"{installed.parent}:/usr/bin:/bin")
    assert said.stderr == f"note: {note}\n"


def test_clients_command_from_a_clone_warns_as_export_does(
        tmp_path: Path, user_config: Path) -> None:
    """Showing the default says what export would say of it, on stderr in both modes."""
    write_config(user_config, "")
    clone = git_repo(tmp_path / "clone")
    script = console_script(clone / ".venv" / "bin" / "mcpctl")

    def show(*options: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(script), "clients", "command", *options],
                              capture_output=True, text=True, timeout=60, check=False,
                              cwd=tmp_path, env={**os.environ, "PATH": "/usr/bin:/bin"})

    said = f"warning: {in_work_tree(script, clone)}\n"
    text = show()
    assert (text.returncode, text.stderr) == (0, said)
    assert text.stdout.startswith(f"exported entries run: {script} (default; set one in ")
    as_json = show("--json")
    assert (as_json.returncode, as_json.stderr) == (0, said)
    assert json.loads(as_json.stdout)["exported_command"] == str(script)
    # A command that is set is what entries run: nothing to warn about.
    assert subprocess.run([str(script), "clients", "command", "/opt/mcpctl/bin/mcpctl"],
                          capture_output=True, text=True, timeout=60, check=True,
                          cwd=tmp_path, env={**os.environ, "PATH": "/usr/bin:/bin"}).stderr == ""
