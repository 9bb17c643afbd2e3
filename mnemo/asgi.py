"""The base of the pure ASGI middlewares of the REST server and the web UI:
:class:`HttpMiddleware` (the one place that tells an HTTP request from the lifespan events)."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send


class HttpMiddleware:
    """Pure ASGI middleware that acts on HTTP requests only: anything else (the lifespan
    events) goes to ``app`` untouched, an HTTP request to :meth:`http`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.http(scope, receive, send)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one HTTP request (at the least by passing it on to ``self.app``)."""
        await self.app(scope, receive, send)


__all__ = ["HttpMiddleware"]
