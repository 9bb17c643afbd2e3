"""Tool arguments refused in mnemo's words: :class:`CheckedServer` is the ``MCPServer`` whose
calls with arguments that fail a tool's schema come back as one line, as every other tool
error does (``Error executing tool recall: ValidationError: limit must be an integer in
[1, 1000]``), instead of pydantic's multi-line report with its links to pydantic's site.

The line is the library's (:func:`mnemo.search_query.mnemo_error`: the first failing check's
own message, else ``<argument>: <what is wrong>``), so the MCP tools, REST and the library
refuse a bad argument with the same words.
"""

from __future__ import annotations

from typing import Any

import pydantic
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import CallToolResult, InputRequiredResult

from mnemo.search_query import mnemo_error


def argument_error(tool: str, exc: pydantic.ValidationError) -> ToolError:
    """The tool error of a call to ``tool`` whose arguments ``exc`` refused: one line, the
    error's type and mnemo's message (:func:`~mnemo.search_query.mnemo_error`).

    >>> from pydantic import BaseModel, Field
    >>> class Args(BaseModel):
    ...     user_id: str = Field(min_length=1)
    >>> try:
    ...     Args(user_id="")
    ... except pydantic.ValidationError as exc:
    ...     print(argument_error("recall", exc))
    Error executing tool recall: ValidationError: user_id: String should have at least 1 character
    """
    error = mnemo_error(exc)
    return ToolError(f"Error executing tool {tool}: {type(error).__name__}: {error}")


class CheckedServer(MCPServer[Any]):
    """An ``MCPServer`` answering a call whose arguments fail the tool's schema with
    :func:`argument_error`'s line (see the module docstring)."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """``MCPServer.call_tool``, with refused arguments reported in mnemo's words. The
        pydantic error stays the cause, so the SDK still logs only the fields' names."""
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(exc, UnexpectedToolError) or not isinstance(
                cause, pydantic.ValidationError
            ):
                raise
            raise argument_error(name, cause) from cause


__all__ = ["CheckedServer", "argument_error"]
