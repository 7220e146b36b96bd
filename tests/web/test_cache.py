"""The response cache without a server: sharing, expiry, eviction, ETags and encodings."""

from __future__ import annotations

import asyncio
import gzip

import pytest
from starlette.requests import Request

from arena.web.cache import Rendered, ResponseCache

BODY = b"x" * 2000


def request(path: str = "/a", query: str = "", **headers: str) -> Request:
    """A GET request with these headers."""
    scope = {
        "type": "http",
        "method": "GET",
        "path": path,
        "query_string": query.encode(),
        "headers": [(k.replace("_", "-").lower().encode(), v.encode()) for k, v in headers.items()],
    }
    return Request(scope)


def serve(cache: ResponseCache, rendered: Rendered, req: Request | None = None) -> tuple:
    """Serve `rendered` through the cache; (status, headers, body, renderings)."""
    calls = []

    async def render() -> Rendered:
        calls.append(1)
        return rendered

    async def go() -> object:
        return await cache.serve(req or request(), render)

    reply = asyncio.run(go())
    return reply.status_code, reply.headers, reply.body, len(calls)  # type: ignore[attr-defined]


def test_a_final_answer_is_kept_and_a_fresh_one_expires() -> None:
    cache = ResponseCache(fresh_for=0.0)
    final = Rendered(200, BODY, "text/plain", final=True)
    assert serve(cache, final)[3] == 1 and serve(cache, final)[3] == 0
    other = ResponseCache(fresh_for=0.0)
    plain = Rendered(200, BODY, "text/plain")
    assert serve(other, plain)[3] == 1 and serve(other, plain)[3] == 1, "fresh_for 0: not kept"


def test_a_repeated_parameter_in_another_order_is_another_answer() -> None:
    cache = ResponseCache(fresh_for=60.0)
    rendered = Rendered(200, BODY, "text/plain")
    assert serve(cache, rendered, request(query="a=1&b=2"))[3] == 1
    assert serve(cache, rendered, request(query="a=1&b=2"))[3] == 0
    assert serve(cache, rendered, request(query="a=1&a=2"))[3] == 1
    assert serve(cache, rendered, request(query="a=2&a=1"))[3] == 1


def test_server_errors_are_never_kept_or_tagged() -> None:
    cache = ResponseCache(fresh_for=60.0)
    busy = Rendered(503, BODY, "text/plain", final=True, headers=(("Retry-After", "5"),))
    status, headers, _, _ = serve(cache, busy)
    assert status == 503 and "etag" not in headers and headers["cache-control"] == "no-store"
    assert headers["retry-after"] == "5"
    assert serve(cache, busy)[3] == 1 and len(cache) == 0


def test_the_cache_holds_at_most_its_bytes() -> None:
    cache = ResponseCache(fresh_for=60.0, max_bytes=20_000)
    for n in range(30):
        serve(cache, Rendered(200, bytes([n]) * 3000, "text/plain"), request(f"/{n}"))
    assert 0 < len(cache) < 30 and cache._bytes <= 20_000


@pytest.mark.parametrize(
    ("header", "matches"),
    [("{tag}", True), ("W/{tag}", True), ('"other", {tag}', True), ("*", True), ('"x"', False)],
)
def test_if_none_match(header: str, matches: bool) -> None:
    cache = ResponseCache(fresh_for=60.0)
    rendered = Rendered(200, BODY, "text/plain")
    tag = serve(cache, rendered)[1]["etag"]
    status = serve(cache, rendered, request(if_none_match=header.format(tag=tag)))[0]
    assert status == (304 if matches else 200)


@pytest.mark.parametrize(
    ("accept", "zipped"),
    [
        ("gzip", True),
        ("br, gzip;q=0.5", True),
        ("gzip;q=0", False),
        ("identity", False),
        ("", False),
    ],
)
def test_gzip_only_for_clients_that_take_it(accept: str, zipped: bool) -> None:
    cache = ResponseCache(fresh_for=60.0)
    _, headers, body, _ = serve(
        cache, Rendered(200, BODY, "text/plain"), request(accept_encoding=accept)
    )
    assert (headers.get("content-encoding") == "gzip") is zipped
    assert (gzip.decompress(body) if zipped else body) == BODY
    assert headers["vary"] == "Accept-Encoding"
