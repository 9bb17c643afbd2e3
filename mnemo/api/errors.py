"""HTTP error mapping: every error is JSON ``{"error": {"type", "message"}}``.

A mnemo error answers with the status and type its class carries (``http_status`` and
``error_type``, see :mod:`mnemo.errors`: ValidationError 422, NotFoundError 404, AuthError 401,
HostRefused 403, ConfigError 400, SchemaError 409, UpstreamError 502, TransientError and
StorageError 503, EmbeddingError 502); anything else is a 500 whose traceback is logged (the
one broad catch of the HTTP layer). A request FastAPI refuses answers 422 ``invalid_request``
with mnemo's messages: a check's own, a body that is not JSON ``request body is not valid
JSON: <why> (at character N)``, else ``<field>: <what is wrong>``.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.types import Message, Receive, Scope, Send

from mnemo.asgi import HttpMiddleware
from mnemo.errors import MnemoError
from mnemo.redact import mask_credentials

log = logging.getLogger("mnemo.api")


def error_response(status: int, kind: str, message: str) -> JSONResponse:
    """The JSON error body with ``status``."""
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    body = {"error": {"type": kind, "message": message}}
    return JSONResponse(body, status_code=status, headers=headers)


def status_of(exc: MnemoError) -> tuple[int, str]:
    """HTTP status and error type of a mnemo error (the ones its class carries)."""
    return exc.http_status, exc.error_type


#: What a client is told of a database failure; the server log has the details (which name
#: the database and may quote its rows).
STORAGE_MESSAGE = "the database failed; the server log has the details"


def described(exc: MnemoError, where: str) -> tuple[int, str, str]:
    """Status, error type and the message a client may read of ``exc``: credentials masked,
    and a database failure only :data:`STORAGE_MESSAGE`. A 5xx is logged, saying ``where``."""
    status, kind = status_of(exc)
    message = mask_credentials(str(exc))
    if status >= 500:
        log.error("%s failed: %s", where, message)
        if kind == "storage_error":
            message = STORAGE_MESSAGE
    return status, kind, message


async def _mnemo(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, MnemoError)
    return error_response(*described(exc, f"{request.method} {request.url.path}"))


async def _invalid(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    parts = []
    for err in exc.errors()[:10]:
        cause = err.get("ctx", {}).get("error")
        if isinstance(cause, MnemoError):  # a check of mnemo's own: its message, as elsewhere
            parts.append(str(cause))
            continue
        if err.get("type") == "json_invalid":  # FastAPI's: loc ("body", position), ctx the why
            at = err.get("loc", ())[-1:]
            where = f" (at character {at[0]})" if at and isinstance(at[0], int) else ""
            parts.append(f"request body is not valid JSON: {cause}{where}")
            continue
        loc = ".".join(str(x) for x in err.get("loc", ()) if x != "body") or "body"
        parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    return error_response(422, "invalid_request", "; ".join(parts) or "invalid request")


async def _http(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    kind = "too_large" if exc.status_code == 413 else "http_error"
    return error_response(exc.status_code, kind, str(exc.detail))


async def _crash(request: Request, exc: Exception) -> JSONResponse:
    log.exception("%s %s crashed", request.method, request.url.path)
    return error_response(500, "internal_error", f"internal error: {type(exc).__name__}")


class CrashMiddleware(HttpMiddleware):
    """Answers an unexpected exception with the JSON 500 and ends the request normally.

    Starlette's outermost error middleware sends its 500 and then re-raises, and uvicorn
    closes the connection of an app that raised, so every client of a keep-alive connection
    would pay for one crash. Inside it, this middleware answers (when no response has started)
    and does not re-raise; the traceback is logged.
    """

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def tracking(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking)
        except Exception as exc:  # the HTTP layer's one broad catch: logged, answered 500
            if started:
                raise
            response = await _crash(Request(scope, receive), exc)
            await response(scope, receive, send)


def install(app: FastAPI) -> None:
    """Register the handlers on ``app`` (and :class:`CrashMiddleware`, innermost of the
    middlewares added so far)."""
    app.add_exception_handler(MnemoError, _mnemo)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(HTTPException, _http)
    app.add_exception_handler(Exception, _crash)
    app.add_middleware(CrashMiddleware)
