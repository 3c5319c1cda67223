"""Asking an MCP registry over HTTP: bounded, cached by its own headers, never executed.

The API is the registry project's generic one (`/v0.1`): `GET /servers` (`search`,
`version=latest`, `limit`, `cursor`; the next page's cursor in `metadata.nextCursor`)
and `GET /servers/{name}/versions[/{version}]` (the name and version URL-encoded;
the version `latest` is the newest). A private registry serving the same API works
the same way: only the base URL differs.

Bounds: every request has a deadline (connect, each read and the whole body), every
body a size limit, a search a page limit. A body is only ever parsed as JSON and
checked by `document.py`. Answers are cached under `<cache>/registry/` as the
registry's `Cache-Control` (`max-age`, `no-cache`, `no-store`), `ETag` and
`Last-Modified` allow: fresh answers are used without asking, stale ones revalidated
with `If-None-Match`/`If-Modified-Since`.
"""

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import quote, urlencode, urlsplit

from mcpctl.errors import RegistryFailed, UsageError
from mcpctl.registry.document import ServerDocument, parse_server

API = "/v0.1"
MAX_BODY = 4 * 1024 * 1024
MAX_PAGES = 100
PAGE_SIZE = 100
TIMEOUT = 15.0  # seconds for one whole request, body included
SEARCH_TIMEOUT = 120.0  # seconds for all the pages of one search
_LOOPBACK = ("127.0.0.1", "::1", "localhost")


class NotFound(Exception):
    """The registry answered 404 for this URL."""


class Entry(NamedTuple):
    """One server as the registry lists it, with its registry metadata."""

    server: ServerDocument
    status: str  # active | deprecated | deleted | "" when the registry says nothing
    is_latest: bool | None


class Page(NamedTuple):
    entries: list[Entry]
    skipped: list[str]  # why each malformed entry was left out


def check_base_url(url: str) -> str:
    """The base URL without a trailing '/'; https, or http on loopback only (an answer
    read over plain http could be changed on the way into a command line mcpctl runs)."""
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise UsageError(f"registry URL {url!r} is not an http(s) URL; set one like "
                         "https://registry.example.com")
    if parts.scheme == "http" and parts.hostname not in _LOOPBACK:
        raise UsageError(f"registry URL {url!r} is plain http; use https (plain http is "
                         "accepted only on this machine's loopback)")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise UsageError(f"registry URL {url!r} must be a base URL without credentials, "
                         "query or fragment")
    return url.rstrip("/")


