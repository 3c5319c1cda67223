"""Judged `tools/list` answers kept across sessions in mcpctl's cache (issue 29).

A session's first `tools/list` answer is otherwise judged from scratch (decoded,
filtered, encoded again) though the server most likely answers as it did last time. One
file per answer under `<cache>/tool-answers/`, named by its key: BLAKE2b of the filter's
rules (mcpctl's version and the source of the modules that judge), the server's name,
its policy and what its budget keeps, and the server's exact answer with the relay's id
cut out (`answers.cut`). Nothing is trusted unless it is exactly the key asked for and
its MAC verifies: BLAKE2b keyed with 32 random bytes kept in the data folder (0600), so
an entry edited by hand, or written by anything else, is not used and the answer is
judged again. The cache keeps at most LIMIT entries, and LIMIT latest answers, of at
most MAX_ENTRY bytes (the oldest go first); each is written atomically, in the
background, after the client has its answer. The server's latest answer under the policy
is also kept whole under the policy's own name (`.latest`): read while the server
starts, it is the session's first template, so a first answer as the server gave it last
time is matched by two memory compares, as a later one is, with no key to hash on its
path. An answer in which a value the server was given hides (a resolved secret,
`probing.redaction.hidden_values`) is never written: nothing secret at rest (issue 14).

BLAKE2b, not SHA-256: the interpreter's own module loads no OpenSSL (which costs `run`
milliseconds, see `mcpctl/sha256.py`), is as fast, and its keyed mode is a MAC.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from mcpctl.filtering.answers import Judged, Template

SCHEMA_VERSION = 2  # 2: an entry holds the answer's edges (before and after its id)
LIMIT = 64
MAX_ENTRY = 2 * 1024 * 1024
KEY_BYTES = 32
_SUFFIX = ".answer"
_LATEST = ".latest"
_JUDGING_MODULES = ("answers", "decide", "live", "policy", "wire", "answer_store")


def _blake2b(data: bytes = b"", *, key: bytes = b"") -> Any:
    try:
        from _blake2 import blake2b  # noqa: PLC0415 - the builtin: no OpenSSL to load
    except ImportError:  # an interpreter built without it
        from hashlib import blake2b  # noqa: PLC0415
    return blake2b(data, key=key, digest_size=32)


def rules_digest() -> bytes:
    """What the judging depends on besides the policy: mcpctl's version and the source of
    the modules that judge (a checkout that changes them changes the key)."""
    from mcpctl import __version__  # noqa: PLC0415

    digest = _blake2b(f"mcpctl {__version__} answers {SCHEMA_VERSION}\0".encode())
    folder = Path(__file__).parent
    for module in _JUDGING_MODULES:
        with contextlib.suppress(OSError):
            digest.update((folder / f"{module}.py").read_bytes())
        digest.update(b"\0")
    return bytes(digest.digest())


class DiskAnswers:
    """The store for one server under one policy (`context`: its name, policy, budget)."""

    def __init__(self, folder: Path, key_file: Path, context: Sequence[Any],
                 hidden: Callable[[], Sequence[str]]):
        self.folder = folder
        self.key_file = key_file
        self.context = json.dumps(list(context), ensure_ascii=False, default=list).encode()
        self.hidden = hidden
        self._mac_key: bytes | None = None
        self._rules: bytes | None = None
        self._writers: list[threading.Thread] = []
        self._last: tuple[bytes, bytes, str] | None = None  # the last key worked out

    def prepare(self) -> Template | None:
        """Read the rules and the MAC key ahead of the first answer, and the answer the
        server gave last under this policy, as a template (None: there is none, or it
        does not verify)."""
        mac_key = self._key(create=False)
        if self._rules is None:
            self._rules = rules_digest()
        if mac_key is None:
            return None
        name = self._latest_name()
        return _read(self.folder / f"{name}{_LATEST}", name, mac_key)

    def get(self, before: bytes, after: bytes) -> Judged | None:
        mac_key = self._key(create=False)
        if mac_key is None:
            return None
        name = self._name(before, after)
        template = _read(self.folder / f"{name}{_SUFFIX}", name, mac_key)
        if template is None or template.before != before or template.after != after:
            return None
        return template.judged

    def put(self, before: bytes, after: bytes, judged: Judged) -> None:
        if len(before) + len(after) + len(judged.rest) + len(judged.encoded) > MAX_ENTRY:
            return
        name = self._name(before, after)
        writer = threading.Thread(target=self._write, args=(name, Template(before, after,
                                                                            judged)),
                                  daemon=True)
        self._writers.append(writer)
        writer.start()

    def flush(self, timeout: float) -> None:
        """Wait (bounded) for entries still being written."""
        for writer in self._writers:
            writer.join(timeout)

    def _name(self, before: bytes, after: bytes) -> str:
        last = self._last
        if last is not None and last[0] == before and last[1] == after:
            return last[2]  # a miss is stored next: its key is hashed once
        digest = self._digest()
        digest.update(len(before).to_bytes(8, "big"))  # lengths first: no two splits
        digest.update(before)  # read alike
        digest.update(after)
        name = str(digest.hexdigest())
        self._last = (before, after, name)
        return name

    def _latest_name(self) -> str:
        """The policy's own name: the rules and the context, with no answer (an answer's
        name frames one more part, so the two never read alike)."""
        return str(self._digest().hexdigest())

    def _digest(self) -> Any:
        if self._rules is None:
            self._rules = rules_digest()
        digest = _blake2b(self._rules)
        digest.update(len(self.context).to_bytes(8, "big"))
        digest.update(self.context)
        return digest

    def _write(self, name: str, template: Template) -> None:
        from mcpctl.errors import CannotWrite  # noqa: PLC0415
        from mcpctl.files.atomic import atomic_write_bytes  # noqa: PLC0415

        if _shows_any(template.judged, self.hidden()):
            return
        mac_key = self._key(create=True)
        if mac_key is None:
            return
        latest = self._latest_name()
        with contextlib.suppress(CannotWrite, OSError):  # a cache is only a cache
            atomic_write_bytes(self.folder / f"{name}{_SUFFIX}",
                               _encoded(name, template, mac_key))
            atomic_write_bytes(self.folder / f"{latest}{_LATEST}",
                               _encoded(latest, template, mac_key))
            _prune(self.folder)

    def _key(self, *, create: bool) -> bytes | None:
        if self._mac_key is None:
            self._mac_key = _read_key(self.key_file) or (_new_key(self.key_file) if create
                                                         else None)
        return self._mac_key


def _encoded(name: str, template: Template, mac_key: bytes) -> bytes:
    before, after, judged = template
    header = json.dumps({"schema_version": SCHEMA_VERSION, "key": name, "new": list(judged.new),
                         "before": len(before), "after": len(after),
                         "rest": len(judged.rest)}, ensure_ascii=False).encode()
    body = b"".join((header, b"\n", before, after, judged.rest, judged.encoded))
    mac: str = _blake2b(body, key=mac_key).hexdigest()
    return mac.encode() + b"\n" + body


def _read(path: Path, name: str, mac_key: bytes) -> Template | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return _entry(data, name, mac_key)


def _entry(data: bytes, name: str, mac_key: bytes) -> Template | None:
    """The entry, only if its MAC verifies and it is the one named; else None."""
    mac, _, body = data.partition(b"\n")
    if not _same(mac, _blake2b(body, key=mac_key).hexdigest().encode()):
        return None
    header_bytes, _, payload = body.partition(b"\n")
    try:
        header = json.loads(header_bytes)
        if header["schema_version"] != SCHEMA_VERSION or header["key"] != name:
            return None
        edges = (0, header["before"], header["after"], header["rest"])
        if not all(isinstance(size, int) and size >= 0 for size in edges) \
                or sum(edges) > len(payload):
            return None
        new = tuple(str(tool) for tool in header["new"])
    except (ValueError, KeyError, TypeError):
        return None
    before_end = header["before"]
    after_end = before_end + header["after"]
    rest_end = after_end + header["rest"]
    judged = Judged(payload[after_end:rest_end], new, None, payload[rest_end:])
    return Template(payload[:before_end], payload[before_end:after_end], judged)


def _same(a: bytes, b: bytes) -> bool:
    """In constant time; `hmac.compare_digest` itself, whose module loads OpenSSL."""
    try:
        from _operator import _compare_digest  # noqa: PLC0415
    except ImportError:
        from hmac import compare_digest as _compare_digest  # type: ignore[no-redef]  # noqa: PLC0415
    return bool(_compare_digest(a, b))


def _shows_any(judged: Judged, hidden: Sequence[str]) -> bool:
    """Does a hidden value appear in what would be written? (JSON escapes one character
    at a time, so a value inside a string is inside its encoding as a substring.)"""
    for value in hidden:
        if not value:
            continue
        encoded = json.dumps(value, ensure_ascii=False)[1:-1].encode()
        if encoded in judged.rest or encoded in judged.encoded:
            return True
    return False


def _read_key(path: Path) -> bytes | None:
    try:
        key = path.read_bytes()
    except OSError:
        return None
    return key if len(key) == KEY_BYTES else None


def _new_key(path: Path) -> bytes | None:
    from mcpctl.errors import CannotWrite  # noqa: PLC0415
    from mcpctl.files.atomic import atomic_write_bytes, file_lock  # noqa: PLC0415

    try:
        with file_lock(path):
            key = _read_key(path)  # another run may have made it meanwhile
            if key is None:
                key = os.urandom(KEY_BYTES)
                atomic_write_bytes(path, key, mode=0o600)
            return key
    except CannotWrite:
        return None


def _prune(folder: Path) -> None:
    """Keep the LIMIT newest entries; a temp file a killed writer left goes after a
    minute (the atomic write removes its own otherwise)."""
    import time  # noqa: PLC0415 - writers only

    kept: dict[str, list[tuple[int, str]]] = {_SUFFIX: [], _LATEST: []}
    stale = time.time_ns() - 60 * 10**9
    for entry in os.scandir(folder):
        with contextlib.suppress(OSError):
            suffix = entry.name[entry.name.rfind("."):]
            if suffix in kept:
                kept[suffix].append((entry.stat().st_mtime_ns, entry.path))
            elif suffix == ".tmp" and entry.stat().st_mtime_ns < stale:
                os.unlink(entry.path)
    for entries in kept.values():
        for _, path in sorted(entries, reverse=True)[LIMIT:]:
            with contextlib.suppress(OSError):
                os.unlink(path)
