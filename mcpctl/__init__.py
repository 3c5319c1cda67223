"""mcpctl: manage the MCP servers your AI clients start."""

__version__ = "0.1.0"
