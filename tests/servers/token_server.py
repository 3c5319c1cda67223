"""A tiny MCP server (handshake style, stdlib only) for the tests.

It answers `initialize` and `tools/list`. `TOKEN_SERVER_EXTRA_TOOL` in its
environment adds a second tool of that name. Its one tool's description carries the
SHA-256 of the environment variable named by `--token-var` (default API_TOKEN), so a
test can prove a secret arrived without the secret ever being printed. With
`--marker PATH` it creates that file on start: a test that must prove a server was
NOT started checks that the file is absent. With `--require-sha256 HEX` it exits (code
3, before answering anything) unless the token's SHA-256 is HEX, so a client that
reports it connected has proven the value arrived.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any


def tools(token_var: str) -> list[dict[str, Any]]:
    token = os.environ.get(token_var)
    digest = hashlib.sha256(token.encode()).hexdigest() if token is not None else "missing"
    listed = [{
        "name": "whoami",
        "description": f"token-sha256:{digest}",
        "inputSchema": {"type": "object", "properties": {}},
    }]
    extra = os.environ.get("TOKEN_SERVER_EXTRA_TOOL")
    if extra:  # lets a test change the tool list without changing the definition
        listed.append({"name": extra, "description": "added later",
                       "inputSchema": {"type": "object"}})
    return listed


def answer(request: dict[str, Any], token_var: str) -> dict[str, Any] | None:
    if "id" not in request:
        return None
    method = request.get("method")
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "token-server", "version": "1.0"},
        }
    elif method == "tools/list":
        result = {"tools": tools(token_var)}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": request["id"],
                "error": {"code": -32601, "message": f"no method {method}"}}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--token-var", default="API_TOKEN")
    parser.add_argument("--marker")
    parser.add_argument("--require-sha256")
    options = parser.parse_args()
    if options.require_sha256 is not None:
        token = os.environ.get(options.token_var, "")
        if hashlib.sha256(token.encode()).hexdigest() != options.require_sha256:
            sys.stderr.write(f"token-server: {options.token_var} is not the expected value\n")
            sys.exit(3)
    if options.marker:
        Path(options.marker).write_text(str(os.getpid()))
    for line in sys.stdin:
        reply = answer(json.loads(line), options.token_var)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
