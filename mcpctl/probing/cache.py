"""The last probe of each server, kept so `list` can show tools and tokens without
starting anything and a new probe can tell which tools changed (DESIGN §6 "Cache").

One file per server fingerprint under `paths.probe_cache`, named by the fingerprint's
hex digest. Inside, one entry per set of declared capabilities, since a server may
list different tools for different capabilities and comparing across sets would
raise false alarms. A cache is only a cache: a file that is unreadable, corrupt, or
written by a newer mcpctl (`schema_version`) reads as absent, and the next save
replaces it.
"""

import json
import re
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from mcpctl.files.atomic import atomic_write_text, file_lock
from mcpctl.paths import Paths

if TYPE_CHECKING:  # the client pulls in asyncio; `list` reads the cache without it
    from mcpctl.protocol.probe import ProbeResult

SCHEMA_VERSION = 1
_FINGERPRINT = re.compile(r"^sha256:([0-9a-f]{64})$")


class CachedProbe(NamedTuple):
    """A server's last probe as the cache keeps it: tools, tokens and when."""

    fingerprint: str
    name: str
    probed_at: float  # seconds since the epoch
    capabilities: tuple[str, ...]  # declared by mcpctl, sorted
    style: str
    protocol_version: str
    server_info: Mapping[str, Any]
    tools: tuple[dict[str, Any], ...]  # as received
    tokens: tuple[int, ...]  # per tool, same order
    tokenizer: str
    digest: str

    @property
    def total_tokens(self) -> int:
        return sum(self.tokens)


def from_probe(
    fingerprint: str, result: "ProbeResult", tokens: Sequence[int], *, tokenizer: str,
    digest: str, probed_at: float, secrets: Collection[str] = (),
) -> CachedProbe:
    """The cache entry for a fresh probe; the caller counts tokens and reads the clock.

    A server may quote what it was given (a resolved `${secret:…}` in a description):
    each of `secrets` is masked in the tools and server info before anything keeps or
    shows them (issue 14). Tokens and the digest are the caller's, counted on the tools
    as received, so the cost is still what a client pays.
    """
    # Here, not at the top: `run`'s tool filter reads the cache and redacts nothing.
    from mcpctl.credentials.redact import redact_known_tree  # noqa: PLC0415

    tools = tuple(redact_known_tree(tool, secrets) for tool in result.tools)
    return CachedProbe(
        fingerprint, result.name, probed_at, tuple(sorted(result.client_capabilities)),
        result.style, result.protocol_version,
        redact_known_tree(dict(result.server_info), secrets), tools,
        tuple(tokens), tokenizer, digest,
    )


def cache_file(paths: Paths, fingerprint: str) -> Path:
    match = _FINGERPRINT.match(fingerprint)
    if match is None:
        # The name becomes a path: anything but a sha256 fingerprint is refused.
        raise ValueError(f"not a sha256 fingerprint: {fingerprint!r}")
    return paths.probe_cache / f"{match.group(1)}.json"


def capability_key(capabilities: Sequence[str] | frozenset[str]) -> str:
    return ",".join(sorted(capabilities))


def load(
    paths: Paths, fingerprint: str, capabilities: frozenset[str] | None = None
) -> CachedProbe | None:
    """The cached probe for these capabilities; with None, the most recent of any."""
    entries = _read_entries(cache_file(paths, fingerprint))
    if capabilities is not None:
        entry = entries.get(capability_key(capabilities))
        return _entry(fingerprint, entry)
    probes = [p for p in (_entry(fingerprint, e) for e in entries.values()) if p]
    return max(probes, key=lambda p: p.probed_at, default=None)


def save(paths: Paths, probe: CachedProbe) -> None:
    path = cache_file(paths, probe.fingerprint)
    with file_lock(path):
        entries = _read_entries(path)
        entries[capability_key(probe.capabilities)] = _serialise(probe)
        document = {"schema_version": SCHEMA_VERSION, "fingerprint": probe.fingerprint,
                    "probes": entries}
        # allow_nan=False: the client refuses such tool lists; never write invalid JSON.
        text = json.dumps(document, ensure_ascii=False, allow_nan=False, indent=1)
        atomic_write_text(path, text + "\n")


def _read_entries(path: Path) -> dict[str, Any]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"), parse_constant=_not_json)
    except (OSError, ValueError):
        return {}
    if not isinstance(document, dict) or document.get("schema_version") != SCHEMA_VERSION:
        return {}
    probes = document.get("probes")
    return dict(probes) if isinstance(probes, dict) else {}


def _not_json(constant: str) -> Any:
    """NaN and Infinity, which `json` reads but JSON lacks: the file is corrupt."""
    raise ValueError(f"{constant} is not JSON")


def _serialise(probe: CachedProbe) -> dict[str, Any]:
    return {
        "name": probe.name, "probed_at": probe.probed_at,
        "capabilities": list(probe.capabilities), "style": probe.style,
        "protocol_version": probe.protocol_version, "server_info": dict(probe.server_info),
        "tokenizer": probe.tokenizer, "digest": probe.digest,
        "tokens": list(probe.tokens), "tools": list(probe.tools),
    }


def _entry(fingerprint: str, entry: Any) -> CachedProbe | None:
    """A cached probe from its stored form; None for anything malformed."""
    if not isinstance(entry, dict):
        return None
    try:
        probe = CachedProbe(
            fingerprint, _typed(entry, "name", str), float(_typed(entry, "probed_at", float)),
            tuple(_typed(entry, "capabilities", list)), _typed(entry, "style", str),
            _typed(entry, "protocol_version", str), _typed(entry, "server_info", dict),
            tuple(_typed(entry, "tools", list)), tuple(_typed(entry, "tokens", list)),
            _typed(entry, "tokenizer", str), _typed(entry, "digest", str),
        )
    except (KeyError, TypeError):
        return None
    consistent = (
        len(probe.tools) == len(probe.tokens)
        and all(isinstance(t, dict) for t in probe.tools)
        and all(isinstance(n, int) and not isinstance(n, bool) for n in probe.tokens)
        and all(isinstance(c, str) for c in probe.capabilities)
    )
    return probe if consistent else None


def _typed(entry: Mapping[str, Any], key: str, kind: type) -> Any:
    value = entry[key]
    if kind is float and isinstance(value, int | float) and not isinstance(value, bool):
        return value
    if not isinstance(value, kind):
        raise TypeError(key)
    return value
