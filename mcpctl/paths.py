"""Where mcpctl keeps its files: one `Paths` value, built once and passed down.

The folders are platformdirs' `user_config_path`, `user_data_path` and
`user_cache_path` for "mcpctl" (no app author), worked out here for Linux and macOS in
a few lines, as platformdirs 4.14 does (XDG variables first on both): importing
platformdirs costs a large part of `mcpctl run`'s start-up. Anywhere else (Windows,
whose folders come from the shell's known-folder API; Android; iOS) platformdirs is
still asked. `tests/test_paths.py` compares the two with platformdirs itself.
"""

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

APP = "mcpctl"
# (XDG variable, folder under home without it): Linux and other Unix, then macOS.
_UNIX = {"config": ("XDG_CONFIG_HOME", ".config"), "data": ("XDG_DATA_HOME", ".local/share"),
         "cache": ("XDG_CACHE_HOME", ".cache")}
_MACOS = {"config": ("XDG_CONFIG_HOME", "Library/Application Support"),
          "data": ("XDG_DATA_HOME", "Library/Application Support"),
          "cache": ("XDG_CACHE_HOME", "Library/Caches")}


class Paths(NamedTuple):
    config_dir: Path
    data_dir: Path
    cache_dir: Path

    @property
    def config_file(self) -> Path:
        return self.config_dir / "config.toml"

    @property
    def trust_file(self) -> Path:
        return self.data_dir / "trust.json"

    @property
    def secrets_index(self) -> Path:
        return self.data_dir / "secrets.json"

    @property
    def probe_cache(self) -> Path:
        return self.cache_dir / "probes"

    @property
    def log_file(self) -> Path:
        return self.cache_dir / "mcpctl.log"

    @classmethod
    def from_environment(cls, environ: Mapping[str, str], platform: str = sys.platform) -> "Paths":
        """`MCPCTL_HOME` puts config/, data/ and cache/ under one folder; else the user
        folders platformdirs gives on `platform`."""
        home = environ.get("MCPCTL_HOME")
        if home:
            # `~` from the environment mcpctl was handed, as the rest of the paths are.
            if home == "~" or home.startswith("~/"):
                home = _home(environ).rstrip("/") + home[1:]
            elif home.startswith("~"):
                home = _user_home(home)
            root = Path(home)
            return cls(root / "config", root / "data", root / "cache")
        if not (platform.startswith("linux") or platform == "darwin") or _android(environ):
            return _platformdirs()
        table = _MACOS if platform == "darwin" else _UNIX
        folders = [user_folder(environ, *table[kind]) for kind in ("config", "data", "cache")]
        return cls(*folders)


def user_folder(environ: Mapping[str, str], variable: str, under_home: str) -> Path:
    """`$variable/mcpctl` when the variable is an absolute path (a relative one is
    ignored, as the XDG spec says), else `~/under_home/mcpctl`."""
    base = environ.get(variable, "")
    if not os.path.isabs(base):
        base = os.path.join(_home(environ), under_home)
    return Path(base) / APP


def _home(environ: Mapping[str, str]) -> str:
    """HOME when it is absolute, else the account's home folder (as platformdirs does)."""
    home = environ.get("HOME", "")
    if os.path.isabs(home):
        return home.rstrip("/") or "/"
    import pwd  # noqa: PLC0415 - only without a usable HOME

    return pwd.getpwuid(os.getuid()).pw_dir.rstrip("/") or "/"


def _user_home(home: str) -> str:
    """`~name/rest` with the account `name`'s home, as a shell reads it. An unknown name
    is an error: a shell would leave the word as it is, and mcpctl would then make a
    folder named `~name` in whatever folder it was started from."""
    expanded = os.path.expanduser(home)
    if expanded == home:
        from mcpctl.errors import ConfigError  # noqa: PLC0415 - only for this error

        user = home[1:].split("/", 1)[0]
        raise ConfigError(f"MCPCTL_HOME={home} names the home of {user!r}, an account "
                          "this machine does not have; give the folder's full path")
    return expanded


def _android(environ: Mapping[str, str]) -> bool:
    """What platformdirs takes for an Android app (it then asks Android's own API)."""
    return hasattr(sys, "getandroidapilevel") or (
        environ.get("ANDROID_DATA") == "/data" and environ.get("ANDROID_ROOT") == "/system")


def _platformdirs() -> Paths:
    import platformdirs  # noqa: PLC0415 - the other platforms: their own folder APIs

    return Paths(
        platformdirs.user_config_path(APP, appauthor=False),
        platformdirs.user_data_path(APP, appauthor=False),
        platformdirs.user_cache_path(APP, appauthor=False),
    )

