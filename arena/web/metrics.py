"""Prometheus metrics of the web server: requests and their latency, by route and status; live
streams, counted and timed to their first byte apart from the requests; the browsers subscribed
to pushed live updates."""

from __future__ import annotations

import time
from typing import Any

from prometheus_client import Counter, Gauge, Histogram
from starlette.datastructures import Headers
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.ops.metrics import LATENCY_BUCKETS

REQUESTS = Counter(
    "arena_web_requests_total", "HTTP requests served", ["method", "route", "status"]
)
LATENCY = Histogram(
    "arena_web_request_duration_seconds",
    "Time to answer an HTTP request (live streams are left out: see the stream metrics)",
    ["method", "route"],
    buckets=LATENCY_BUCKETS,
)
STREAMS = Counter(
    "arena_web_streams_total",
    "Live streams (Server-Sent Events) opened, by route and status, counted when they start",
    ["route", "status"],
)
STREAM_START = Histogram(
    "arena_web_stream_start_seconds",
    "Time from a live stream's request to its first byte (the response head)",
    ["route"],
    buckets=LATENCY_BUCKETS,
)
SUBSCRIBERS = Gauge(
    "arena_web_live_subscribers",
    "Browsers subscribed to pushed live updates now, by kind (match steps or a JSON document)",
    ["kind"],
    multiprocess_mode="livesum",
)
"""Raised and lowered by the live streams; summed over the processes of `arena web --workers`."""
STREAM_TYPE = "text/event-stream"
"""A response of this type is a live stream: open for as long as its spectator watches."""
DEFAULT_METRICS_PORT = 9104
"""After the referee's 9101, the worker's 9102 and beat's 9103."""


class MetricsMiddleware:
    """Counts and times every HTTP request, labelled by its route's path template.

    A live stream lasts as long as its spectator stays, so timing it as a request would fill the
    latency histogram's top bucket with minutes: a stream is counted apart, when its head goes
    out, and timed to that first byte."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = time.perf_counter()
        status = 500
        stream = False

        async def sending(message: Message) -> None:
            nonlocal status, stream
            if message["type"] == "http.response.start":
                status = int(message["status"])
                kind = Headers(raw=message.get("headers", [])).get("content-type", "")
                stream = kind.startswith(STREAM_TYPE)
                if stream:
                    route = _route(scope)
                    STREAMS.labels(route, str(status)).inc()
                    STREAM_START.labels(route).observe(time.perf_counter() - began)
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            if not stream:
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
