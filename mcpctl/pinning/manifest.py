"""One digest for a set of pinned files, and the kind of the set of every workspace file.

Apart from `workspace.py` (which lists and hashes the files) so that a user-tier
server's fingerprint, which commits to the empty set, needs nothing else of pinning.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from mcpctl.sha256 import sha256_hex

WORKSPACE = "workspace"  # the kind of the pin set of every workspace file (a runner's: its name)


def manifest_digest(files: Mapping[str, str]) -> str:
    """The digest of the sorted (path, digest) pairs: what a fingerprint holds."""
    text = json.dumps(sorted(files.items()), separators=(",", ":"))  # ASCII: any file name
    return "sha256:" + sha256_hex(text.encode("ascii"))


def short(digest: str) -> str:
    """What an approved manifest keeps of a file's digest (`trust.store`): 64 bits of
    its SHA-256, enough to name the files a change report lists. The approval itself
    holds the set's full digest (`manifest_digest`), which decides trust. A plain
    file's digest is a SHA-256 already: its first 64 bits; any other (an executable
    file, a link, a marker) is hashed with its kind."""
    if digest.startswith("sha256:") and len(digest) == 71:
        return "~" + digest[7:23]
    return "~" + sha256_hex(digest.encode("utf-8", "surrogateescape"))[:16]
