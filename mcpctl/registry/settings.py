"""Which registry mcpctl asks: `--registry URL`, else `[registry] url` in config.toml,
else the official MCP Registry.

```toml
[registry]
url = "https://mcp-registry.example.internal"   # an organisation's mirror of the same API
```
"""

from pathlib import Path

from mcpctl.errors import ConfigError

# The official registry run by the MCP project; the only place its URL is written.
DEFAULT_REGISTRY = "https://registry.modelcontextprotocol.io"


def registry_url(config_file: Path, given: str | None) -> str:
    if given:
        return given
    from mcpctl.config.user_config_edit import config_text, parse_config  # noqa: PLC0415

    if not config_file.exists():
        return DEFAULT_REGISTRY
    table = parse_config(config_file, config_text(config_file)).get("registry", {})
    if not isinstance(table, dict) or not isinstance(table.get("url", ""), str):
        raise ConfigError(f"{config_file}: [registry] url must be a string (a registry's "
                          "base URL)")
    return table.get("url") or DEFAULT_REGISTRY
