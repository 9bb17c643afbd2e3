"""MCP over streamable HTTP, behind mnemo's API keys.

:class:`McpEndpoint` is an ASGI app for one path (``/mcp``): it authenticates every request
with the :data:`Authenticate` callable it is given (the REST API's key-to-tenant rule, wired
in by ``mnemo.cli``), answers 401 when that fails, and otherwise hands the request to the
SDK's session manager with the tenant in the ASGI scope (read back by
:class:`~mnemo.mcp.source.TenantMemory`). The tenant is also the session's owner, so a
session opened with one tenant's key cannot be used with another's (the SDK answers 404).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from mnemo.errors import MnemoError
from mnemo.mcp.source import TENANT_STATE_KEY

#: ``(X-API-Key header, bearer token) -> tenant``; raises MnemoError when the caller may not in.
Authenticate = Callable[[str | None, str | None], str]
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def transport_security(host: str) -> TransportSecuritySettings | None:
    """DNS-rebinding protection (Host and Origin must be loopback) when bound to loopback,
    where a browser page could otherwise reach an open server; None on other addresses,
    which require API keys."""
    if host not in LOOPBACK_HOSTS:
        return None
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def credentials(scope: Scope) -> tuple[str | None, str | None]:
    """The ``X-API-Key`` header and the ``Authorization: Bearer`` token of a request."""
    api_key = _header(scope, b"x-api-key")
    auth = _header(scope, b"authorization") or ""
    scheme, _, token = auth.partition(" ")
    bearer = token.strip() if scheme.lower() == "bearer" and token.strip() else None
    return api_key, bearer


async def _unauthorized(send: Send, message: str) -> None:
    body = json.dumps({"error": {"type": "auth_error", "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"www-authenticate", b'Bearer realm="mnemo"'),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class McpEndpoint:
    """The ASGI app of the MCP path: authenticate, then the SDK's streamable HTTP transport.

    Run :meth:`running` around serving (the SDK's session manager needs its task group).
    """

    def __init__(self, server: MCPServer[Any], authenticate: Authenticate, host: str) -> None:
        self.authenticate = authenticate
        # streamable_http_app() sets up the server's session manager; only that is used.
        server.streamable_http_app(host=host, transport_security=transport_security(host))
        self.manager: StreamableHTTPSessionManager = server.session_manager

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run the session manager (sessions end when this exits)."""
        async with self.manager.run():
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        try:
            tenant = self.authenticate(*credentials(scope))
        except MnemoError as exc:
            await _unauthorized(send, str(exc))
            return
        scope.setdefault("state", {})[TENANT_STATE_KEY] = tenant
        # The session's owner: the SDK refuses a session to any other tenant.
        owner = AccessToken(token="", client_id=f"mnemo-tenant:{tenant}", scopes=[], subject=tenant)
        scope["user"] = AuthenticatedUser(owner)
        await self.manager.handle_request(scope, receive, send)


def standalone_app(endpoint: McpEndpoint, path: str = "/mcp") -> Starlette:
    """A Starlette app serving only ``endpoint`` at ``path`` (``mnemo mcp --http``)."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with endpoint.running():
            yield

    return Starlette(
        routes=[Route(path, endpoint, methods=["GET", "POST", "DELETE"])], lifespan=lifespan
    )


__all__ = [
    "Authenticate",
    "McpEndpoint",
    "credentials",
    "standalone_app",
    "transport_security",
]
