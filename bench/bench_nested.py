"""What repositories inside the workspace cost `list` (issue 23, item 4), as whole
processes, median of 9 interleaved rounds after a warm-up (warm digest cache):

- a work tree with 500 gitlinks (committed mode-160000 entries, empty folders, no
  `.gitmodules`) against the same work tree without them (target: at most 2x);
- a work tree holding 50 nested real repositories of 10 files each against the same
  500 files committed in the outer tree (target: at most 2x).

    uv run python bench/bench_nested.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_pinning import GIT_ENV, interleaved
from bench.timing import MCPCTL

SERVER = {"srv": {"command": "bash", "args": ["run.sh"]}}


def git(root: Path, *args: str, stdin: str | None = None) -> str:
    return subprocess.run(["git", "-C", str(root), *args], env={**os.environ, **GIT_ENV},
                          check=True, capture_output=True, text=True, input=stdin).stdout


def repo(root: Path, files: dict[str, str]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "tree")


def base(root: Path) -> None:
    repo(root, {"run.sh": "true\n", "README.md": "a small repo\n" * 40})
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": SERVER}))


def with_gitlinks(root: Path, count: int) -> None:
    base(root)
    head = git(root, "rev-parse", "HEAD").strip()
    git(root, "update-index", "--index-info",
        stdin="".join(f"160000 {head}\tlink{index}\n" for index in range(count)))
    git(root, "commit", "-qm", "links")
    for index in range(count):
        (root / f"link{index}").mkdir()


def inner_files(index: int) -> dict[str, str]:
    return {f"f{file}.js": f"module.exports = {index * 10 + file};\n" for file in range(10)}


def with_nested(root: Path, count: int) -> None:
    base(root)
    for index in range(count):
        repo(root / f"inner{index}", inner_files(index))


def flattened(root: Path, count: int) -> None:
    files = {"run.sh": "true\n", "README.md": "a small repo\n" * 40}
    for index in range(count):
        files.update({f"inner{index}/{name}": text for name, text in inner_files(index).items()})
    repo(root, files)
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": SERVER}))


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        env = {**os.environ, "MCPCTL_HOME": str(folder / "home")}
        roots = {"plain": folder / "plain", "500 gitlinks": folder / "gitlinks",
                 "500 files flat": folder / "flat", "50 nested repos": folder / "nested"}
        base(roots["plain"])
        with_gitlinks(roots["500 gitlinks"], 500)
        flattened(roots["500 files flat"], 50)
        with_nested(roots["50 nested repos"], 50)
        commands = {label: [MCPCTL, "list", "--json", "--workspace", str(root)]
                    for label, root in roots.items()}
        for label, root in roots.items():
            subprocess.run([MCPCTL, "trust", "srv", "--yes", "--workspace", str(root)],
                           env=env, check=True, capture_output=True)
            listed = subprocess.run(commands[label], env=env, check=True, capture_output=True,
                                    text=True)
            assert json.loads(listed.stdout)["servers"][0]["state"] == "trusted", label
        wall, cpu = interleaved(commands, env)
    for label in commands:
        print(f"{label:<18} wall {wall[label] * 1000:7.1f} ms   cpu {cpu[label] * 1000:7.1f} ms")
    for label, against in (("500 gitlinks", "plain"), ("50 nested repos", "500 files flat")):
        print(f"{label} / {against}: wall {wall[label] / wall[against]:.2f}x, "
              f"cpu {cpu[label] / cpu[against]:.2f}x (target: at most 2x)")


if __name__ == "__main__":
    main()
