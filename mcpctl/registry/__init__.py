"""The MCP Registry: reading `server.json` documents and the registry's HTTP API (issue 28).

`document.py` checks a `server.json` and gives it types; `api.py` asks a registry
over HTTP (bounded, cached, never executed); `inputs.py` says what a document asks
of the user; `launch_entry.py` turns a document and the answers into one user-tier
entry; `upgrade.py` moves the pinned version of an entry made so.
"""
