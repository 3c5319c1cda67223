"""What `mcpctl run NAME` adds to a server's start, against starting it directly.

The "server" is `true`, which exits at once, so the figure is mcpctl's own cost:
loading both tiers, the trust gate, resolving variables, and exec. Target: under
100 ms with no secret referenced. Also measured with one secret from a real
Secret Service (gnome-keyring in a private D-Bus session).

    uv run python bench/bench_run.py
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.timing import MCPCTL, bare_python, median_seconds, report
from tests.secret_service import running_secret_service


def main() -> None:
    true = shutil.which("true") or "/bin/true"
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        config = home / "config" / "config.toml"
        config.parent.mkdir(parents=True)
        config.write_text(f'[servers.plain]\ncommand = "{true}"\n\n'
                          f'[servers.withsecret]\ncommand = "{true}"\n'
                          'env = { TOKEN = "${secret:bench-token}" }\n')
        env = {"MCPCTL_HOME": str(home)}
        baseline = bare_python()
        direct = median_seconds([true])
        plain = median_seconds([MCPCTL, "run", "plain", "-w", folder], env=env)
        report("python -c pass", baseline)
        report("true (the server, started directly)", direct)
        report("mcpctl run plain (no secret)", plain, baseline)
        print(f"{'overhead of mcpctl run, no secret':<58} {(plain - direct) * 1000:8.1f} ms")
        try:
            with running_secret_service() as service:
                env["DBUS_SESSION_BUS_ADDRESS"] = service.bus_address
                subprocess.run([MCPCTL, "secret", "set", "bench-token", "--stdin"], env={
                    **__import__("os").environ, **env}, input="value\n", text=True, check=True,
                    capture_output=True)
                secret = median_seconds([MCPCTL, "run", "withsecret", "-w", folder], env=env)
                report("mcpctl run withsecret (one secret from the keyring)", secret, baseline)
                print(f"{'overhead of mcpctl run, one secret':<58} "
                      f"{(secret - direct) * 1000:8.1f} ms")
        except BaseException as error:  # noqa: BLE001 - skip only the keyring figure
            print(f"one-secret figure skipped: {error}")


if __name__ == "__main__":
    main()
