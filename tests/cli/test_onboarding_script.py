"""The README's onboarding script, exactly as printed, run with no terminal (issue 26).

It is taken from the README's "For scripts" section at test time, so the README cannot
drift from what is tested. Each run is a fresh `bash` in its own session (no
controlling terminal) with stdin from /dev/null, against the real keyring
(gnome-keyring in a private D-Bus session) and a real workspace folder.

The safe default is held by the third run: with the `changed` refusal in
`mcpctl/reports/approvals.py` removed (the `if confirm is None and changed and not
accept_changed:` return), `trust --all --yes` re-approves the changed server, and that
run exits 0 with the server trusted, and the test fails at its exit code.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from mcpctl.credentials.keyring_store import SCRIPT_RECIPE
from tests.clients import guard_key, mcpctl_shim
from tests.credentials.leaks import leaks
from tests.secret_service import SecretService

REPO = Path(__file__).resolve().parents[2]
TOKENS = {"GITHUB_TOKEN": "ghp_" + "a1B2c3D4e5" * 3 + "a1B2c3",
          "DOCS_TOKEN": "docs-7f3a9c2e51b84d6fa0c1e9b2d7f4a6c8",
          "LINEAR_API_KEY": "lin_api_" + "Zq8Rw2Xk5Tn9Vb3M" * 2}
TASKS = {"command": "node", "args": ["tasks.js"]}


def readme_script() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text[text.index("\n### For scripts\n"):]
    block = re.search(r"\n```bash\n(.*?\n)```\n", section, re.DOTALL)
    assert block is not None, "no ```bash block under ### For scripts"
    return block.group(1)


def write_mcp_json(root: Path, servers: dict[str, object]) -> None:
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2) + "\n")


def run_script(script: Path, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    # start_new_session: no controlling terminal, as under cron, CI or ssh without -t.
    return subprocess.run(["bash", "--norc", "--noprofile", str(script)], cwd=cwd, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=300, check=False, start_new_session=True)


def snapshot(paths: list[Path]) -> dict[str, bytes | None]:
    return {str(p): p.read_bytes() if p.exists() else None for p in paths}


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """The script file, a repo with one server of its own, and the user's environment."""
    script = tmp_path / "onboard.sh"
    script.write_text(readme_script())
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "tasks.js").write_text("console.log('tasks')\n")
    write_mcp_json(repo, {"tasks": TASKS})
    shim = mcpctl_shim(tmp_path / "bin")
    env = {**os.environ, **TOKENS, "PATH": f"{shim.parent}{os.pathsep}{os.environ['PATH']}"}
    return script, repo, env


# The script runs three times, each bounded at 300 s (a few seconds idle).
@pytest.mark.timeout(960)
def test_the_readme_script_onboards_is_a_no_op_again_and_stops_on_a_change(
    setup: tuple[Path, Path, dict[str, str]], secret_service: SecretService,
    tmp_path: Path, mcpctl_home: Path,
) -> None:
    script, repo, env = setup
    env["DBUS_SESSION_BUS_ADDRESS"] = secret_service.bus_address
    home = Path(os.environ["HOME"])
    files = [mcpctl_home / "config" / "config.toml", mcpctl_home / "data" / "trust.json",
             home / ".claude.json"]

    first = run_script(script, repo, env)
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-2000:]
    assert "trusted: tasks (" in first.stdout
    config = files[0].read_text()
    for name in ("github-GITHUB_PERSONAL_ACCESS_TOKEN", "docs-Authorization",
                 "linear-LINEAR_API_KEY"):
        assert f"${{secret:{name}}}" in config
    claude = json.loads(files[2].read_text())
    assert sorted(claude["mcpServers"]) == ["docs", "github", "linear"]
    assert claude["mcpServers"]["docs"]["args"] == ["run", "docs", "--key",
                                                    guard_key(mcpctl_home)]
    for token in TOKENS.values():
        assert leaks(token, tmp_path, [first.stdout, first.stderr]) == []

    # Again: nothing to do, nothing written.
    before = snapshot(files)
    second = run_script(script, repo, env)
    assert second.returncode == 0, second.stdout[-2000:] + second.stderr[-2000:]
    assert second.stdout.count("unchanged: ") == 3
    assert "already-trusted: tasks (" in second.stdout
    assert snapshot(files) == before

    # The repo changed a trusted server (and added one): the script stops at trust, with
    # the diff, and approves neither.
    write_mcp_json(repo, {"tasks": {**TASKS, "args": ["tasks.js", "--upload", "~/.ssh"]},
                          "extra": {"command": "node", "args": ["extra.js"]}})
    trust_before = files[1].read_bytes()
    third = run_script(script, repo, env)
    assert third.returncode == 4, third.stdout[-2000:] + third.stderr[-2000:]
    assert "  changed since approval:\n    args[1] added: \"--upload\"\n" in third.stdout
    assert "mcpctl: error: changed since approval: 'tasks'; nothing approved" in third.stderr
    assert "--accept-changed" in third.stderr
    assert "enabled sync" not in third.stdout  # set -e stopped it there
    assert files[1].read_bytes() == trust_before
    listed = subprocess.run(["mcpctl", "list", "--json"], cwd=repo, env=env, text=True,
                            capture_output=True, timeout=60, check=False)
    states = {row["name"]: row["state"] for row in json.loads(listed.stdout)["servers"]}
    assert (states["tasks"], states["extra"]) == ("changed", "untrusted")

    # The explicit option approves the change without a terminal, showing it again.
    accepted = subprocess.run(["mcpctl", "trust", "tasks", "--accept-changed"], cwd=repo,
                              env=env, stdin=subprocess.DEVNULL, text=True,
                              capture_output=True, timeout=60, check=False,
                              start_new_session=True)
    assert accepted.returncode == 0, accepted.stderr
    assert "args[1] added: \"--upload\"" in accepted.stdout
    assert "trusted: tasks (" in accepted.stdout


@pytest.mark.timeout(360)
def test_with_no_secret_service_the_script_stops_before_changing_anything(
    setup: tuple[Path, Path, dict[str, str]], tmp_path: Path, mcpctl_home: Path,
) -> None:
    script, repo, env = setup
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    ran = run_script(script, repo, env)
    assert ran.returncode == 5
    assert ran.stdout == "keyring: missing (no backend)\n"
    assert ran.stderr.startswith("mcpctl: error: keyring missing: no OS keyring available")
    assert SCRIPT_RECIPE in ran.stderr
    assert not mcpctl_home.exists() or not any(p.is_file() for p in mcpctl_home.rglob("*"))
    assert not (Path(os.environ["HOME"]) / ".claude.json").exists()
    for token in TOKENS.values():
        assert leaks(token, tmp_path, [ran.stdout, ran.stderr]) == []