class Registry:
    """One registry: its base URL, the cache folder, and how to tell the time."""

    def __init__(self, base_url: str, cache_dir: Path | None, *,
                 clock: Callable[[], float] = time.time, timeout: float = TIMEOUT) -> None:
        self.base_url = check_base_url(base_url)
        self.cache_dir = cache_dir
        self.clock = clock
        self.timeout = timeout

    def server(self, name: str, version: str | None) -> Entry:
        """`name` at `version` (None: the latest); NotFound when the registry has neither."""
        url = (f"{self.base_url}{API}/servers/{quote(name, safe='')}/versions/"
               f"{quote(version or 'latest', safe='')}")
        body = _object(self.get_json(url), url)
        entry = _entry(body, url)
        if entry.server.name != name or (version and entry.server.version != version):
            raise RegistryFailed(f"{self.base_url} answered {entry.server.name}@"
                                 f"{entry.server.version} when asked for {name}@"
                                 f"{version or 'latest'}; check the registry URL")
        return entry

    def versions(self, name: str) -> list[str]:
        """Every version the registry lists for `name`, newest first (bounded)."""
        url = f"{self.base_url}{API}/servers/{quote(name, safe='')}/versions"
        return [e.server.version for e in _page(self.get_json(url), url).entries]

    def search(self, text: str, limit: int) -> Page:
        """The latest version of each server whose name holds `text`, at most `limit`."""
        entries: list[Entry] = []
        skipped: list[str] = []
        cursor: str | None = None
        deadline = time.monotonic() + SEARCH_TIMEOUT
        for _ in range(MAX_PAGES):
            if time.monotonic() > deadline:
                raise RegistryFailed(f"searching {self.base_url} took over "
                                     f"{SEARCH_TIMEOUT:.0f} s; ask for fewer (--limit) or "
                                     "a narrower TEXT")
            query = {"search": text, "version": "latest",
                     "limit": str(min(PAGE_SIZE, max(limit - len(entries), 1)))}
            if cursor:
                query["cursor"] = cursor
            url = f"{self.base_url}{API}/servers?{urlencode(query)}"
            answer = self.get_json(url)
            page = _page(answer, url)
            entries.extend(page.entries)
            skipped.extend(page.skipped)
            cursor = _next_cursor(answer, url)
            if not cursor or len(entries) >= limit:
                break
        return Page(_latest_only(entries)[:limit], skipped)

    def get_json(self, url: str) -> Any:
        """The parsed JSON at `url`, from the cache when its headers allow."""
        from mcpctl.registry.cache import cached, revalidation_headers, store  # noqa: PLC0415

        now = self.clock()
        held = cached(self.cache_dir, url) if self.cache_dir else None
        if held is not None and held.fresh(now):
            return _parse(held.body, url)
        headers = {"Accept": "application/json"}
        if held is not None:
            headers.update(revalidation_headers(held))
        answer = fetch(url, headers, self.timeout)
        kept = answer.headers
        if answer.status == 304 and held is not None:
            body = held.body
            # A 304 may leave out the validators; the held ones still name this body.
            kept = {"etag": held.etag or "", "last-modified": held.last_modified or "",
                    **answer.headers}
        elif answer.status == 200:
            body = answer.body
        elif answer.status == 404:
            raise NotFound(url)
        else:
            raise RegistryFailed(f"{_site(url)} answered HTTP {answer.status} for "
                                 f"{_path(url)}; try again later or check the registry URL")
        value = _parse(body, url)  # nothing unparsable is ever cached
        if self.cache_dir is not None:
            store(self.cache_dir, url, body, kept, now)
        return value


class Answer(NamedTuple):
    status: int
    headers: dict[str, str]  # names in lower case
    body: str


def fetch(url: str, headers: dict[str, str], timeout: float) -> Answer:
    """One GET: the status, headers and body (UTF-8 JSON of at most MAX_BODY bytes)."""
    import http.client  # noqa: PLC0415 - only when a registry is asked
    import urllib.error  # noqa: PLC0415
    import urllib.request  # noqa: PLC0415

    host = urlsplit(url).hostname or ""
    # A proxy between mcpctl and a registry on this machine would only see loopback
    # traffic it should not; for others the environment's proxy settings hold.
    handlers: list[Any] = [_redirects_checked(urllib.request)]
    if host in _LOOPBACK:
        handlers.append(urllib.request.ProxyHandler({}))
    opener = urllib.request.build_opener(*handlers)
    request = urllib.request.Request(url, headers=headers, method="GET")  # noqa: S310 - checked
    deadline = time.monotonic() + timeout
    try:
        with opener.open(request, timeout=timeout) as response:
            got = {k.lower(): v for k, v in response.headers.items()}
            _check_type(got, url)
            return Answer(response.status, got, _read(response, deadline, url))
    except urllib.error.HTTPError as error:
        got = {k.lower(): v for k, v in (error.headers or {}).items()}
        return Answer(error.code, got, "")
    except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as error:
        reason = getattr(error, "reason", error)
        raise RegistryFailed(f"cannot reach the registry at {_site(url)} ({reason}); check "
                             "the network or the registry URL (`--registry URL`, or "
                             "[registry] url in config.toml)") from None


def _redirects_checked(request_module: Any) -> Any:
    """A redirect handler that follows only to https (or http on loopback)."""

    class Checked(request_module.HTTPRedirectHandler):  # type: ignore[misc]
        def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any,
                             newurl: str) -> Any:
            parts = urlsplit(newurl)
            if parts.scheme != "https" and not (parts.scheme == "http"
                                                and parts.hostname in _LOOPBACK):
                raise RegistryFailed(f"the registry redirected to {_site(newurl)}, which is "
                                     "not https; refused")
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    return Checked()


