"""An SDK (2.x) server whose tools carry `x-mcp-header` annotations, over Streamable HTTP.

    python sdk_param_server.py PORT

`route` mirrors `region` into `Mcp-Param-Region`: the SDK checks the header against
the body on every call and refuses a call without it.
"""

from __future__ import annotations

import sys
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import Field

app = MCPServer("sdk-params")


@app.tool()
def route(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})],
          query: str) -> str:
    """Say where a query would run."""
    return f"{query} runs in {region}"


if __name__ == "__main__":
    app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
