"""What the UI shows when a request fails: an HTML page with the status and the message.

A mnemo error answers with the status its class carries, as in the REST API
(``http_status``, see :mod:`mnemo.errors`: ValidationError 422, NotFoundError 404, ConfigError
400, SchemaError 409, EmbeddingError 502, TransientError and StorageError 503); a GET without
credentials goes to the login page, a refused form is a 403.
"""

from __future__ import annotations

from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import RedirectResponse, Response
from starlette.exceptions import HTTPException

from mnemo.errors import MnemoError
from mnemo.ui.access import COOKIE, Forbidden, Gate, LoginRequired, Viewer
from mnemo.ui.render import base_path, page

TITLES = {
    400: "Bad request",
    401: "Login needed",
    403: "Refused",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict",
    422: "Invalid input",
    502: "Upstream error",
    503: "Unavailable",
}


def known_viewer(request: Request) -> Viewer | None:
    """The caller of ``request`` when it is authenticated (so the error page keeps the
    navigation), else None."""
    gate: Gate | None = getattr(request.app.state, "gate", None)
    if gate is None:
        return None
    try:
        return gate.viewer(request)
    except (LoginRequired, Forbidden, MnemoError):
        return None


def error_page(request: Request, status: int, message: str) -> Response:
    """The error page: a title for ``status`` and ``message``."""
    title = TITLES.get(status, "Error")
    viewer = None if status in (401, 403) else known_viewer(request)
    return page(request, "error.html", viewer, status, title=title, message=message, status=status)


async def _login(request: Request, exc: Exception) -> Response:
    if request.method in ("GET", "HEAD"):
        here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        target = f"{base_path(request)}/login?next={quote(here, safe='')}"
        response = RedirectResponse(target, status_code=303)
        if request.cookies.get(COOKIE):  # a revoked or stale key: forget it
            response.delete_cookie(COOKIE, path=base_path(request) + "/", samesite="strict")
        return response
    return error_page(request, 401, f"{exc} -- log in with an API key first")


async def _forbidden(request: Request, exc: Exception) -> Response:
    return error_page(request, 403, str(exc))


async def _mnemo(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, MnemoError)
    return error_page(request, exc.http_status, str(exc))


async def _http(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    message = "no such page" if exc.status_code == 404 else str(exc.detail)
    return error_page(request, exc.status_code, message)


async def _invalid(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    parts = []
    for err in exc.errors()[:10]:
        where = ".".join(str(x) for x in err.get("loc", ()) if x not in ("query", "path"))
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return error_page(request, 422, "; ".join(parts) or "invalid request")


def install(app: FastAPI) -> None:
    """Register the UI's error pages on ``app``."""
    app.add_exception_handler(LoginRequired, _login)
    app.add_exception_handler(Forbidden, _forbidden)
    app.add_exception_handler(MnemoError, _mnemo)
    app.add_exception_handler(HTTPException, _http)
    app.add_exception_handler(RequestValidationError, _invalid)


__all__ = ["error_page", "install"]
