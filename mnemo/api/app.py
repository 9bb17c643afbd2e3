"""The FastAPI application: routes, auth, errors, metrics and the upstream client.

``create_app(settings)`` opens the store and embedder once; each tenant gets a Memory over
them (see :mod:`mnemo.api.auth`). The sync core runs in FastAPI's thread pool. OpenAPI is at
``/openapi.json`` and ``/docs`` (Swagger UI served from mnemo itself: :mod:`mnemo.api.docs`;
descriptions without docstring doctests: :mod:`mnemo.api.schema_text`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.responses import Response

from mnemo.api import (
    audit,
    docs,
    entities,
    errors,
    jobs,
    mem0_routes,
    memories,
    proxy,
    query,
    schema_text,
    upstream,
)
from mnemo.api.auth import Tenants, check_bind, check_bind_before_open, is_loopback, key_store
from mnemo.api.deps import AppState, CallerDep, StateDep
from mnemo.api.limits import BodyLimitMiddleware
from mnemo.api.metrics import CONTENT_TYPE, Metrics, MetricsMiddleware
from mnemo.api.models import Health
from mnemo.api.worker import tenant_worker
from mnemo.config.settings import Settings
from mnemo.embedders import Embedder, create_embedder
from mnemo.storage import open_store
from mnemo.storage.ports.store import Store
from mnemo.version import __version__


def create_app(
    settings: Settings | None = None,
    *,
    store: Store | None = None,
    embedder: Embedder | None = None,
    require_keys: bool = False,
) -> FastAPI:
    """The mnemo server app. ``require_keys`` refuses every request without a valid key
    (``mnemo serve`` sets it when binding anything but loopback)."""
    settings = settings or Settings()
    embedder = embedder or create_embedder(settings)
    store = store or open_store(settings)
    metrics = Metrics()
    state = AppState(
        settings=settings,
        tenants=Tenants(settings, store, embedder),
        keys=key_store(store),
        metrics=metrics,
        require_keys=require_keys,
    )
    state.tenants.get(settings.tenant)  # fail fast: embedder mismatch, unreadable store

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        state.upstream = upstream.make_client(settings)
        worker = tenant_worker(state.tenants) if settings.serve_worker else None
        if worker is not None:
            worker.start()
        files = state.tenants.get(settings.tenant) if settings.files_root else None
        if files is not None:
            files.watch_files()  # `agent-cli`: hand edits of the Markdown files reach the store
        try:
            yield
        finally:
            if files is not None:
                files.stop_files()
            if worker is not None:
                worker.stop(timeout=30)
            if state.upstream is not None:
                await state.upstream.aclose()
            state.tenants.close()

    app = FastAPI(
        title="mnemo",
        version=__version__,
        description="Long-term memory for LLM chat apps: REST API and OpenAI-compatible proxy.",
        lifespan=lifespan,
        docs_url=None,  # docs.install serves /docs with local assets, not a CDN's
        redoc_url=None,  # ReDoc would load from a CDN
    )
    app.state.mnemo = state
    errors.install(app)
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_request_bytes)
    app.add_middleware(MetricsMiddleware, metrics=metrics)  # outermost: counts refusals too
    routers = (memories.router, entities.router, jobs.router, query.router, proxy.router)
    for router in (*routers, mem0_routes.router, audit.router):
        app.include_router(router)
    _ops_routes(app)
    docs.install(app)
    schema_text.install(app)  # no docstring doctest in /openapi.json
    return app


def _ops_routes(app: FastAPI) -> None:
    @app.get("/health", response_model=Health, tags=["ops"])
    def health(state: StateDep) -> Health:
        """Liveness and the main settings (no auth)."""
        s = state.settings
        return Health(
            status="ok",
            version=__version__,
            preset=s.preset,
            embedder=state.tenants.embedder.id,
            llm=s.llm_enabled,
            upstream=upstream.base_url(s) is not None,
            auth=state.require_keys or state.keys.any_live(),
        )

    if app.state.mnemo.settings.metrics_public:

        @app.get("/metrics", tags=["ops"], response_class=Response)
        def public_metrics(state: StateDep) -> Response:
            """Prometheus metrics (text exposition format); no key needed (`metrics_public`)."""
            return Response(state.metrics.exposition(), media_type=CONTENT_TYPE)

        return

    @app.get("/metrics", tags=["ops"], response_class=Response)
    def metrics(state: StateDep, who: CallerDep) -> Response:
        """Prometheus metrics (text exposition format); needs a key while keys are in use."""
        return Response(state.metrics.exposition(), media_type=CONTENT_TYPE)


def build(settings: Settings, host: str) -> FastAPI:
    """The app for ``host``: refuses a non-loopback host without API keys, and then requires a
    key on every request. A refused host opens nothing: a missing SQLite file is not created."""
    check_bind_before_open(host, settings)
    store = open_store(settings)
    try:
        check_bind(host, key_store(store))
    except BaseException:
        store.close()
        raise
    return create_app(
        settings,
        store=store,
        embedder=create_embedder(settings),
        require_keys=not is_loopback(host),
    )


def app_from_env() -> Any:
    """Factory for ``uvicorn --factory mnemo.api.app:app_from_env`` (settings from env).

    The bind check uses ``MNEMO_HOST`` (uvicorn's own ``--host`` is not visible here): set it
    to the address uvicorn binds. Whatever uvicorn binds, a server without keys serves only
    loopback clients (:func:`mnemo.api.hosts.check_client`).
    """
    settings = Settings()
    return build(settings, settings.host)
