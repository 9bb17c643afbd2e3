"""The request body limit of the server: a body over ``max_request_bytes`` is refused with 413.

A declared ``Content-Length`` over the limit is refused before a byte of the body is read; a
body without one (chunked) is counted as it arrives and refused once it passes the limit, so
no request makes the server hold more than ``max_request_bytes`` of body in memory. The limits
on what a body may hold (content, metadata, tags, ids) are the validation's
(:mod:`mnemo.validation`), reported as 422.
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mnemo.api.errors import error_response
from mnemo.asgi import HttpMiddleware


class BodyTooLarge(HTTPException):
    """A request body passed the limit while it was read (HTTP 413)."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, too_large(limit))


def too_large(limit: int) -> str:
    """The 413 message for ``limit`` bytes."""
    return f"request body is larger than {limit:,} bytes (setting max_request_bytes)"


class BodyLimitMiddleware(HttpMiddleware):
    """Pure ASGI middleware enforcing ``max_bytes`` on every HTTP request body."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        super().__init__(app)
        self.max_bytes = max_bytes

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            response = error_response(413, "too_large", too_large(self.max_bytes))
            response.headers["connection"] = "close"
            await response(scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes)
            return message

        await self.app(scope, counted, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


__all__ = ["BodyLimitMiddleware", "BodyTooLarge", "too_large"]
