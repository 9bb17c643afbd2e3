"""Building the mnemo MCP server and running it over stdio."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

from mnemo.mcp.arguments import CheckedServer
from mnemo.mcp.resources import register_resources
from mnemo.mcp.source import MemorySource
from mnemo.mcp.tools import register_tools
from mnemo.version import __version__

INSTRUCTIONS = (
    "Long-term memory about the users you talk with. Call `context` (or `recall`) with the "
    "user's message before answering to get what you know about them; call `remember` with "
    "new durable facts or with the conversation turns; `update_memory` / `forget_memory` fix "
    "or remove a memory by id. Every tool takes the user's id: keep it stable per person."
)


def create_server(source: MemorySource) -> MCPServer[Any]:
    """An MCP server whose tools and resources work on the Memory ``source`` gives each call;
    its server info reports ``mnemo.__version__``; refused arguments are one line in mnemo's
    words (:class:`~mnemo.mcp.arguments.CheckedServer`)."""
    server: MCPServer[Any] = CheckedServer(
        "mnemo",
        title="mnemo memory",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
    )
    register_tools(server, source)
    register_resources(server, source)
    return server


def run_stdio(server: MCPServer[Any]) -> None:
    """Serve MCP over this process's stdin/stdout until the client closes them."""
    server.run("stdio")


__all__ = ["INSTRUCTIONS", "create_server", "run_stdio"]
