"""What the fast path answers when files did change: every change reaches the set,
whatever its count or its digest, and a change that cannot be pinned is refused.

Each repo is approved and started once (the cache written, the fast path on), then
changed. Where the fast path must answer, the start after is shown to take it
(`fast`), so the exact pass never covers for it. Where it must hand over to the exact
pass (a kept digest or the folder's place no longer matches), the new value matches the
kept one in its first 8 characters: only a comparison of the whole value hands over.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from mcpctl.pinning import digest_cache
from mcpctl.pinning.git import rules_of, tracked_digest
from mcpctl.pinning.git_index import SETTLED_NS
from mcpctl.pinning.workspace import MAX_BYTES as WORKSPACE_BYTES
from mcpctl.pinning.workspace import _loadable_digest
from mcpctl.sha256 import sha256_hex
from tests.components import require_program
from tests.conftest import REPO, Result
from tests.pinning.repos import git, git_repo
from tests.pinning.test_fast_path import (
    FILES,
    SERVER,
    cli,
    fast,
    recorded_run,
    refused,
    set_kept,
)


def approved(root: Path, files: dict[str, str]) -> Path:
    git_repo(root, {**FILES, **files, ".mcp.json": json.dumps(SERVER)})
    time.sleep(SETTLED_NS / 1e9 + 0.2)  # settled: in the private index
    assert cli(root, "trust", "srv", "--yes").code == 0
    assert cli(root, "run", "srv").code == 0
    return root


def test_more_changed_files_than_are_read_over_the_cache_are_all_seen(
        tmp_path: Path) -> None:
    """Past MAX_OVERLAY (256) changed rows the fast path merges them into the cache it
    writes again. Planted by hand: that merge left out (the structural `:370`): the
    300 edits were answered with the approved digests, and the server ran."""
    files = {f"lib/m{number:03d}.js": f"{number}\n" for number in range(300)}
    root = approved(tmp_path / "repo", files)
    for relative in files:
        (root / relative).write_text("edited after approval\n")
    result, calls = recorded_run(root, tmp_path / "calls")
    assert refused(result, "lib/m000.js modified", "lib/m299.js modified"), result.err[:200]
    assert fast(calls), calls


def _same_first_digit(old: str) -> str:
    """Another text whose SHA-256 begins with the same hex digit as `old`'s."""
    first = hashlib.sha256(old.encode()).hexdigest()[0]
    return next(text for number in range(1000) if (text := f"edited {number}\n") != old
                and hashlib.sha256(text.encode()).hexdigest()[0] == first)


def test_an_edit_whose_digest_begins_as_the_old_one_is_seen(tmp_path: Path) -> None:
    """A changed file's digest is compared whole: `sha256:` and its first hex digit are
    shared by one edit in 16. Planted by hand: the digests compared by 8 characters
    (the structural `:454`): the edit was not in the overlay, and the server ran."""
    root = approved(tmp_path / "repo", {"lib/c.js": "approved\n"})
    (root / "lib" / "c.js").write_text(_same_first_digit("approved\n"))
    result, calls = recorded_run(root, tmp_path / "calls")
    assert refused(result, "lib/c.js modified"), result.err
    assert fast(calls), calls


