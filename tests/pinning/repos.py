"""Real git work trees for the pinning tests, made with a git that reads no user config."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.test",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.test"}


def git(root: Path, *args: str) -> str:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")}, **GIT_ENV}
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                          env=env, check=True, timeout=60)
    return done.stdout


def git_repo(root: Path, files: dict[str, str], *, commit: bool = True) -> Path:
    """A work tree at `root` holding `files` (committed unless told otherwise)."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q")
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    if commit and files:
        git(root, "add", "-A")
        git(root, "commit", "-qm", "files")
    return root
