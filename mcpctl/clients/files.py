"""Reading and writing other clients' files: the only edge of the client tier that
writes (DESIGN §10, §11).

A write is a read-modify-write that never clobbers what a client wrote meanwhile:
the new text is computed from the bytes read, and just before the atomic replace the
file is read again; if it changed (Claude Code rewrites `~/.claude.json` while it runs),
the whole computation is redone from the new bytes, and after a few attempts mcpctl
gives up without writing. The old file is kept as a timestamped backup (0600, the last
few per file) in mcpctl's data folder, with each secret value replaced by its
`${secret:…}` reference: no backup holds a token the user just moved to the keyring
(issue 14); a file whose secrets cannot all be taken out gets no backup at all. A
symlinked file (dotfile managers) is written through to its target. mcpctl's own lock
for the file lives in its cache folder, not beside the client's file, where a
`<file>.lock` could collide with the client's own lock.
"""

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from mcpctl.config.tier_load import decode_utf8, read_file_bytes, read_file_text
from mcpctl.errors import ConfigError, ExitCode, McpctlError
from mcpctl.files.atomic import atomic_write_text, file_lock
from mcpctl.model import Problem
from mcpctl.sha256 import sha256_hex

# Claude Code's ~/.claude.json grows with every project; 16 MiB (the cap for config
# files mcpctl reads) is not enough there.
MAX_CLIENT_BYTES = 64 * 1024 * 1024
ATTEMPTS = 3
# A backup is for undoing the last export or two, not a history; older ones go.
BACKUPS_KEPT = 5


class ConcurrentChange(McpctlError):
    """The client kept rewriting its file while mcpctl prepared its change."""

    exit_code = ExitCode.FINDINGS


def read_client_text(path: Path, limit: int = MAX_CLIENT_BYTES) -> str | Problem:
    """The file's text exactly as stored (newlines kept), or a Problem (never raises)."""
    return read_file_text(path, limit)


def client_text_or_none(path: Path) -> str | None:
    """The file's text, None when there is none; ConfigError when it cannot be read."""
    data = _snapshot(path)
    return None if data is None else _text_or_raise(path, data)


class WriteResult(NamedTuple):
    """What writing a client's file did: where, whether, the backup and the attempts."""

    path: Path  # the file written (a symlink's target)
    written: bool
    backup: Path | None
    attempts: int
    secrets_replaced: int = 0  # secret values the backup holds as references instead
    backup_skipped: bool = False  # the old file held a secret that could not be taken out


Compute = Callable[[str | None], str]


def write_client_file(
    path: Path, compute: Compute, *, backup_dir: Path, lock_dir: Path,
    now: Callable[[], datetime], attempts: int = ATTEMPTS,
) -> WriteResult:
    """Replace `path` with `compute(old_text)` (old_text None: no file yet).

    `compute` is called again with the new text whenever the file changed between
    the read and the write; it raises (ConfigError) to refuse. Returns what was done.
    """
    target = _target(path)
    lock = lock_dir / sha256_hex(str(target).encode())[:32]
    for attempt in range(1, attempts + 1):
        before = _snapshot(target)
        new_text = compute(None if before is None else _text_or_raise(target, before))
        if new_text.encode("utf-8") == (before if before is not None else b""):
            return WriteResult(target, False, None, attempt)
        with file_lock(lock):
            if _snapshot(target) != before:
                continue  # the client wrote meanwhile: start again from its bytes
            kept = _backup(target, before, backup_dir, now()) if before is not None \
                else (None, 0, False)
            atomic_write_text(target, new_text)
        return WriteResult(target, True, kept[0], attempt, kept[1], kept[2])
    raise ConcurrentChange(
        f"{path} changed while mcpctl was preparing its change ({attempts} times); "
        "nothing was written; try again when the client is idle")


def _target(path: Path) -> Path:
    """The file a write goes to: a symlink's target (written through)."""
    if not path.is_symlink():
        return path
    try:
        return path.resolve()
    except RuntimeError:  # Python 3.11 raises this for a symlink loop
        raise ConfigError(f"{path}: symlink loop: cannot resolve the path; the file was "
                          "not changed") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot resolve the path ({error.strerror}); the file "
                          "was not changed") from None


def _snapshot(path: Path) -> bytes | None:
    data = read_file_bytes(path, MAX_CLIENT_BYTES)
    if isinstance(data, Problem):
        raise ConfigError(f"{data}; the file was not changed")
    return data


def _text_or_raise(path: Path, data: bytes) -> str:
    text = decode_utf8(path, data)
    if isinstance(text, Problem):
        raise ConfigError(f"{text}; the file was not changed")
    return text


def _backup(target: Path, data: bytes, backup_dir: Path,
            when: datetime) -> tuple[Path | None, int, bool]:
    """(the backup, secret values replaced, skipped because a secret stayed in it)."""
    from mcpctl.credentials.scrub import scrub  # noqa: PLC0415 - only when writing

    scrubbed = scrub(data.decode("utf-8"), toml=target.suffix == ".toml")
    if not scrubbed.complete:
        return None, scrubbed.replaced, True
    stamp = when.strftime("%Y%m%dT%H%M%S.%fZ")
    backup = backup_dir / f"{target.name}.{stamp}"
    backup_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    # 0600 whatever the original's mode: what the file says about its user is private.
    atomic_write_text(backup, scrubbed.text, mode=0o600)
    old = sorted(backup_dir.glob(f"{target.name}.*"))
    for stale in old[:-BACKUPS_KEPT]:
        stale.unlink(missing_ok=True)
    return backup, scrubbed.replaced, False
