"""The web metrics without a server: a live stream is counted and timed to its first byte, apart
from the requests, whose latency histogram it would otherwise fill with minutes."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

from prometheus_client import REGISTRY
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Message

from arena.web.metrics import MetricsMiddleware

STREAM_FOR = 0.6
"""Seconds the test stream stays open after its first event."""


async def stream(request: Request) -> Response:
    async def events() -> AsyncIterator[bytes]:
        yield b"retry: 2000\n\n"
        await asyncio.sleep(STREAM_FOR)
        yield b"event: end\ndata: {}\n\n"

    return StreamingResponse(events(), media_type="text/event-stream")


async def plain(request: Request) -> Response:
    return PlainTextResponse("ok")


APP = MetricsMiddleware(
    Starlette(routes=[Route("/t/{n}/stream", stream), Route("/t/{n}/plain", plain)])
)


async def get(path: str) -> tuple[float, float]:
    """Request `path` from the app: (seconds to the response head, seconds to its end)."""
    began = time.perf_counter()
    head = 0.0
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.sleep(3600)  # the client never leaves
        raise AssertionError("unreachable")

    async def send(message: Message) -> None:
        nonlocal head
        if message["type"] == "http.response.start":
            head = time.perf_counter() - began

    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"test")],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }
    await APP(scope, receive, send)
    return head, time.perf_counter() - began


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_a_stream_is_counted_apart_and_timed_to_its_first_byte() -> None:
    stream_route, plain_route = "/t/{n}/stream", "/t/{n}/plain"
    before = {
        "latency": sample(
            "arena_web_request_duration_seconds_count", method="GET", route=stream_route
        ),
        "latency_sum": sample(
            "arena_web_request_duration_seconds_sum", method="GET", route=stream_route
        ),
        "requests": sample(
            "arena_web_requests_total", method="GET", route=stream_route, status="200"
        ),
        "streams": sample("arena_web_streams_total", route=stream_route, status="200"),
        "starts": sample("arena_web_stream_start_seconds_count", route=stream_route),
        "start_sum": sample("arena_web_stream_start_seconds_sum", route=stream_route),
        "plain": sample(
            "arena_web_request_duration_seconds_count", method="GET", route=plain_route
        ),
        "plain_streams": sample("arena_web_streams_total", route=plain_route, status="200"),
    }
    head, whole = asyncio.run(get("/t/1/stream"))
    assert whole >= STREAM_FOR > head  # the stream did stay open after its head
    asyncio.run(get("/t/1/plain"))

    # The stream is not a request: neither timed nor counted as one ...
    assert (
        sample("arena_web_request_duration_seconds_count", method="GET", route=stream_route)
        == before["latency"]
    )
    assert (
        sample("arena_web_request_duration_seconds_sum", method="GET", route=stream_route)
        == before["latency_sum"]
    )
    assert (
        sample("arena_web_requests_total", method="GET", route=stream_route, status="200")
        == before["requests"]
    )
    # ... it is a stream, counted once and timed to its head, not to its end.
    assert sample("arena_web_streams_total", route=stream_route, status="200") == (
        before["streams"] + 1
    )
    assert (
        sample("arena_web_stream_start_seconds_count", route=stream_route) == before["starts"] + 1
    )
    took = sample("arena_web_stream_start_seconds_sum", route=stream_route) - before["start_sum"]
    assert 0 < took <= head + 0.05 < STREAM_FOR
    # An ordinary request is still a request, and no stream.
    assert (
        sample("arena_web_request_duration_seconds_count", method="GET", route=plain_route)
        == before["plain"] + 1
    )
    assert sample("arena_web_streams_total", route=plain_route, status="200") == 0
    assert before["plain_streams"] == 0
