"""The registry client against a real HTTP registry on loopback: pages, caching by the
registry's own headers, and every way a registry can fail."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcpctl.errors import RegistryFailed, UsageError
from mcpctl.registry.api import NotFound, Registry, check_base_url
from mcpctl.registry.cache import lifetime
from tests.registry.registry_server import Registry as Served
from tests.registry.registry_server import all_fixtures, at_version, fixture, serving


@pytest.fixture
def served() -> Iterator[Served]:
    registry = Served()
    registry.publish(*all_fixtures())
    with serving(registry) as running:
        yield running


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def client(served: Served, cache: Path | None = None, clock: Clock | None = None) -> Registry:
    return Registry(served.url, cache, clock=clock or Clock(), timeout=10)


def test_one_server_latest_and_by_version(served: Served) -> None:
    served.publish(at_version(fixture("everything"), "2026.8.31"))
    registry = client(served)
    assert registry.server("io.github.modelcontextprotocol/server-everything",
                           None).server.version == "2026.8.31"
    old = registry.server("io.github.modelcontextprotocol/server-everything", "2.0.0")
    assert (old.server.version, old.is_latest, old.status) == ("2.0.0", False, "active")
    assert registry.versions("io.github.modelcontextprotocol/server-everything") == [
        "2026.8.31", "2.0.0"]
    with pytest.raises(NotFound):
        registry.server("io.github.nobody/nothing", None)
    # The name is one path segment: its '/' is encoded.
    assert served.requests[0] == ("/v0.1/servers/io.github.modelcontextprotocol%2F"
                                  "server-everything/versions/latest")


def test_search_follows_the_cursor_to_the_limit(served: Served) -> None:
    for index in range(250):
        served.publish({**fixture("playwright"), "name": f"io.github.bulk/server-{index:03}"})
    page = client(served).search("bulk", limit=220)
    assert [e.server.name for e in page.entries][:2] == ["io.github.bulk/server-000",
                                                         "io.github.bulk/server-001"]
    assert len(page.entries) == 220
    assert [r.split("cursor=")[-1] if "cursor=" in r else "" for r in served.requests] == [
        "", "100", "200"]
    assert "limit=20" in served.requests[-1]


def test_a_malformed_entry_in_a_list_is_left_out_and_counted(served: Served) -> None:
    served.publish({"name": "io.github.bad/entry", "version": 1})
    page = client(served).search("", limit=100)
    assert "io.github.bad/entry" not in [e.server.name for e in page.entries]
    assert len(page.skipped) == 1
    assert "version: expected a string, not a number" in page.skipped[0]


def test_a_fresh_answer_is_used_without_asking(served: Served, tmp_path: Path) -> None:
    served.cache_control = "public, max-age=300"
    clock = Clock()
    registry = client(served, tmp_path, clock)
    name = "io.github.upstash/context7"
    registry.server(name, None)
    registry.server(name, None)
    assert len(served.requests) == 1
    clock.now += 301
    registry.server(name, None)
    assert len(served.requests) == 2


def test_a_stale_answer_is_revalidated_with_its_etag(served: Served, tmp_path: Path) -> None:
    served.etag = True
    registry = client(served, tmp_path)
    name = "io.github.upstash/context7"
    assert registry.server(name, None).server.version == "1.0.0"
    assert registry.server(name, None).server.version == "1.0.0"  # from a 304
    assert len(served.requests) == 2
    served.publish(at_version(fixture("upstash-context7"), "1.1.0"))
    assert registry.server(name, None).server.version == "1.1.0"  # a new ETag, a new body


def test_no_store_is_not_written(served: Served, tmp_path: Path) -> None:
    served.cache_control = "no-store"
    client(served, tmp_path).server("io.github.upstash/context7", None)
    assert not (tmp_path / "registry").exists() or not list((tmp_path / "registry").iterdir())


@pytest.mark.parametrize(("header", "seconds"), [
    ("max-age=60", 60.0), ("public, max-age=60, must-revalidate", 60.0),
    ("no-cache, max-age=60", 0.0), ("no-store", None), ("", 0.0),
    ("max-age=99999999", 7 * 24 * 3600.0), ("s-maxage=60", 0.0),
])
def test_lifetime_from_cache_control(header: str, seconds: float | None) -> None:
    assert lifetime({"cache-control": header}) == seconds


@pytest.mark.parametrize(("fault", "message"), [
    ("malformed", "answered malformed JSON for /v0.1/servers/"),
    ("oversized", "answered more than 4 MiB for /v0.1/servers?"),
    ("html", "answered text/html for /v0.1/servers/"),
    ("status500", "answered HTTP 500 for /v0.1/servers/"),
    ("truncated", "cut its answer for /v0.1/servers/io.github.upstash%2Fcontext7/versions/"
                  "latest short"),
])
def test_a_misbehaving_registry_is_one_refusal(served: Served, fault: str, message: str,
                                              tmp_path: Path) -> None:
    served.fault = fault
    registry = client(served, tmp_path)
    with pytest.raises(RegistryFailed) as caught:
        _ = registry.search("", 10) if fault == "oversized" else registry.server(
            "io.github.upstash/context7", None)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)
    assert not (tmp_path / "registry").exists() or not list((tmp_path / "registry").iterdir())


def test_a_registry_dripping_its_answer_meets_the_deadline(served: Served) -> None:
    """Every byte comes well within the socket's timeout; only the whole-request
    deadline (checked between reads) ends it: 1,000 bytes at 0.2 s would take 200 s.
    With `read` in place of `read1` in `api._read` the call blocks for the whole body
    and the thread is still running when the bound below (30x the deadline) is up."""
    served.fault = "drip"
    registry = Registry(served.url, None, timeout=1.0)
    raised: list[BaseException] = []

    def ask() -> None:
        try:
            registry.server("io.github.upstash/context7", None)
        except RegistryFailed as error:
            raised.append(error)

    asking = threading.Thread(target=ask, daemon=True)
    asking.start()
    asking.join(timeout=30)
    assert not asking.is_alive(), "the deadline did not end a dripping answer"
    assert len(raised) == 1
    assert "took too long to answer /v0.1/servers/" in str(raised[0])


def test_a_registry_that_is_down(tmp_path: Path) -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(RegistryFailed, match=r"cannot reach the registry at "
                                             rf"http://127.0.0.1:{port} \("):
        Registry(f"http://127.0.0.1:{port}", tmp_path).server("a.b/c", None)


def test_a_registry_answering_another_server_is_refused(served: Served) -> None:
    served.published["io.github.upstash/context7"] = [fixture("brave-search")]
    with pytest.raises(RegistryFailed, match=r"answered io\.github\.brave/brave-search-mcp-"
                                             r"server@2\.1\.3 when asked for"):
        client(served).server("io.github.upstash/context7", None)


@pytest.mark.parametrize(("url", "message"), [
    ("ftp://registry.example", "is not an http(s) URL"),
    ("http://registry.example", "is plain http; use https"),
    ("https://user:pw@registry.example", "without credentials"),
    ("https://registry.example/?x=1", "without credentials, query or fragment"),
])
def test_base_urls_that_are_refused(url: str, message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_base_url(url)


def test_base_urls_that_are_accepted() -> None:
    assert check_base_url("https://mirror.example/mcp/") == "https://mirror.example/mcp"
    assert check_base_url("http://127.0.0.1:8080") == "http://127.0.0.1:8080"
