"""Trust is computed once per command (issue 10, item 4): one read of the trust store and
one listing of the workspace, whatever the number of servers; the launch re-check stays."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.conftest import REPO, run_mcpctl
from tests.pinning.repos import git_repo

COUNTING = textwrap.dedent("""\
    import sys
    seen = {"store": 0, "git": 0}
    def hook(event, args):
        if event == "open" and str(args[0]).endswith("trust.json"):
            seen["store"] += 1
        if event in ("subprocess.Popen", "os.posix_spawn") and str(args[0]).endswith("git"):
            seen["git"] += 1
    sys.addaudithook(hook)
    from mcpctl.cli.main import run
    code = run(sys.argv[1:])
    print(json.dumps(seen), file=sys.stderr)
    """)


def counted(*args: str) -> dict[str, int]:
    done = subprocess.run([sys.executable, "-c", "import json\n" + COUNTING, *args],
                          capture_output=True, text=True, cwd=REPO, timeout=120, check=False)
    counts: dict[str, int] = json.loads(done.stderr.strip().splitlines()[-1])
    return counts


def test_cost_over_two_servers_reads_the_store_once_and_lists_the_workspace_once(
    tmp_path: Path
) -> None:
    root = git_repo(tmp_path / "repo", {"a.sh": "exit 1\n", "b.sh": "exit 1\n"})
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "a": {"command": "bash", "args": ["a.sh"]}, "b": {"command": "bash", "args": ["b.sh"]}}}))
    assert run_mcpctl(["trust", "--all", "--yes", "-w", str(root)]).code == 0
    # One round of git (run side by side) against the cache `trust` wrote: rev-parse,
    # ls-files -m -d -o against the private index, the ignored files present, and the
    # tracked list — unless the repo's index had settled when `trust` read it and is as
    # it was (then its list is not read again): 4 gits or 3, never one per server.
    for command in ("cost", "list"):
        assert counted(command, "--json", "-w", str(root)) in (
            {"store": 1, "git": 4}, {"store": 1, "git": 3})
