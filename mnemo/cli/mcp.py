"""``mnemo mcp``: the MCP server over stdio (default) or streamable HTTP, and its mount at
``/mcp`` in ``mnemo serve``.

Over HTTP, MCP uses the REST API's own rule (:func:`mnemo.api.auth.authenticate`): a
request's ``X-API-Key`` or ``Authorization: Bearer mnemo_...`` key selects its tenant; with no
live key the server is open as the configured tenant, and only on loopback
(:func:`mnemo.api.auth.check_bind`). The wiring lives here because ``mnemo.mcp`` and
``mnemo.api`` are independent of each other and the CLI sits above both.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Annotated, Any

import typer

from mnemo.cli.common import DbOpt, EmbedderOpt, cli_settings, creating, err, guarded
from mnemo.cli.listen import serve_on
from mnemo.config.settings import Settings
from mnemo.errors import ConfigError

if TYPE_CHECKING:
    from fastapi import FastAPI
    from starlette.applications import Starlette

    from mnemo.api.auth import KeyStore, Tenants
    from mnemo.mcp.http import Authenticate

MCP_PATH = "/mcp"
DEFAULT_MCP_PORT = 8765


def mcp_available() -> bool:
    """Whether the ``mcp`` SDK (the ``mcp`` extra) is installed."""
    import importlib.util

    return importlib.util.find_spec("mcp") is not None


def _need_mcp() -> None:
    if not mcp_available():
        raise ConfigError('MCP needs its extra: pip install "mnemo-ltm[mcp]"')


def key_authenticator(keys: KeyStore, default_tenant: str, require_keys: bool) -> Authenticate:
    """The REST API's key-to-tenant rule as the MCP endpoint's authenticator."""
    from mnemo.api.auth import authenticate

    def tenant_of(api_key: str | None, bearer: str | None) -> str:
        return authenticate(keys, default_tenant, api_key, bearer, require_keys).tenant

    return tenant_of


def _endpoint(tenants: Tenants, keys: KeyStore, require_keys: bool, host: str) -> Any:
    from mnemo.mcp.http import McpEndpoint
    from mnemo.mcp.server import create_server
    from mnemo.mcp.source import TenantMemory

    server = create_server(TenantMemory(tenants.get))
    authenticate = key_authenticator(keys, tenants.settings.tenant, require_keys)
    return McpEndpoint(server, authenticate, host)


def mount_mcp(app: FastAPI, host: str) -> None:
    """Serve MCP at ``/mcp`` in the REST app ``app`` (made by :func:`mnemo.api.app.create_app`),
    with its tenants, keys and ``require_keys``; the session manager runs in its lifespan."""
    _need_mcp()
    state = app.state.mnemo
    endpoint = _endpoint(state.tenants, state.keys, state.require_keys, host)
    app.router.add_route(MCP_PATH, endpoint, methods=["GET", "POST", "DELETE"])
    rest_lifespan = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(a: Any) -> AsyncIterator[Any]:
        async with rest_lifespan(a) as value, endpoint.running():
            yield value

    app.router.lifespan_context = lifespan


def serve_app(settings: Settings, host: str) -> FastAPI:
    """``mnemo serve``'s app: the REST API and proxy, the web UI at ``/ui``, and MCP at
    ``/mcp`` when the ``mcp`` extra is installed."""
    from mnemo.api.server import build
    from mnemo.cli.web import mount_ui

    app = creating(settings, lambda: build(settings, host))
    mount_ui(app)
    if mcp_available():
        mount_mcp(app, host)
    return app


def http_app(settings: Settings, host: str) -> Starlette:
    """``mnemo mcp --http``'s app: only MCP at ``/mcp``, over one store shared by the tenants
    (refuses a non-loopback host without API keys, and then requires a key)."""
    _need_mcp()
    from mnemo.api.auth import Tenants, check_bind, check_bind_before_open, is_loopback, key_store
    from mnemo.embedders import create_embedder
    from mnemo.mcp.http import standalone_app
    from mnemo.storage import open_store

    check_bind_before_open(host, settings)  # a refused host creates no store
    store = creating(settings, lambda: open_store(settings))
    try:
        keys = key_store(store)
        check_bind(host, keys)
        tenants = Tenants(settings, store, create_embedder(settings))
    except BaseException:
        store.close()
        raise
    tenants.get(settings.tenant)  # fail fast: embedder mismatch, unreadable store
    endpoint = _endpoint(tenants, keys, not is_loopback(host), host)
    app = standalone_app(endpoint, MCP_PATH)
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(a: Any) -> AsyncIterator[Any]:
        try:
            async with inner(a) as value:
                yield value
        finally:
            tenants.close()

    app.router.lifespan_context = lifespan
    return app


def _stdio(db: str | None, embedder: str | None, tenant: str | None) -> None:
    from mnemo.cli.common import open_memory
    from mnemo.mcp.server import create_server, run_stdio
    from mnemo.mcp.source import FixedMemory

    with open_memory(db, embedder, tenant=tenant) as mem:
        worker = mem.worker().start() if mem.settings.serve_worker else None
        try:
            run_stdio(create_server(FixedMemory(mem)))
        finally:
            if worker is not None:
                worker.stop(timeout=30)


def mcp_command(
    http: Annotated[
        bool, typer.Option("--http", help="Serve streamable HTTP at /mcp instead of stdio.")
    ] = False,
    host: Annotated[str, typer.Option(help="Address to bind with --http.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port with --http.")] = DEFAULT_MCP_PORT,
    tenant: Annotated[
        str | None, typer.Option(help="Tenant over stdio (env MNEMO_TENANT); HTTP: the key's.")
    ] = None,
    db: DbOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """Run the MCP server (tools: remember, recall, context, ...) over stdio, or over
    streamable HTTP with --http (API keys select tenants, as in `mnemo serve`)."""

    def run() -> None:
        _need_mcp()
        if not http:
            _stdio(db, embedder, tenant)
            return
        settings = cli_settings(db, embedder, tenant=tenant)

        def announce(url: str) -> None:
            line = f"mnemo mcp: {url}{MCP_PATH} (streamable HTTP); Ctrl-C stops"
            err.print(line, soft_wrap=True)

        serve_on(host, port, lambda: http_app(settings, host), announce)

    guarded(run)


__all__ = [
    "http_app",
    "key_authenticator",
    "mcp_available",
    "mcp_command",
    "mount_mcp",
    "serve_app",
]
