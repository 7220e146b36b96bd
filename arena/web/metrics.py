"""Prometheus metrics of the web server: requests and their latency, by route and status."""

from __future__ import annotations

import time
from typing import Any

from prometheus_client import Counter, Histogram
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.ops.metrics import LATENCY_BUCKETS

REQUESTS = Counter(
    "arena_web_requests_total", "HTTP requests served", ["method", "route", "status"]
)
LATENCY = Histogram(
    "arena_web_request_duration_seconds",
    "Time to answer an HTTP request",
    ["method", "route"],
    buckets=LATENCY_BUCKETS,
)
DEFAULT_METRICS_PORT = 9104
"""After the referee's 9101, the worker's 9102 and beat's 9103."""


class MetricsMiddleware:
    """Counts and times every HTTP request, labelled by its route's path template."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = time.perf_counter()
        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            route = _route(scope)
            REQUESTS.labels(scope["method"], route, str(status)).inc()
            LATENCY.labels(scope["method"], route).observe(time.perf_counter() - began)


def _route(scope: Scope) -> str:
    """The path template that served the request (bounded label values), or "unmatched"."""
    app: Any = scope.get("app")
    for route in getattr(app, "routes", ()):
        matched, _ = route.matches(scope)
        if matched == Match.FULL:
            return str(getattr(route, "path", "unmatched"))
    return "unmatched"
