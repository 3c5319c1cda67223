"""mcpctl's own folders are the ones platformdirs gives, on Linux and macOS alike.

platformdirs reads `os.environ`, so each case sets the real environment and hands
mcpctl the same mapping.
"""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import platformdirs
import pytest
from platformdirs.macos import MacOS
from platformdirs.unix import Unix

from mcpctl.paths import Paths
from tests.conftest import run_mcpctl

XDG = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME")
ACCOUNT_HOME = pwd.getpwuid(os.getuid()).pw_dir

# Each case: HOME (None: unset) and the XDG variables (None: unset).
CASES = {
    "no XDG variables": ("/home/ada", {}),
    "absolute XDG variables": ("/home/ada", {"XDG_CONFIG_HOME": "/x/conf",
                                             "XDG_DATA_HOME": "/x/data/",
                                             "XDG_CACHE_HOME": "/x//cache"}),
    "relative XDG variables are ignored": ("/home/ada", {"XDG_CONFIG_HOME": "conf",
                                                         "XDG_DATA_HOME": "./data",
                                                         "XDG_CACHE_HOME": "~/cache"}),
    "empty XDG variables": ("/home/ada", dict.fromkeys(XDG, "")),
    "one XDG variable": ("/home/ada/", {"XDG_CACHE_HOME": "/var/tmp/c"}),
    "home is the root": ("/", {}),
    "relative HOME: the account's": ("somewhere", {}),
    "empty HOME: the account's": ("", {}),
    "no HOME: the account's": (None, {}),
}


def set_environment(monkeypatch: pytest.MonkeyPatch, home: str | None,
                    xdg: dict[str, str]) -> None:
    monkeypatch.delenv("MCPCTL_HOME", raising=False)
    for name in XDG:
        monkeypatch.delenv(name, raising=False)
    if home is None:
        monkeypatch.delenv("HOME", raising=False)
    else:
        monkeypatch.setenv("HOME", home)
    for name, value in xdg.items():
        monkeypatch.setenv(name, value)


def folders(dirs: platformdirs.PlatformDirsABC) -> Paths:
    return Paths(dirs.user_config_path, dirs.user_data_path, dirs.user_cache_path)


@pytest.mark.parametrize("case", CASES)
def test_linux_folders_are_platformdirs_folders(monkeypatch: pytest.MonkeyPatch,
                                                case: str) -> None:
    set_environment(monkeypatch, *CASES[case])
    expected = folders(Unix(appname="mcpctl", appauthor=False))
    assert Paths.from_environment(os.environ, "linux") == expected
    assert expected == Paths(platformdirs.user_config_path("mcpctl", appauthor=False),
                             platformdirs.user_data_path("mcpctl", appauthor=False),
                             platformdirs.user_cache_path("mcpctl", appauthor=False))


@pytest.mark.parametrize("case", CASES)
def test_macos_folders_are_platformdirs_folders(monkeypatch: pytest.MonkeyPatch,
                                                case: str) -> None:
    set_environment(monkeypatch, *CASES[case])
    expected = folders(MacOS(appname="mcpctl", appauthor=False))
    assert Paths.from_environment(os.environ, "darwin") == expected


def test_the_folders_spelled_out(monkeypatch: pytest.MonkeyPatch) -> None:
    set_environment(monkeypatch, "/home/ada", {"XDG_CACHE_HOME": "/var/tmp/c"})
    assert Paths.from_environment(os.environ, "linux") == Paths(
        Path("/home/ada/.config/mcpctl"), Path("/home/ada/.local/share/mcpctl"),
        Path("/var/tmp/c/mcpctl"))
    assert Paths.from_environment(os.environ, "darwin") == Paths(
        Path("/home/ada/Library/Application Support/mcpctl"),
        Path("/home/ada/Library/Application Support/mcpctl"), Path("/var/tmp/c/mcpctl"))
    set_environment(monkeypatch, None, {})
    assert Paths.from_environment(os.environ, "linux").config_dir == \
        Path(ACCOUNT_HOME) / ".config" / "mcpctl"


def test_other_platforms_ask_platformdirs(monkeypatch: pytest.MonkeyPatch) -> None:
    """On Windows (and an Android app) the folders are platformdirs' own answer; here
    that answer is this machine's, which is all a Linux run can show."""
    set_environment(monkeypatch, "/home/ada", {})
    asked = folders(platformdirs.PlatformDirs(appname="mcpctl", appauthor=False))
    assert Paths.from_environment(os.environ, "win32") == asked
    android = {**os.environ, "ANDROID_DATA": "/data", "ANDROID_ROOT": "/system",
               "HOME": "/elsewhere"}
    assert Paths.from_environment(android, "linux") == asked


def test_mcpctl_home_puts_everything_in_one_folder() -> None:
    assert Paths.from_environment({"MCPCTL_HOME": "/srv/m", "XDG_CONFIG_HOME": "/x"}) == \
        Paths(Path("/srv/m/config"), Path("/srv/m/data"), Path("/srv/m/cache"))


def test_mcpctl_home_with_a_tilde_is_under_home() -> None:
    """`MCPCTL_HOME=~/m` (quoted in a script, so the shell left the tilde) is HOME's `m`.

    The tilde is expanded with the HOME of the environment handed in, as every other
    folder is: `Path.expanduser()` alone read the process's own HOME, and this failed."""
    paths = Paths.from_environment({"HOME": "/home/ada", "MCPCTL_HOME": "~/m"}, "linux")
    assert paths == Paths(Path("/home/ada/m/config"), Path("/home/ada/m/data"),
                          Path("/home/ada/m/cache"))


def test_mcpctl_home_under_a_named_account_is_that_accounts_home() -> None:
    """`MCPCTL_HOME=~name/m` is the account `name`'s `m`, as a shell reads it, never
    HOME's `namem`. Planted by hand, `startswith("~/")` shortened to `startswith("~")`
    read it as HOME's, and this failed."""
    account = pwd.getpwuid(os.getuid())
    paths = Paths.from_environment({"HOME": "/home/ada", "MCPCTL_HOME": f"~{account.pw_name}/m"},
                                   "linux")
    assert paths.config_dir == Path(account.pw_dir) / "m" / "config"


@pytest.mark.parametrize("command", [["list"], ["run", "s"], ["doctor"]])
def test_mcpctl_home_under_an_unknown_account_is_a_one_line_error(
        isolated_home: Path, tmp_path: Path, command: list[str]) -> None:
    """A `~name` no account has stops every command with exit 3 and one line, and makes
    no folder. Before, `Path.expanduser` raised, and the crash handler, asking the same
    paths for its log, raised again: two tracebacks."""
    result = run_mcpctl(command, cwd=tmp_path, env={"MCPCTL_HOME": "~no-such-account-here/m"})
    assert (result.code, result.err) == (3, (
        "mcpctl: error: MCPCTL_HOME=~no-such-account-here/m names the home of "
        "'no-such-account-here', an account this machine does not have; give the folder's "
        "full path\n"))
    assert not (tmp_path / "~no-such-account-here").exists()


def test_an_empty_mcpctl_home_is_the_same_as_none() -> None:
    """`MCPCTL_HOME=` (a script's unset variable) falls back to the user's folders; it is
    never the current directory. Planted by hand, `if home is not None:` put config/,
    data/ and cache/ in the current directory, and this failed."""
    environ = {"HOME": "/home/ada", "MCPCTL_HOME": ""}
    assert Paths.from_environment(environ, "linux") == Paths.from_environment(
        {"HOME": "/home/ada"}, "linux")
    assert Paths.from_environment(environ, "linux").config_dir == Path(
        "/home/ada/.config/mcpctl")
