"""HTTP error mapping: every error is JSON ``{"error": {"type", "message"}}``.

mnemo errors map to statuses (ValidationError 422, NotFoundError 404, AuthError 401,
HostRefused 403, ConfigError 400, SchemaError 409, UpstreamError 502, TransientError and
StorageError 503, EmbeddingError 502); anything else is a 500 whose traceback is logged (the
one broad catch of the HTTP layer).
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from mnemo.api.auth import AuthError
from mnemo.api.hosts import HostRefused
from mnemo.api.upstream import UpstreamError
from mnemo.errors import (
    ConfigError,
    EmbeddingError,
    MnemoError,
    NotFoundError,
    SchemaError,
    StorageError,
    TransientError,
    ValidationError,
)

log = logging.getLogger("mnemo.api")

#: Most specific first: the first class an error is an instance of decides.
STATUS: tuple[tuple[type[MnemoError], int, str], ...] = (
    (AuthError, 401, "unauthorized"),
    (HostRefused, 403, "forbidden_host"),
    (UpstreamError, 502, "upstream_error"),
    (ValidationError, 422, "invalid_request"),
    (NotFoundError, 404, "not_found"),
    (ConfigError, 400, "config_error"),
    (SchemaError, 409, "schema_error"),
    (TransientError, 503, "unavailable"),
    (EmbeddingError, 502, "embedding_error"),
    (StorageError, 503, "storage_error"),
)


def error_response(status: int, kind: str, message: str) -> JSONResponse:
    """The JSON error body with ``status``."""
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    body = {"error": {"type": kind, "message": message}}
    return JSONResponse(body, status_code=status, headers=headers)


def status_of(exc: MnemoError) -> tuple[int, str]:
    """HTTP status and error type of a mnemo error."""
    for cls, status, kind in STATUS:
        if isinstance(exc, cls):
            return status, kind
    return 500, "internal_error"


async def _mnemo(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, MnemoError)
    status, kind = status_of(exc)
    if status >= 500:
        log.error("%s %s failed: %r", request.method, request.url.path, exc)
    return error_response(status, kind, str(exc))


async def _invalid(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    parts = []
    for err in exc.errors()[:10]:
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


def install(app: FastAPI) -> None:
    """Register the handlers on ``app``."""
    app.add_exception_handler(MnemoError, _mnemo)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(HTTPException, _http)
    app.add_exception_handler(Exception, _crash)
