"""Per-tool policy: which of a server's tools are on, and the filter that enforces it (issue 29)."""
