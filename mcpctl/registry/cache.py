"""The registry's answers, cached as its caching headers allow (RFC 9111, a private cache).

One file per URL under `<cache>/registry/` (named by the URL's SHA-256): a first line
of JSON saying when it was stored, its freshness lifetime (`Cache-Control: max-age`; `no-cache`
and no header at all mean 0: revalidate every time) and its validators (`ETag`,
`Last-Modified`), then the body as the registry sent it (kept out of the JSON line, so
reading it back is one parse, not two). `no-store` is never written. A file that
cannot be read, or was written by another mcpctl, is a miss: the cache only saves
requests, it never decides an answer.
"""

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from mcpctl.files.atomic import atomic_write_text

CACHE_VERSION = 2  # 2: the body after the first line, not inside it
_MAX_AGE = re.compile(r"(?:^|,)\s*max-age\s*=\s*\"?(\d{1,10})\"?\s*(?=,|$)", re.IGNORECASE)
_DIRECTIVE = re.compile(r"(?:^|,)\s*(no-store|no-cache)\s*(?=,|$|=)", re.IGNORECASE)
MAX_LIFETIME = 7 * 24 * 3600  # a registry asking for years is asked again within a week


class Held(NamedTuple):
    body: str
    stored_at: float
    max_age: float
    etag: str | None
    last_modified: str | None

    def fresh(self, now: float) -> bool:
        return 0 <= now - self.stored_at < self.max_age


def cache_file(cache_dir: Path, url: str) -> Path:
    return cache_dir / "registry" / (hashlib.sha256(url.encode()).hexdigest() + ".json")


def lifetime(headers: Mapping[str, str]) -> float | None:
    """Seconds the answer stays fresh; None: it must not be stored (pure)."""
    control = headers.get("cache-control", "")
    directives = {d.lower() for d in _DIRECTIVE.findall(control)}
    if "no-store" in directives:
        return None
    if "no-cache" in directives:
        return 0.0
    match = _MAX_AGE.search(control)
    return float(min(int(match[1]), MAX_LIFETIME)) if match else 0.0


def cached(cache_dir: Path, url: str) -> Held | None:
    try:
        head, _, body = cache_file(cache_dir, url).read_text(encoding="utf-8").partition("\n")
        data = json.loads(head)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("schema_version") != CACHE_VERSION \
            or data.get("url") != url:
        return None
    try:
        return Held(body, float(data["stored_at"]), float(data["max_age"]),
                    _optional(data.get("etag")), _optional(data.get("last_modified")))
    except (KeyError, TypeError, ValueError):
        return None


def revalidation_headers(held: Held) -> dict[str, str]:
    headers = {}
    if held.etag:
        headers["If-None-Match"] = held.etag
    if held.last_modified:
        headers["If-Modified-Since"] = held.last_modified
    return headers


def store(cache_dir: Path, url: str, body: str, headers: Mapping[str, str],
          now: float) -> None:
    """Keep `body` for `url` as `headers` allow; a cache that cannot be written is
    skipped (the answer itself was good)."""
    seconds = lifetime(headers)
    path = cache_file(cache_dir, url)
    if seconds is None or (seconds == 0 and not headers.get("etag")
                           and not headers.get("last-modified")):
        # Not allowed, or of no use: never fresh and nothing to revalidate it with.
        path.unlink(missing_ok=True)
        return
    document: dict[str, Any] = {
        "schema_version": CACHE_VERSION, "url": url, "stored_at": now, "max_age": seconds,
        "etag": headers.get("etag"), "last_modified": headers.get("last-modified"),
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        atomic_write_text(path, json.dumps(document) + "\n" + body, mode=0o600)
    except OSError:
        return


def _optional(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
