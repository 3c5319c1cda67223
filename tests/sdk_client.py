"""The official MCP SDK as a real client in tests: start a server command, list tools."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.conftest import MEASURED_ENV

# What `mcpctl run` needs from the client's environment: its home and the keyring bus
# (and, while the coverage map is made, what measures it).
PASSED_ENV = ("MCPCTL_HOME", "DBUS_SESSION_BUS_ADDRESS", "HOME", *MEASURED_ENV)


async def _list_tools(command: str, args: list[str], env: Mapping[str, str]
                      ) -> list[tuple[str, str]]:
    params = StdioServerParameters(command=command, args=args, env=dict(env))
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
    return [(tool.name, tool.description or "") for tool in listed.tools]


def list_tools(command: str, args: list[str], extra_env: Mapping[str, str] | None = None
               ) -> list[tuple[str, str]]:
    """(name, description) of each tool the server lists to a real SDK client."""
    env = {key: os.environ[key] for key in PASSED_ENV if key in os.environ}
    return asyncio.run(_list_tools(command, args, {**env, **(extra_env or {})}))
