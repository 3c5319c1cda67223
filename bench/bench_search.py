"""How fast `mcpctl search` is against a loopback registry holding 5,000 servers.

The registry is tests/registry/registry_server.py (the registry API over HTTP on
127.0.0.1), filled with 5,000 copies of captured server.json documents under distinct
names. Whole processes, median of interleaved rounds after a warm-up, against
`python -c pass` in the same run:

- a search matching every server, `--limit 5000` (50 pages of 100, each parsed and
  checked), with no caching headers: every page is fetched;
- the same with `Cache-Control: max-age=600` once the cache is warm: no request;
- the same as a text table instead of `--json` (the renderer's share);
- a search matching one server (one page).

    uv run python bench/bench_search.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.timing import report
from tests.registry.registry_server import Registry, all_fixtures, serving

RUNS = 5
SERVERS = 5000


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed: {done.stderr}")
    return time.perf_counter() - start


def main() -> None:
    registry = Registry()
    documents = all_fixtures()
    for index in range(SERVERS):
        document = dict(documents[index % len(documents)])
        document["name"] = f"io.github.bench/server-{index:05}"
        registry.publish(document)
    with tempfile.TemporaryDirectory() as home, serving(registry):
        env = {**os.environ, "MCPCTL_HOME": home, "HOME": home}
        mcpctl = [sys.executable, "-m", "mcpctl", "search", "--registry", registry.url]
        cases = {
            "bare python": [sys.executable, "-c", "pass"],
            "search, 5,000 matches (50 pages fetched)": [*mcpctl, "bench", "--limit",
                                                         str(SERVERS), "--json"],
            "search, 5,000 matches, text table": [*mcpctl, "bench", "--limit", str(SERVERS)],
            "search, 1 match (1 page)": [*mcpctl, "server-04999"],
        }
        samples: dict[str, list[float]] = {label: [] for label in cases}
        samples["search, 5,000 matches, cache fresh (no request)"] = []
        for attempt in range(RUNS + 1):
            for label, argv in cases.items():
                registry.cache_control = None
                seconds = timed(argv, env)
                if attempt:
                    samples[label].append(seconds)
            registry.cache_control = "max-age=600"
            timed(cases["search, 5,000 matches (50 pages fetched)"], env)  # fills the cache
            asked = len(registry.requests)
            seconds = timed(cases["search, 5,000 matches (50 pages fetched)"], env)
            assert len(registry.requests) == asked, "the fresh cache was not used"
            if attempt:
                samples["search, 5,000 matches, cache fresh (no request)"].append(seconds)
    base = statistics.median(samples["bare python"])
    for label, values in samples.items():
        report(label, statistics.median(values), None if label == "bare python" else base)


if __name__ == "__main__":
    main()
