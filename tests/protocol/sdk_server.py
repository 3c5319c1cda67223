"""A reference server built on the official MCP Python SDK (2.x), which speaks both eras.

    python sdk_server.py                      stdio
    python sdk_server.py http PORT [json]     Streamable HTTP on 127.0.0.1:PORT/mcp
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer

app = MCPServer("sdk-reference")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.tool()
def shout(text: str) -> str:
    """Upper-case the text — loudly."""
    return text.upper()


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]),
                json_response="json" in sys.argv[3:])
    else:
        app.run()
