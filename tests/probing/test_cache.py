"""The probe cache on real files: round trip, per-capability entries, damage reads as absent."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from mcpctl.paths import Paths
from mcpctl.probing import cache as probe_cache
from mcpctl.probing.cache import SCHEMA_VERSION, CachedProbe, cache_file, from_probe, load, save
from mcpctl.protocol.probe import ProbeResult

FINGERPRINT = "sha256:" + "ab" * 32


@pytest.fixture
def paths() -> Paths:
    return Paths.from_environment(os.environ)  # MCPCTL_HOME points into tmp_path


def cached(probed_at: float = 1000.0, capabilities: tuple[str, ...] = ("roots",),
           name: str = "srv", fingerprint: str = FINGERPRINT) -> CachedProbe:
    return CachedProbe(
        fingerprint=fingerprint, name=name, probed_at=probed_at, capabilities=capabilities,
        style="initialize", protocol_version="2025-11-25",
        server_info={"name": "srv", "version": "1"},
        tools=({"name": "a", "description": "é", "inputSchema": {"type": "object"}},),
        tokens=(17,), tokenizer="o200k_base", digest="sha256:" + "0" * 64,
    )


def test_round_trip(paths: Paths, mcpctl_home: Path) -> None:
    save(paths, cached())
    assert load(paths, FINGERPRINT, frozenset({"roots"})) == cached()
    path = mcpctl_home / "cache" / "probes" / ("ab" * 32 + ".json")
    assert cache_file(paths, FINGERPRINT) == path
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["schema_version"] == SCHEMA_VERSION == 1
    assert list(document["probes"]) == ["roots"]
    assert document["probes"]["roots"]["tools"][0]["description"] == "é"
    assert cached().total_tokens == 17


def test_absent_is_none(paths: Paths) -> None:
    assert load(paths, FINGERPRINT) is None
    assert load(paths, FINGERPRINT, frozenset()) is None


def test_each_capability_set_has_its_own_entry(paths: Paths) -> None:
    save(paths, cached(probed_at=1.0, capabilities=()))
    save(paths, cached(probed_at=3.0, capabilities=("elicitation", "roots", "sampling")))
    save(paths, cached(probed_at=2.0, capabilities=("roots",)))
    assert load(paths, FINGERPRINT, frozenset()) == cached(1.0, ())
    assert load(paths, FINGERPRINT, frozenset({"roots"})) == cached(2.0, ("roots",))
    latest = load(paths, FINGERPRINT)
    assert latest is not None
    assert latest.probed_at == 3.0


@pytest.mark.parametrize("damage", [
    "{not json", "[]", '{"schema_version": 2, "probes": {}}', '{"schema_version": 1}',
    '{"schema_version": 1, "probes": {"roots": {"name": "x"}}}',
    '{"schema_version": 1, "probes": {"roots": 5}}',
])
def test_corrupt_or_newer_reads_as_absent(paths: Paths, damage: str) -> None:
    path = cache_file(paths, FINGERPRINT)
    path.parent.mkdir(parents=True)
    path.write_text(damage, encoding="utf-8")
    assert load(paths, FINGERPRINT) is None
    assert load(paths, FINGERPRINT, frozenset({"roots"})) is None
    save(paths, cached())  # and the next save replaces it
    assert load(paths, FINGERPRINT) == cached()


def test_nan_or_infinity_in_a_file_reads_as_absent(paths: Paths) -> None:
    """Python's json reads them, but they are not JSON: such a file is corrupt."""
    save(paths, cached())
    path = cache_file(paths, FINGERPRINT)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"type": "object"', '"maximum": NaN'), encoding="utf-8")
    assert load(paths, FINGERPRINT) is None


def test_a_tool_with_nan_is_never_written(paths: Paths) -> None:
    bad = cached()
    bad = bad._replace(tools=({"name": "n", "maximum": float("nan")},))
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        save(paths, bad)
    assert not cache_file(paths, FINGERPRINT).exists()


def test_inconsistent_entry_reads_as_absent(paths: Paths) -> None:
    save(paths, cached())
    path = cache_file(paths, FINGERPRINT)
    document = json.loads(path.read_text())
    document["probes"]["roots"]["tokens"] = [1, 2]
    path.write_text(json.dumps(document))
    assert load(paths, FINGERPRINT) is None


@pytest.mark.parametrize("bad", ["sha256:../../etc", "ab" * 32, "sha256:" + "AB" * 32, ""])
def test_only_sha256_fingerprints_name_files(paths: Paths, bad: str) -> None:
    with pytest.raises(ValueError, match="not a sha256 fingerprint"):
        cache_file(paths, bad)


def test_concurrent_saves_lose_nothing(paths: Paths) -> None:
    sets = [(), ("roots",), ("sampling",), ("elicitation",), ("roots", "sampling")]
    threads = [threading.Thread(target=save, args=(paths, cached(float(n), caps)))
               for n, caps in enumerate(sets)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert [thread.is_alive() for thread in threads] == [False] * len(threads)
    for n, caps in enumerate(sets):
        assert load(paths, FINGERPRINT, frozenset(caps)) == cached(float(n), caps)


def test_from_probe() -> None:
    result = ProbeResult(
        name="srv", style="initialize", protocol_version="2025-11-25",
        server_info={"name": "srv", "version": "1"}, capabilities={"tools": {}},
        client_capabilities=frozenset({"roots"}),
        tools=({"name": "a", "description": "é", "inputSchema": {"type": "object"}},),
        first_answer=0.1, elapsed=0.2,
    )
    entry = from_probe(FINGERPRINT, result, [17], tokenizer="o200k_base",
                       digest="sha256:" + "0" * 64, probed_at=1000.0)
    assert entry == cached()
    assert probe_cache.capability_key(frozenset({"sampling", "roots"})) == "roots,sampling"
