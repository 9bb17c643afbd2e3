"""The proxy's upstream: an OpenAI-compatible chat server reached with httpx.

The base URL is ``upstream_base_url`` (default ``llm_base_url``), including ``/v1`` as with
the OpenAI client; ``echo`` is the built-in demo upstream (:mod:`mnemo.api.echo_upstream`),
which answers without a model. The key sent upstream is ``upstream_api_key``, else the
client's bearer token when it is not a mnemo key, else ``llm_api_key``.
"""

from __future__ import annotations

import logging

import httpx

from mnemo.api import echo_upstream
from mnemo.api.auth import KEY_PREFIX
from mnemo.config.settings import Settings
from mnemo.errors import ConfigError, TransientError

log = logging.getLogger("mnemo.proxy")


class UpstreamError(TransientError):
    """The upstream could not be reached or timed out (HTTP 502 to the client)."""

    http_status = 502
    error_type = "upstream_error"


def base_url(settings: Settings) -> str | None:
    """The upstream base URL without a trailing slash, or None when none is configured."""
    url = settings.upstream_base_url or settings.llm_base_url
    return url.rstrip("/") if url else None


def make_client(settings: Settings) -> httpx.AsyncClient | None:
    """An async client for the upstream (the built-in demo when ``upstream_base_url`` is
    ``echo``), or None without one."""
    url = base_url(settings)
    if url is None:
        return None
    timeout = httpx.Timeout(settings.upstream_timeout_s, connect=10.0)
    if settings.upstream_base_url == echo_upstream.ECHO:
        log.warning(
            "upstream: echo, a demo that answers without a model (replies quote the request)"
        )
        return echo_upstream.make_client(timeout)
    limits = httpx.Limits(max_connections=200, max_keepalive_connections=50)
    return httpx.AsyncClient(base_url=url + "/", timeout=timeout, limits=limits)


def auth_headers(settings: Settings, client_token: str | None) -> dict[str, str]:
    """The Authorization header to send upstream (maybe none); a mnemo key never leaves."""
    token = settings.upstream_api_key
    if token is None and client_token and not client_token.startswith(KEY_PREFIX):
        token = client_token
    token = token or settings.llm_api_key
    return {"Authorization": f"Bearer {token}"} if token else {}


def require(client: httpx.AsyncClient | None) -> httpx.AsyncClient:
    """The client, or ConfigError when no upstream is configured."""
    if client is None:
        raise ConfigError(
            "no upstream configured: set MNEMO_UPSTREAM_BASE_URL or MNEMO_LLM_BASE_URL"
        )
    return client
