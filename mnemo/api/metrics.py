"""Prometheus metrics of the server: requests, latency, stored turns, upstream errors."""

from __future__ import annotations

import time
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mnemo.asgi import HttpMiddleware

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class Metrics:
    """The collectors of one app, in their own registry (so apps in one process don't clash)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "mnemo_http_requests",
            "HTTP requests by method, route and status.",
            ("method", "route", "status"),
            registry=self.registry,
        )
        self.latency = Histogram(
            "mnemo_http_request_seconds",
            "Time to the end of the response, by route.",
            ("route",),
            registry=self.registry,
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
        )
        self.turns = Counter(
            "mnemo_turns_stored", "Conversation turns stored.", registry=self.registry
        )
        self.upstream_errors = Counter(
            "mnemo_upstream_errors",
            "Proxy requests whose upstream failed, by reason.",
            ("reason",),
            registry=self.registry,
        )

    def exposition(self) -> bytes:
        """The text exposition format."""
        return generate_latest(self.registry)


class MetricsMiddleware(HttpMiddleware):
    """Pure ASGI middleware timing every HTTP request until its response is complete."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        super().__init__(app)
        self.metrics = metrics

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        start, status = time.perf_counter(), [500]

        async def capture(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, capture)
        finally:
            route: Any = scope.get("route")
            name = getattr(route, "path", "unmatched")
            self.metrics.requests.labels(scope["method"], name, str(status[0])).inc()
            self.metrics.latency.labels(name).observe(time.perf_counter() - start)
