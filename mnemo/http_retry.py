"""POST with retries: the one retry loop of mnemo's HTTP clients (embeddings and chat).

Timeouts, connection errors, HTTP 408, 429 and 5xx are retried up to ``max_retries`` times with
exponential backoff and jitter: attempt ``n`` (from 0) waits a random time in
``[d/2, d]`` with ``d = min(cap, base * 2**n)``. A numeric ``Retry-After`` header replaces that
wait, capped at ``cap``. When retries run out the caller's transient error type is raised; any
other HTTP status is returned for the caller to judge.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

from mnemo.redact import mask_credentials

#: First backoff delay in seconds; it doubles on every retry up to ``BACKOFF_CAP_S``.
BACKOFF_BASE_S = 0.5
#: Longest wait between two attempts, also the cap of a server's ``Retry-After``.
BACKOFF_CAP_S = 8.0
EXCERPT_CHARS = 300
NETWORK_ERRORS = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)
RETRY_STATUSES = frozenset({408, 429})


def endpoint_url(base_url: str, endpoint: str) -> str:
    """``{base_url}/v1/{endpoint}``; ``/v1`` is appended only if the URL's path lacks it.

    >>> endpoint_url("http://host:8080", "embeddings")
    'http://host:8080/v1/embeddings'
    >>> endpoint_url("http://host:8080/v1/", "chat/completions")
    'http://host:8080/v1/chat/completions'
    """
    url = base_url.rstrip("/")
    if not urlsplit(url).path.endswith("/v1"):
        url += "/v1"
    return f"{url}/{endpoint}"


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def server_message(response: httpx.Response) -> str:
    """The ``error.message`` of an OpenAI-style error body, else an excerpt of the body."""
    try:
        error = response.json().get("error")
        message = error.get("message") if isinstance(error, dict) else error
        if isinstance(message, str) and message:
            return excerpt(message)
    except (ValueError, AttributeError):
        pass
    return excerpt(response.text) or "(empty body)"


def retry_after(response: httpx.Response, cap: float = BACKOFF_CAP_S) -> float | None:
    """A numeric ``Retry-After`` header in seconds, capped at ``cap``; else None."""
    try:
        seconds = float(response.headers.get("retry-after", ""))
    except ValueError:
        return None
    return min(seconds, cap) if math.isfinite(seconds) and seconds >= 0 else None


def is_retryable(status: int) -> bool:
    """True for HTTP statuses worth another try: 408, 429 and 5xx."""
    return status in RETRY_STATUSES or status >= 500


@dataclass
class RetryPolicy:
    """How often and how long to retry; ``sleep`` exists so tests need not wait.

    ``transient`` is raised when retries run out, ``fatal`` for a non-retryable transport
    failure (e.g. an invalid URL).
    """

    max_retries: int
    transient: type[Exception]
    fatal: type[Exception]
    base_s: float = BACKOFF_BASE_S
    cap_s: float = BACKOFF_CAP_S
    sleep: Callable[[float], None] = field(default=time.sleep)

    def delay(self, attempt: int) -> float:
        """Jittered wait after failed attempt ``attempt`` (0-based): in [d/2, d]."""
        d = float(min(self.cap_s, self.base_s * 2**attempt))
        return d / 2 + random.uniform(0, d / 2)


def post_with_retries(
    client: httpx.Client, url: str, payload: dict[str, Any], policy: RetryPolicy
) -> httpx.Response:
    """POST ``payload`` as JSON; returns the first response that is not retryable.

    Raises ``policy.transient`` after ``policy.max_retries + 1`` failed attempts and
    ``policy.fatal`` on a transport error that no retry can fix.
    """
    attempts = policy.max_retries + 1
    shown = mask_credentials(url)
    for attempt in range(attempts):
        wait: float | None = None
        try:
            response = client.post(url, json=payload)
        except NETWORK_ERRORS as exc:
            kind = "timed out" if isinstance(exc, httpx.TimeoutException) else "failed"
            problem = f"{kind} ({type(exc).__name__}: {mask_credentials(str(exc)) or 'no detail'})"
        except httpx.HTTPError as exc:
            raise policy.fatal(f"POST {shown} failed: {mask_credentials(str(exc))}") from exc
        else:
            if not is_retryable(response.status_code):
                return response
            problem = f"-> HTTP {response.status_code}: {server_message(response)}"
            wait = retry_after(response, policy.cap_s)
        if attempt == attempts - 1:
            raise policy.transient(f"POST {shown} {problem}; gave up after {attempts} attempts")
        policy.sleep(policy.delay(attempt) if wait is None else wait)
    raise AssertionError("unreachable")  # pragma: no cover
