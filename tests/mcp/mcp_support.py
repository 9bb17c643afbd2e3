"""Shared helpers of the MCP tests: the SDK's own client over stdio (a real ``python -m mnemo
mcp`` subprocess) and over streamable HTTP (a real uvicorn on 127.0.0.1)."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

ROOT = Path(__file__).resolve().parents[2]


def stdio_client(db_path: str, *args: str, **env: str) -> Client:
    """An MCP client of a ``python -m mnemo mcp`` subprocess on ``db_path`` (hashing)."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mnemo", "mcp", "--db", db_path, "--embedder", "hashing", *args],
        env={"PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]), **env},
        cwd=str(ROOT),
    )
    return Client(params)


@asynccontextmanager
async def http_client(url: str, key: str | None = None) -> AsyncIterator[Client]:
    """An MCP client of the streamable HTTP endpoint ``url``, sending ``key`` as a bearer."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client


def run(fn: Callable[[], Awaitable[Any]]) -> Any:
    """Run an async test body."""
    return anyio.run(fn)


def data(result: CallToolResult) -> dict[str, Any]:
    """The structured result of a successful call (fails the test on a tool error)."""
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return dict(result.structured_content)


def error_text(result: CallToolResult) -> str:
    """The message of a tool error (fails the test when the call succeeded)."""
    assert result.is_error, result.structured_content
    return " ".join(getattr(c, "text", "") for c in result.content)
