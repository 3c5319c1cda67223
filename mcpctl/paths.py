"""Where mcpctl keeps its files: one `Paths` value, built once and passed down."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Paths:
    config_dir: Path
    data_dir: Path
    cache_dir: Path

    @property
    def config_file(self) -> Path:
        return self.config_dir / "config.toml"

    @property
    def trust_file(self) -> Path:
        return self.data_dir / "trust.json"

    @property
    def secrets_index(self) -> Path:
        return self.data_dir / "secrets.json"

    @property
    def probe_cache(self) -> Path:
        return self.cache_dir / "probes"

    @property
    def log_file(self) -> Path:
        return self.cache_dir / "mcpctl.log"

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> Paths:
        """`MCPCTL_HOME` puts config/, data/ and cache/ under one folder; else platformdirs."""
        home = environ.get("MCPCTL_HOME")
        if home:
            root = Path(home).expanduser()
            return cls(root / "config", root / "data", root / "cache")
        import platformdirs  # noqa: PLC0415 - only needed without MCPCTL_HOME

        return cls(
            platformdirs.user_config_path("mcpctl", appauthor=False),
            platformdirs.user_data_path("mcpctl", appauthor=False),
            platformdirs.user_cache_path("mcpctl", appauthor=False),
        )
