"""Hashing closes what it opens: a workspace hashed under a low limit on open
descriptors is pinned as it is without one (issue 30: planted by hand, as the
docstring says)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PINNED = ("import json, os, resource, sys; limit = int(sys.argv[2]); "
          "limit and resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit)); "
          "from mcpctl.pinning.workspace import workspace_files; "
          "found = workspace_files(sys.argv[1], dict(os.environ)).entries; "
          "print(json.dumps({path: entry.digest for path, entry in found.items()}))")


def test_a_workspace_of_many_links_is_pinned_alike_under_a_low_descriptor_limit(
        tmp_path: Path) -> None:
    """Each link's target is read and hashed (`_hash`), which closes the file it opened:
    400 links pin the same digests with 256 descriptors at most as with the machine's
    limit. Planted: the descriptor left open (`workspace.py:939`), and past the limit
    the targets were "unreadable", so the links' digests differed."""
    root = tmp_path / "plain"
    (root / "lib").mkdir(parents=True)
    for number in range(400):
        (root / "lib" / f"f{number}.js").write_text(f"{number}\n")
        (root / f"l{number}.js").symlink_to(f"lib/f{number}.js")

    def pinned(limit: int) -> dict[str, str]:
        done = subprocess.run(
            [sys.executable, "-c", PINNED, str(root), str(limit)], capture_output=True,
            text=True, timeout=120, check=False, cwd=REPO,
            env=dict(os.environ, MCPCTL_HOME=str(tmp_path / f"home-{limit}")))
        assert done.returncode == 0, done.stderr
        found: dict[str, str] = json.loads(done.stdout)
        return found

    limited = pinned(256)
    assert len(limited) == 800
    assert limited == pinned(0)