def test_a_link_out_of_the_workspace_added_after_approval_is_unpinnable(
        tmp_path: Path) -> None:
    """A link to a folder outside, new since the cache was written: the fast path
    hands the set to the exact pass, which makes it unpinnable, so it can never be
    approved, not even as an accepted change. Planted by hand: the fast path's check
    of `unpinned` left out (the structural `:346`): the change was accepted, the link
    in the approved set."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "code.js").write_text("elsewhere\n")
    root = approved(tmp_path / "repo", {})
    (root / "lib" / "out").symlink_to(outside)
    result = cli(root, "trust", "srv", "--yes", "--accept-changed")
    assert result.code == 4, result.err
    assert "lib/out: a symlink to a folder outside the workspace" in result.err
    assert cli(root, "run", "srv").code == 4


# A pair of lists whose SHA-256 digests share their first 8 hex digits (32 bits): by
# the birthday bound about 2**16 of each are tried, a second's work; the names are fixed,
# so every run finds the same pair.
_TRIES = 1 << 17


def _same_first_8(left: Callable[[int], str], right: Callable[[int], str]) -> tuple[int, int]:
    """Numbers `i`, `j` whose `left(i)` and `right(j)` begin with the same 8 hex digits."""
    seen = {left(number)[:8]: number for number in range(_TRIES)}
    return next((seen[digest[:8]], number) for number in range(_TRIES * 64)
                if (digest := right(number))[:8] in seen)


def _tracked(root: Path) -> str:
    return tracked_digest(git(root, "ls-files", "-z").split("\0")[:-1])


def test_a_tracked_list_whose_digest_begins_as_the_old_one_is_seen(tmp_path: Path) -> None:
    """The tracked list is compared by its whole digest. Here only git's index changes:
    `pad/a<i>` leaves it, `pad/b<j>` and a bytecode file join it. Untracked, that file
    was Python's own and left out; tracked, it ships with the repo and is pinned. `i`
    and `j` are chosen so the two lists' digests share 8 hex digits, which a repo's
    author can grind for any list. Planted by hand: the digests compared by 8
    characters (the structural `:309`): the fast path kept the old tracked flags, the
    bytecode stayed out of the set, and the server ran."""
    base = sorted([*FILES, ".mcp.json"])
    bytecode = "__pycache__/m.cpython-311.pyc"

    def before(number: int) -> str:
        return tracked_digest(sorted([*base, f"pad/a{number}"]))

    def after(number: int) -> str:
        return tracked_digest(sorted([*base, f"pad/b{number}", bytecode]))

    first, second = _same_first_8(before, after)
    dropped, added = f"pad/a{first}", f"pad/b{second}"
    root = tmp_path / "repo"
    git_repo(root, {**FILES, ".mcp.json": json.dumps(SERVER), dropped: "pad\n"})
    for relative in (added, bytecode):
        (root / relative).parent.mkdir(exist_ok=True)
        (root / relative).write_text("present all along\n")
    time.sleep(SETTLED_NS / 1e9 + 0.2)
    assert cli(root, "trust", "srv", "--yes").code == 0
    assert cli(root, "run", "srv").code == 0
    old = _tracked(root)
    git(root, "rm", "-q", "--cached", dropped)
    git(root, "add", added, bytecode)
    git(root, "commit", "-qm", "the index only")
    new = _tracked(root)
    assert new[:8] == old[:8], (old, new)  # what mcpctl reads: the pair searched for
    assert new != old
    result, _ = recorded_run(root, tmp_path / "calls")
    assert refused(result, f"{bytecode} added"), result.err


def test_ignore_rules_whose_digest_begins_as_the_old_one_are_seen(tmp_path: Path) -> None:
    """The ignore rules git reads outside the tree (here `.git/info/exclude`) are
    compared by their whole digest. `i` and `j` are chosen so the two files' rules share
    8 hex digits; the second ignores `notes.txt`, which leaves the set. Planted by hand:
    the digests compared by 8 characters (the structural `:309`): the fast path kept the
    file, the approval held."""
    root = tmp_path / "repo"
    git_repo(root, {**FILES, ".mcp.json": json.dumps(SERVER)})
    (root / "notes.txt").write_text("untracked, in the set\n")
    git_dir = str(root / ".git")
    exclude = root / ".git" / "info" / "exclude"
    config = (root / ".git" / "config").read_bytes()
    user = Path(os.environ["XDG_CONFIG_HOME"], "git", "ignore")
    home = user.read_bytes() if user.exists() else b""

    def rules(text: str) -> str:  # as `rules_of` reads them: checked below
        return sha256_hex(b"\0\0".join([text.encode(), config, home]))

    first, second = _same_first_8(lambda number: rules(f"# {number}\n"),
                                  lambda number: rules(f"notes.txt\n# {number}\n"))
    exclude.write_text(f"# {first}\n")
    old = rules_of(git_dir, os.environ)
    time.sleep(SETTLED_NS / 1e9 + 0.2)
    assert cli(root, "trust", "srv", "--yes").code == 0
    assert cli(root, "run", "srv").code == 0
    exclude.write_text(f"notes.txt\n# {second}\n")
    new = rules_of(git_dir, os.environ)
    assert new is not None, "rules_of read no rules"
    assert old is not None, "rules_of read no rules"
    assert new[:8] == old[:8], (old, new)  # `rules` above is how `rules_of` digests
    assert new != old
    result, _ = recorded_run(root, tmp_path / "calls")
    assert refused(result, "notes.txt removed"), result.err


def test_ignored_code_whose_digest_begins_as_the_old_one_is_seen(tmp_path: Path) -> None:
    """The list of ignored files pinned (code a launch can load, though git ignores it)
    is compared by its whole digest. In a tree delivered with its `.git`, `a<i>.log`
    stops being executable (so it leaves the list) and `b<j>.log`, executable and
    ignored like it, arrives; `i` and `j` are chosen so the two lists' digests share 8
    hex digits. Planted by hand: the digests compared by 8 characters (the structural
    `:312`): git named no change the fast path would hash, `b<j>.log` stayed out of the
    set, and the server ran."""
    first, second = _same_first_8(lambda number: _loadable_digest([f"a{number}.log"]),
                                  lambda number: _loadable_digest([f"b{number}.log"]))
    before, arrived = f"a{first}.log", f"b{second}.log"
    root = tmp_path / "repo"
    git_repo(root, {**FILES, ".mcp.json": json.dumps(SERVER)})
    (root / before).write_text("#!/bin/sh\n")
    (root / before).chmod(0o755)
    time.sleep(SETTLED_NS / 1e9 + 0.2)
    assert cli(root, "trust", "srv", "--yes").code == 0
    assert cli(root, "run", "srv").code == 0
    (root / before).chmod(0o644)
    (root / arrived).write_text("#!/bin/sh\necho unpinned\n")
    (root / arrived).chmod(0o755)
    result, _ = recorded_run(root, tmp_path / "calls")
    assert refused(result, f"{arrived} added"), result.err


def test_a_repository_made_above_the_workspace_is_seen(tmp_path: Path) -> None:
    """The folder's place in its repository is compared whole. The workspace
    `aaaaaaaa/aaaaaaaa` of one repository becomes `aaaaaaaa` of a new one made between
    them, tracking the same files under the same ignore rules: the private index names
    its files from the old top, so git asked with it is asked about other paths. A file
    edited in place changes no folder. Planted by hand: the place compared by its first
    8 characters (the structural `:310`): the edit was never asked about, and the server
    ran."""
    top = tmp_path / "top"
    git_repo(top, {f"aaaaaaaa/aaaaaaaa/{name}": text for name, text in
                   {**FILES, ".mcp.json": json.dumps(SERVER)}.items()})
    middle = top / "aaaaaaaa"
    root = middle / "aaaaaaaa"
    time.sleep(SETTLED_NS / 1e9 + 0.2)
    assert cli(root, "trust", "srv", "--yes").code == 0
    assert cli(root, "run", "srv").code == 0
    git(middle, "init", "-q")
    git(middle, "add", "aaaaaaaa")
    git(middle, "commit", "-qm", "a repository between")
    (root / "lib" / "a.js").write_text("A\n")
    result, _ = recorded_run(root, tmp_path / "calls")
    assert refused(result, "lib/a.js modified"), result.err


def test_the_bytes_a_change_adds_count_toward_the_byte_bound(
        mcpctl_home: Path, tmp_path: Path) -> None:
    """The fast path adds what changed to the byte total the cache keeps, and past 4 GiB
    the set is unpinnable, so no change can be accepted. The kept total is set by hand
    to stand for a workspace just under the bound (hashing 4 GiB takes a quarter
    minute). Planted by hand: the totals not updated (the structural `:353`): `trust
    --accept-changed` approved the set."""
    root = approved(tmp_path / "repo", {})
    cache = digest_cache.cache_file(mcpctl_home / "cache", os.path.realpath(root))
    set_kept(cache, "bytes", str(WORKSPACE_BYTES - 10))
    (root / "lib" / "more.js").write_text("more\n" * 10)
    result = cli(root, "trust", "srv", "--yes", "--accept-changed")
    assert result.code == 4, result.err
    assert f"{WORKSPACE_BYTES - 10 + 50:,} bytes in the workspace" in result.err
    assert "mcpctl hashes at most 4 GiB" in result.err


def test_a_file_the_fast_path_cannot_look_at_is_a_change(tmp_path: Path) -> None:
    """In a repository inside the workspace (walked and stat-ed at each start), a file
    whose folder can be listed but not searched cannot be stat-ed: it is a change, read
    again, and gone from the set. Root looks at every file: the start runs without the
    capabilities that let it (`setpriv`). Planted: the failed stat passed over
    (`workspace.py:434`), and the file's approved digest was kept: the server ran."""
    setpriv = require_program("setpriv")
    root = git_repo(tmp_path / "repo", {**FILES, ".mcp.json": json.dumps(SERVER)})
    inner = git_repo(root / "vendor", {"lib/x.js": "x\n"})
    time.sleep(SETTLED_NS / 1e9 + 0.2)
    assert cli(root, "trust", "srv", "--yes").code == 0
    assert cli(root, "run", "srv").code == 0
    (inner / "lib").chmod(0o444)
    try:
        done = subprocess.run(
            [setpriv, "--bounding-set=-dac_override,-dac_read_search", "--", sys.executable,
             "-m", "mcpctl", "run", "srv", "--workspace", str(root)],
            capture_output=True, text=True, timeout=120, check=False, cwd=REPO)
    finally:
        (inner / "lib").chmod(0o755)
    assert refused(Result(done.returncode, done.stdout, done.stderr),
                   "file vendor/lib/x.js removed"), done.stderr
