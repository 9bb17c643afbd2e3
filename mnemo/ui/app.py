"""The UI's ASGI app: its pages, error pages, static files and security headers.

``create_ui(authenticate, memory_for)`` returns a FastAPI app to mount (``mnemo serve`` mounts
it at ``/ui``). It has no OpenAPI document of its own: its routes are HTML pages, not API.
"""

from __future__ import annotations

import secrets
from importlib.resources import files

from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from starlette.types import Message, Receive, Scope, Send

from mnemo.asgi import HttpMiddleware
from mnemo.ui import audit, entities, errors, jobs, login, memories, search, users
from mnemo.ui.access import Authenticate, Gate, MemoryFor
from mnemo.ui.render import base_path

STATIC = files("mnemo.ui") / "static"
MEDIA = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
#: Sent with every UI response: only this server's own scripts, styles, forms and frames.
SECURITY_HEADERS = (
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
        b" form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
)


class SecurityHeaders(HttpMiddleware):
    """Pure ASGI middleware adding :data:`SECURITY_HEADERS`, and ``Cache-Control: no-store``
    to pages (they show private data); static files keep their own caching."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on, adding the headers to its response."""

        async def add(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {k.lower() for k, _ in headers}
                headers += [h for h in SECURITY_HEADERS if h[0] not in names]
                if b"cache-control" not in names:
                    headers.append((b"cache-control", b"no-store"))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, add)


def static_names() -> frozenset[str]:
    """The files the UI serves from its ``static`` folder."""
    return frozenset(p.name for p in STATIC.iterdir() if p.name.endswith(tuple(MEDIA)))


def create_ui(authenticate: Authenticate, memory_for: MemoryFor) -> FastAPI:
    """The UI app: ``authenticate`` maps a request's credentials to an identity (raising a
    MnemoError to refuse it), ``memory_for`` gives a tenant's Memory. Form tokens are signed
    with a random secret made here, so they last as long as the app."""
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    app.state.gate = Gate(authenticate, memory_for, secrets.token_bytes(32))
    errors.install(app)
    app.add_middleware(SecurityHeaders)
    for module in (login, users, entities, memories, search, jobs, audit):
        app.include_router(module.router)
    names = static_names()

    @app.get("/", include_in_schema=False)
    def home(request: Request) -> RedirectResponse:
        return RedirectResponse(base_path(request) + "/users", status_code=303)

    @app.get("/static/{name}", include_in_schema=False)
    def static(request: Request, name: str) -> Response:
        if name not in names:
            return errors.error_page(request, 404, f"no static file {name!r}")
        media = MEDIA[name[name.rindex(".") :]]
        body = (STATIC / name).read_bytes()
        return Response(body, media_type=media, headers={"Cache-Control": "public, max-age=3600"})

    return app


__all__ = ["SECURITY_HEADERS", "SecurityHeaders", "create_ui", "static_names"]