def _read(response: Any, deadline: float, url: str) -> str:
    chunks: list[bytes] = []
    size = 0
    while True:
        if time.monotonic() > deadline:
            raise RegistryFailed(f"{_site(url)} took too long to answer {_path(url)}; "
                                 "try again later")
        # read1: what has arrived (one receive), so a registry dripping a byte at a time
        # meets the deadline instead of holding read() until 64 KiB have come.
        chunk = response.read1(64 * 1024)
        if not chunk:
            if getattr(response, "length", None):  # bytes announced that never came
                raise RegistryFailed(f"{_site(url)} cut its answer for {_path(url)} short; "
                                     "try again later")
            break
        size += len(chunk)
        if size > MAX_BODY:
            raise RegistryFailed(f"{_site(url)} answered more than {MAX_BODY // 1048576} MiB "
                                 f"for {_path(url)}; refused (is it a registry?)")
        chunks.append(chunk)
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError:
        raise RegistryFailed(f"{_site(url)} answered text that is not UTF-8 for "
                             f"{_path(url)}; refused") from None


def _check_type(headers: dict[str, str], url: str) -> None:
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json" and not kind.endswith("+json"):
        raise RegistryFailed(f"{_site(url)} answered {kind or 'no content type'} for "
                             f"{_path(url)}, not JSON; check the registry URL")


def _parse(body: str, url: str) -> Any:
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        raise RegistryFailed(f"{_site(url)} answered malformed JSON for {_path(url)}; "
                             "refused") from None


def _object(value: Any, url: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RegistryFailed(f"{_site(url)}: the answer for {_path(url)} is not a JSON "
                             "object; refused")
    return value


def _entry(item: Any, url: str) -> Entry:
    body = _object(item, url)
    try:
        server = parse_server(body.get("server"), "server")
    except ValueError as error:
        raise RegistryFailed(f"{_site(url)} answered a server.json mcpctl refuses: "
                             f"{error}") from None
    meta = body.get("_meta")
    official = meta.get("io.modelcontextprotocol.registry/official") \
        if isinstance(meta, dict) else None
    status: str = ""
    latest: bool | None = None
    if isinstance(official, dict):
        said, newest = official.get("status"), official.get("isLatest")
        status = said[:40] if isinstance(said, str) else ""
        latest = newest if isinstance(newest, bool) else None
    return Entry(server, status, latest)


def _page(answer: Any, url: str) -> Page:
    body = _object(answer, url)
    servers = body.get("servers")
    if not isinstance(servers, list):
        raise RegistryFailed(f"{_site(url)}: the answer for {_path(url)} has no 'servers' "
                             "list; refused (is it a registry?)")
    entries, skipped = [], []
    for index, item in enumerate(servers[:PAGE_SIZE * 10]):
        try:
            entries.append(_entry(item, url))
        except RegistryFailed as error:
            skipped.append(f"servers[{index}]: {error}")
    return Page(entries, skipped)


def _next_cursor(answer: Any, url: str) -> str | None:
    metadata = answer.get("metadata") if isinstance(answer, dict) else None
    cursor = metadata.get("nextCursor") if isinstance(metadata, dict) else None
    if cursor is None or cursor == "":
        return None
    if not isinstance(cursor, str) or len(cursor) > 4096:
        raise RegistryFailed(f"{_site(url)}: 'metadata.nextCursor' is not a cursor; refused")
    return cursor


def _latest_only(entries: list[Entry]) -> list[Entry]:
    """One entry per name: the registry's latest (a registry ignoring `version=latest`
    lists every version)."""
    best: dict[str, Entry] = {}
    for entry in entries:
        held = best.get(entry.server.name)
        if held is None or (entry.is_latest and not held.is_latest):
            best[entry.server.name] = entry
    return list(best.values())


def _site(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")
