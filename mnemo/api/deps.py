"""Per-request dependencies: the app's shared state, the caller and its tenant's Memory."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import httpx
from fastapi import Depends, Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from mnemo.api.auth import Caller, KeyStore, Tenants, authenticate
from mnemo.api.hosts import check_client, check_host, parse_allowed
from mnemo.api.metrics import Metrics
from mnemo.config.settings import Settings
from mnemo.memory.facade import Memory

key_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="A mnemo API key.")
bearer = HTTPBearer(auto_error=False, description="A mnemo API key (or, open, upstream's).")


@dataclass
class AppState:
    """What every request shares."""

    settings: Settings
    tenants: Tenants
    keys: KeyStore
    metrics: Metrics
    require_keys: bool
    upstream: httpx.AsyncClient | None = None


def app_state(request: Request) -> AppState:
    """The state of the app serving ``request``."""
    state: AppState = request.app.state.mnemo
    return state


def caller(
    request: Request,
    api_key: Annotated[str | None, Security(key_header)] = None,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Security(bearer)] = None,
) -> Caller:
    """The authenticated caller (401 without a valid key when keys are in use; 403 for a
    ``Host`` that is not ours while the server is open)."""
    state = app_state(request)
    token = credentials.credentials if credentials else None
    who = authenticate(state.keys, state.settings.tenant, api_key, token, state.require_keys)
    if not who.by_key:  # the server is open: only local clients, through a Host of ours
        check_client(request.client.host if request.client else None)
        check_host(request.headers.get("host"), parse_allowed(state.settings.allowed_hosts))
    return who


def tenant_memory(request: Request, who: Annotated[Caller, Depends(caller)]) -> Memory:
    """The Memory of the caller's tenant: every route's only way to data."""
    return app_state(request).tenants.get(who.tenant)


MemoryDep = Annotated[Memory, Depends(tenant_memory)]
CallerDep = Annotated[Caller, Depends(caller)]
StateDep = Annotated[AppState, Depends(app_state)]
