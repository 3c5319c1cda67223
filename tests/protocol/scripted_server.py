"""A tiny MCP server over stdio, handshake-era by default, standard library only.

Its behaviour is chosen by flags so each protocol rule has a server that exercises it:

  --discover error|silent|exit|legacy-result|modern|unsupported:V1,V2
                       how it treats `server/discover` (default: error -32601)
  --version V          the protocolVersion it answers `initialize` with
  --lock               after any discover, refuse `initialize` with -32022
  --pages N            split the tools over N pages; the first cursor is ""
  --tools N            how many tools (default 3)
  --ask METHOD         before the first tools/list answer, send METHOD as a request and
                       put what came back into the first tool's description
  --batch              answer tools/list inside a JSON array, after a notification
  --mrtr               (with --discover modern) ask for roots by InputRequiredResult
  --log PATH           append one line per start to PATH
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

Json = dict[str, Any]


def send(message: Json | list[Json]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def read() -> Json | None:
    line = sys.stdin.readline()
    return json.loads(line) if line else None


def reply(request: Json, result: Json) -> None:
    send({"jsonrpc": "2.0", "id": request["id"], "result": result})


def error(request: Json, code: int, message: str, data: Any = None) -> None:
    body: Json = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    send({"jsonrpc": "2.0", "id": request["id"], "error": body})


class Server:
    def __init__(self, options: argparse.Namespace) -> None:
        self.options = options
        self.discovered = False
        self.asked: str | None = None
        self.capabilities: Json = {}
        self.modern_capabilities: Json | None = None

    def tools(self) -> list[Json]:
        tools = [
            {"name": f"tool_{i}", "description": f"Tool number {i}.",
             "inputSchema": {"type": "object", "properties": {}}}
            for i in range(self.options.tools)
        ]
        if tools and self.asked is not None:
            tools[0]["description"] = self.asked
        declared = self.modern_capabilities or self.capabilities
        tools.extend(
            {"name": f"needs_{name}", "inputSchema": {"type": "object"}} for name in declared
        )
        return tools

    def page(self, cursor: str | None) -> Json:
        tools = self.tools()
        pages = max(self.options.pages, 1)
        size = -(-len(tools) // pages)
        cursors = [None, "", *[f"page-{n}" for n in range(2, pages)]]
        index = cursors.index(cursor) if cursor in cursors else 0
        result: Json = {"tools": tools[index * size:(index + 1) * size]}
        if index + 1 < pages:
            result["nextCursor"] = cursors[index + 1]
        return result

    def ask(self) -> None:
        send({"jsonrpc": "2.0", "id": "ask-1", "method": self.options.ask, "params": {}})
        while (answer := read()) is not None and answer.get("id") != "ask-1":
            pass
        self.asked = json.dumps(answer.get("result", answer.get("error")) if answer else None)

    def handle(self, request: Json) -> None:
        method = request.get("method")
        if "id" not in request:
            return
        if method == "server/discover":
            self.discover(request)
        elif method == "initialize":
            self.initialize(request)
        elif method == "tools/list":
            self.list_tools(request)
        else:
            error(request, -32601, "Method not found")

    def discover(self, request: Json) -> None:
        mode = self.options.discover
        self.discovered = True
        if mode == "silent":
            return
        if mode == "exit":
            error(request, -32601, "Method not found")
            sys.exit(0)
        if mode in ("legacy-result", "modern"):
            versions = ["2025-11-25"] if mode == "legacy-result" else ["2026-07-28"]
            reply(request, {"supportedVersions": versions, "capabilities": {"tools": {}},
                            "_meta": {"io.modelcontextprotocol/serverInfo":
                                      {"name": "old-server", "version": "1"}}})
        elif mode.startswith("unsupported:"):
            error(request, -32022, "Unsupported protocol version",
                  {"supported": mode.split(":", 1)[1].split(","), "requested": "2026-07-28"})
        else:
            error(request, -32601, "Method not found")

    def initialize(self, request: Json) -> None:
        if self.options.lock and self.discovered:
            error(request, -32022, "connection is modern", {"supported": ["2026-07-28"]})
            return
        self.capabilities = request["params"].get("capabilities", {})
        reply(request, {"protocolVersion": self.options.version, "capabilities": {"tools": {}},
                        "serverInfo": {"name": "old-server", "version": "1.0"}})

    def list_tools(self, request: Json) -> None:
        params = request.get("params") or {}
        meta = params.get("_meta")
        if meta is not None:
            self.modern_capabilities = meta.get("io.modelcontextprotocol/clientCapabilities")
            if self.options.mrtr and "inputResponses" not in params:
                reply(request, {"resultType": "input_required", "requestState": "s1",
                                "inputRequests": {"r": {"method": "roots/list", "params": {}}}})
                return
            if self.options.mrtr:
                self.asked = json.dumps([params["inputResponses"], params["requestState"]])
        elif self.options.ask and self.asked is None:
            self.ask()
        result = self.page(params.get("cursor"))
        if self.options.batch:
            note = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
            send([note, {"jsonrpc": "2.0", "id": request["id"], "result": result}])
        else:
            reply(request, result)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--discover", default="error")
    parser.add_argument("--version", default="2025-11-25")
    parser.add_argument("--lock", action="store_true")
    parser.add_argument("--pages", type=int, default=1)
    parser.add_argument("--tools", type=int, default=3)
    parser.add_argument("--ask")
    parser.add_argument("--batch", action="store_true")
    parser.add_argument("--mrtr", action="store_true")
    parser.add_argument("--log")
    options = parser.parse_args()
    if options.log:
        with open(options.log, "a", encoding="utf-8") as log:
            log.write("start\n")
    server = Server(options)
    while (request := read()) is not None:
        server.handle(request)


if __name__ == "__main__":
    main()
