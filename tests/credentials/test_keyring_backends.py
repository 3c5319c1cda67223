"""A keyring backend that keeps secrets in a file is refused (exit 5, nothing written),
and the headless recipe mcpctl prints really gives it a keyring (issue 14).

keyrings.alt itself is not installed here (there is no network for tests), so the test
installs a backend of its own under keyrings.alt's name, and one of another name with
the `file_path` shape its file backends have. Each first proves the attack: through
the `keyring` library it really writes the secret to a plain file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from mcpctl.credentials.keyring_store import HEADLESS_RECIPE
from tests.components import missing
from tests.conftest import REPO, run_mcpctl
from tests.credentials.leaks import leaks

BACKEND = '''
import os
from pathlib import Path

from keyring.backend import KeyringBackend


class {name}(KeyringBackend):
    """Keeps every secret in one plain file in the home folder."""

    priority = 1
{extra}
    def _file(self):
        return Path(os.environ["HOME"]) / "plaintext-keyring.txt"

    def set_password(self, service, username, password):
        with self._file().open("a", encoding="utf-8") as file:
            file.write(f"{{service}} {{username}} {{password}}\\n")

    def get_password(self, service, username):
        if not self._file().exists():
            return None
        for line in self._file().read_text(encoding="utf-8").splitlines():
            if line.startswith(f"{{service}} {{username}} "):
                return line.split(" ", 2)[2]
        return None

    def delete_password(self, service, username):
        pass
'''


def install_backend(stub: Path, module: str, name: str, extra: str = "") -> str:
    """Write a plaintext backend as `module.name`; returns PYTHON_KEYRING_BACKEND's value."""
    *packages, leaf = module.split(".")
    folder = stub
    folder.mkdir(parents=True, exist_ok=True)
    for package in packages:
        folder = folder / package
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "__init__.py").touch()
    (folder / f"{leaf}.py").write_text(BACKEND.format(name=name, extra=extra))
    return f"{module}.{name}"


@pytest.mark.parametrize(("module", "name", "extra"), [
    ("keyrings.alt.file", "PlaintextKeyring", ""),
    ("diskkeys", "DiskKeyring", "    file_path = 'keyring.cfg'\n"),
])
def test_a_file_backend_is_refused_with_exit_5_and_nothing_written(
    module: str, name: str, extra: str, tmp_path: Path, isolated_home: Path,
    mcpctl_home: Path, user_config: Path,
) -> None:
    stub = tmp_path / "stub"
    env = {"PYTHON_KEYRING_BACKEND": install_backend(stub, module, name, extra),
           "PYTHONPATH": os.pathsep.join([str(stub), str(REPO)])}
    plaintext = isolated_home / "plaintext-keyring.txt"
    attack = subprocess.run(
        [sys.executable, "-c", "import keyring; keyring.set_password('probe', 'x', 'leaked')"],
        env={**os.environ, **env}, capture_output=True, text=True, timeout=60, check=False)
    assert attack.returncode == 0, attack.stderr
    assert plaintext.read_text() == "probe x leaked\n"  # without mcpctl's refusal: on disk
    plaintext.unlink()
    secret = f"orange{uuid.uuid4().hex[:6]}tree"
    results = [
        run_mcpctl(["secret", "set", "gh", "--stdin"], stdin=secret, env=env),
        run_mcpctl(["add", "gh", "--env", f"GITHUB_TOKEN={secret}", "--", "srv"], env=env),
        run_mcpctl(["add", "gh", "--secret-env", "API_KEY", "--stdin", "--", "srv"],
                   stdin=secret, env=env),
    ]
    assert [r.code for r in results] == [5, 5, 5]
    for result in results:
        assert result.out == ""
        assert result.err.startswith(f"mcpctl: error: refusing the keyring backend {module}."
                                     f"{name}: it keeps secrets in a file, and mcpctl never "
                                     "stores secrets in a file; unset PYTHON_KEYRING_BACKEND")
        assert HEADLESS_RECIPE in result.err
    assert not plaintext.exists()
    assert not user_config.exists()
    assert not (mcpctl_home / "data" / "secrets.json").exists()
    assert leaks(secret, tmp_path, [r.out + r.err for r in results]) == []


def test_the_headless_recipe_gives_mcpctl_a_working_keyring(tmp_path: Path) -> None:
    """The exact recipe the exit-5 error prints, run with no D-Bus session at all."""
    for program in ("dbus-run-session", "gnome-keyring-daemon"):
        if shutil.which(program) is None:
            missing(program)
    home = tmp_path / "headless"
    runtime = home / "run"
    runtime.mkdir(parents=True, mode=0o700)
    env = {key: value for key, value in os.environ.items()
           if key not in ("DBUS_SESSION_BUS_ADDRESS", "PYTHON_KEYRING_BACKEND")}
    env.update(HOME=str(home), XDG_RUNTIME_DIR=str(runtime), XDG_DATA_HOME=str(home / "share"),
               KEYRING_PASSWORD="headless-test-password", SHELL="/bin/sh",
               MCPCTL_HOME=str(tmp_path / "mcpctl-home"))
    mcpctl = f"{sys.executable} -m mcpctl"
    without = subprocess.run([*mcpctl.split(), "secret", "set", "hl", "--stdin"], input="v",
                             env=env, capture_output=True, text=True, timeout=60, check=False)
    assert without.returncode == 5
    assert HEADLESS_RECIPE in without.stderr
    inside = (f"printf v1 | {mcpctl} secret set hl --stdin && {mcpctl} secret get hl --reveal"
              f" && {mcpctl} doctor --no-probe --workspace {home}")
    recipe = HEADLESS_RECIPE.replace('exec "$SHELL"', inside)
    ran = subprocess.run(["sh", "-c", recipe], env=env, capture_output=True, text=True,
                         timeout=120, check=False, cwd=REPO)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines()[:2] == [
        "stored secret hl in the OS keyring (reference it as ${secret:hl})", "v1"]
