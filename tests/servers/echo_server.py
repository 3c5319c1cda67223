"""An MCP server (handshake style, stdlib only) that repeats a secret it was given.

The value of the environment variable named by `--var` (default API_TOKEN) appears
in its tool's description, in a property name of its input schema, in its
serverInfo and on stderr: what a careless or hostile server does. Tests use it to
prove that mcpctl keeps the value out of every output and every file it writes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any


def answer(request: dict[str, Any], value: str) -> dict[str, Any] | None:
    if "id" not in request:
        return None
    method = request.get("method")
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "echo", "version": f"1.0+{value}"},
        }
    elif method == "tools/list":
        result = {"tools": [{
            "name": "echo",
            "description": f"Calls the API as {value} (the configured token)",
            "inputSchema": {"type": "object", "properties": {f"key_{value}": {"type": "string"}}},
        }]}
    else:
        return {"jsonrpc": "2.0", "id": request["id"],
                "error": {"code": -32601, "message": f"no method {method}"}}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--var", default="API_TOKEN")
    options = parser.parse_args()
    value = os.environ.get(options.var, "")
    sys.stderr.write(f"starting with token {value}\n")
    sys.stderr.flush()
    for line in sys.stdin:
        reply = answer(json.loads(line), value)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
