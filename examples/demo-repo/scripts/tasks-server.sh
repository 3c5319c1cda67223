#!/usr/bin/env bash
# The repo's own server; mcpctl pins this file's content into the fingerprint.
exec python3 -m tasks_mcp "$@"
