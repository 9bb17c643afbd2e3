"""``/docs`` with Swagger UI served by mnemo itself, so the page works with no network.

FastAPI's own ``/docs`` loads Swagger UI's script and style sheet from a CDN; here they come
from the ``swagger-ui-bundle-v2`` package (Apache-2.0, Swagger UI 5, which reads OpenAPI 3.1)
at ``/docs/assets/<file>``. ReDoc, which FastAPI would also fetch from a CDN, is not served.
"""

from __future__ import annotations

import importlib
from importlib.resources.abc import Traversable

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse, Response

from mnemo.api.errors import error_response

ASSETS_PATH = "/docs/assets"
#: The files of the bundle the page uses, with their media types (nothing else is served).
ASSETS = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
    "favicon-32x32.png": "image/png",
}
MISSING = (
    'Swagger UI needs the server extra: pip install "mnemo-ltm[server]" (swagger-ui-bundle-v2)'
)


def bundle_dir() -> Traversable | None:
    """The folder of Swagger UI's files in ``swagger-ui-bundle-v2``; None when not installed."""
    try:
        module = importlib.import_module("swagger_ui_bundle")
    except ImportError:
        return None
    path: Traversable = module.swagger_ui_path
    return path


def install(app: FastAPI) -> None:
    """Serve ``/docs``, its OAuth2 redirect page and its assets on ``app`` (made with
    ``docs_url=None``)."""
    assert app.openapi_url is not None
    openapi_url = app.openapi_url
    redirect_url = app.swagger_ui_oauth2_redirect_url

    @app.get("/docs", include_in_schema=False)
    def docs() -> Response:
        if bundle_dir() is None:
            return error_response(503, "unavailable", MISSING)
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} - Swagger UI",
            oauth2_redirect_url=redirect_url,
            swagger_js_url=f"{ASSETS_PATH}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS_PATH}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS_PATH}/favicon-32x32.png",
        )

    if redirect_url:

        @app.get(redirect_url, include_in_schema=False)
        def oauth2_redirect() -> HTMLResponse:
            return get_swagger_ui_oauth2_redirect_html()

    @app.get(ASSETS_PATH + "/{name}", include_in_schema=False)
    def asset(name: str) -> Response:
        folder = bundle_dir()
        if folder is None:
            return error_response(503, "unavailable", MISSING)
        if name not in ASSETS:
            return error_response(404, "not_found", f"no docs asset {name!r}")
        return Response(
            (folder / name).read_bytes(),
            media_type=ASSETS[name],
            headers={"Cache-Control": "public, max-age=86400"},
        )


__all__ = ["ASSETS", "ASSETS_PATH", "bundle_dir", "install"]
