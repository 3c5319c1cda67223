"""An MCP server (handshake style, stdlib only) whose tools a test decides.

`--tools FILE` is a JSON list of tool definitions, read again at every `tools/list`, so
a test can make the server add a tool later (a rug-pull) without changing how it is
started. `--count N` lists N generated tools instead (for the bench). Every
`tools/call` appends the tool's name to `--calls FILE` when given, so a test can tell
whether a refused call reached the server, and answers with the name it was called as.
`--page N` lists N tools a page (the cursor is the offset); `--notify` sends a log
notification before each `tools/list` answer; `--ids FILE` appends each request's id
(as JSON) to FILE, so a test sees the ids a relay sent in the client's place.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def generated(count: int) -> list[dict[str, Any]]:
    return [{"name": f"tool_{i:04d}", "description": f"Does thing number {i} with care.",
             "inputSchema": {"type": "object", "properties": {
                 "text": {"type": "string", "description": "What to work on"},
                 "times": {"type": "integer", "minimum": 1}}, "required": ["text"]},
             "annotations": {"readOnlyHint": i % 2 == 0}} for i in range(count)]


def answer(request: dict[str, Any], options: argparse.Namespace) -> dict[str, Any] | None:
    if "id" not in request:
        return None
    method = request.get("method")
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": "tools", "version": "1.0"}}
    elif method == "tools/list":
        tools = generated(options.count) if options.count is not None else \
            json.loads(Path(options.tools).read_text())
        result = {"tools": tools}
        if options.page:
            start = int((request.get("params") or {}).get("cursor") or 0)
            result = {"tools": tools[start:start + options.page]}
            if start + options.page < len(tools):
                result["nextCursor"] = str(start + options.page)
    elif method == "tools/call":
        name = request["params"]["name"]
        if options.calls:
            with Path(options.calls).open("a") as log:
                log.write(name + "\n")
        result = {"content": [{"type": "text", "text": f"called {name}"}]}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": request["id"],
                "error": {"code": -32601, "message": f"no method {method}"}}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools")
    parser.add_argument("--count", type=int)
    parser.add_argument("--calls")
    parser.add_argument("--page", type=int)
    parser.add_argument("--notify", action="store_true")
    parser.add_argument("--ids")
    options = parser.parse_args()
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if options.ids and "id" in request:
            with Path(options.ids).open("a") as log:
                log.write(json.dumps(request["id"]) + "\n")
        if options.notify and request.get("method") == "tools/list":
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                                         "params": {"level": "info", "data": "listing"}}) + "\n")
        reply = answer(request, options)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
