"""The MCP client: start or reach a server, speak either protocol era, list its tools.

Entry points live in `mcpctl.protocol.probe`; nothing here imports asyncio or httpx so
that importing the package stays cheap.
"""
