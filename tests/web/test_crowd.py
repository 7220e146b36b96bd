"""The web front under a crowd and at its door: shared renderings, ETags, gzip, headers, refusals.

Each test here failed on the front as it was first built (issue 27's defects list).
"""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.routing import Route
from starlette.testclient import TestClient

from arena.referee.clock import Clock
from arena.storage import Database
from arena.storage.errors import Unavailable
from arena.storage.rows import SeatResult
from arena.tournament import rounds as tournaments
from arena.web import data, openapi
from arena.web.app import WebConfig, create_app
from engines.api import Termination
from tests.web.seed import register, store_match

NAMES = ["ann", "bob", "cat", "dan"]
SECRET_PLACE = "postgres@/run/secret-socket:5432/arena"


@dataclass(frozen=True)
class World:
    """What the seeded database holds."""

    url: str
    hart: int
    crossing: int
    running: int
    scheduled: int


@pytest.fixture(scope="module")
def world(migrated_database_url: str) -> World:
    """Finished Hart and Crossing matches (Hart finishes last), a running one, a scheduled cup."""

    async def seed() -> World:
        async with await Database.open(migrated_database_url) as db:
            bots = list((await register(db, NAMES)).items())
            hart = await store_match(db, "hart", bots, 11, finish=False)
            crossing = await store_match(db, "crossing", bots[:3], 12)
            running = await store_match(db, "loyang", bots[:2], 13, keep=3)
            results = [SeatResult(rank, 1.0, 0) for rank in hart.ranks]
            await db.finish_match(hart.match_id, Termination.COMPLETED, results)
            tid = await tournaments.create_tournament(
                db,
                name="later cup",
                game="hart",
                bot_names=NAMES,
                table_size=4,
                rounds=2,
                clock=Clock(),
                starts_at=datetime.now(UTC) + timedelta(hours=1),
            )
            return World(
                migrated_database_url, hart.match_id, crossing.match_id, running.match_id, tid
            )

    return asyncio.run(seed())


def app_client(world: World, fresh: timedelta = timedelta(0)) -> TestClient:
    """A client of an app over the world's database."""
    config = WebConfig(database_url=world.url, spectator_delay=timedelta(0), fresh_for=fresh)
    return TestClient(create_app(config))


@pytest.fixture(scope="module")
def client(world: World) -> Iterator[TestClient]:
    with app_client(world) as test_client:
        yield test_client


def paths(client: TestClient, world: World) -> list[str]:
    """Every route of the app, with ids of the world filled in."""
    fill = {
        "{game}": "hart",
        "{name}": "ann",
        "{tournament_id}": str(world.scheduled),
        "{match_id}": str(world.hart),
        "{file}": "viewer.js",
    }
    out = []
    for route in client.app.routes:  # type: ignore[attr-defined]
        if isinstance(route, Route) and not route.path.endswith("/live"):  # endless streams
            path = route.path
            for key, value in fill.items():
                path = path.replace(key, value)
            out.append(path)
    return out


def counting(monkeypatch: pytest.MonkeyPatch, name: str, pause: float = 0.0) -> dict[str, int]:
    """Count the calls of `data.<name>` (each after `pause` seconds)."""
    calls = {"n": 0}
    real: Callable[..., Awaitable[Any]] = getattr(data, name)

    async def counted(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        await asyncio.sleep(pause)
        return await real(*args, **kwargs)

    monkeypatch.setattr(data, name, counted)
    return calls


# -- security headers --------------------------------------------------------------------------


def test_every_response_carries_the_security_headers(client: TestClient, world: World) -> None:
    extra = ["/nothing", "/api/nothing", "/api/matches/abc", "/api/bots/a%00", "/static/none.js"]
    for path in paths(client, world) + extra:
        for method in ("GET", "POST"):
            reply = client.request(method, path)
            csp = reply.headers.get("content-security-policy", "")
            directives = dict(d.strip().partition(" ")[::2] for d in csp.split(";"))
            assert directives.get("script-src") == "'self'", (method, path, csp)
            assert directives.get("frame-ancestors") == "'none'", (method, path)
            assert directives.get("object-src") == "'none'", (method, path)
            assert reply.headers.get("x-content-type-options") == "nosniff", (method, path)
            assert reply.headers.get("referrer-policy") == "same-origin", (method, path)
            assert reply.headers.get("cache-control"), (method, path)


def test_no_page_has_an_inline_script(client: TestClient, world: World) -> None:
    for path in paths(client, world):
        reply = client.get(path)
        if reply.headers["content-type"].startswith("text/html"):
            scripts = re.findall(r"<script[^>]*>", reply.text)
            assert all('src="/static/' in s for s in scripts), (path, scripts)
            assert not re.search(r"\son[a-z]+=", reply.text), path


# -- a finished match, rendered once ------------------------------------------------------------


@pytest.mark.parametrize("tail", ["/steps?limit=500", "/replay", ""])
def test_a_finished_match_is_rendered_once_with_a_strong_etag(
    world: World, monkeypatch: pytest.MonkeyPatch, tail: str
) -> None:
    calls = counting(monkeypatch, "match")
    path = f"/api/matches/{world.crossing}{tail}"
    with app_client(world) as client:
        first = client.get(path)
        again = client.get(path)
        assert first.status_code == again.status_code == 200
        assert first.content == again.content
        assert calls["n"] == 1, "rendered once, then served from memory"
        etag = first.headers["etag"]
        assert etag.startswith('"') and etag == again.headers["etag"], "a strong ETag"
        lifetime = re.search(r"max-age=(\d+)", first.headers["cache-control"])
        assert lifetime and int(lifetime[1]) >= 3600
        unchanged = client.get(path, headers={"If-None-Match": etag})
        assert unchanged.status_code == 304 and unchanged.content == b""
        assert unchanged.headers["etag"] == etag


def test_a_running_match_is_not_kept(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = counting(monkeypatch, "match")
    with app_client(world) as client:
        for _ in range(2):
            reply = client.get(f"/api/matches/{world.running}/steps")
            assert reply.status_code == 200 and reply.headers["cache-control"] == "no-cache"
        assert calls["n"] == 2


@pytest.mark.parametrize("tail", ["/steps?limit=500", "/replay"])
def test_text_answers_are_gzipped(client: TestClient, world: World, tail: str) -> None:
    for path in [f"/api/matches/{world.crossing}{tail}", "/", "/api", "/static/viewer.js"]:
        zipped = client.get(path, headers={"Accept-Encoding": "gzip"})
        plain = client.get(path, headers={"Accept-Encoding": "identity"})
        assert zipped.headers.get("content-encoding") == "gzip", path
        assert "content-encoding" not in plain.headers, path
        assert zipped.content == plain.content, "the same text either way"
        assert int(zipped.headers["content-length"]) < len(plain.content) / 2, path


def test_a_crowd_waits_for_one_rendering(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = counting(monkeypatch, "home", pause=0.3)
    with app_client(world, fresh=timedelta(seconds=30)) as client, ThreadPoolExecutor(20) as pool:
        replies = list(pool.map(lambda _: client.get("/api/home"), range(40)))
    assert {r.status_code for r in replies} == {200}
    assert calls["n"] == 1


# -- refusals ----------------------------------------------------------------------------------


def test_an_unreachable_database_is_a_503_that_names_nothing_internal(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def down(*args: Any) -> Any:
        raise Unavailable(f"couldn't get a connection after 3.00 sec [{SECRET_PLACE}]")

    monkeypatch.setattr(data, "home", down)
    for path in ["/api/home", "/"]:
        reply = client.get(path)
        assert reply.status_code == 503 and int(reply.headers["retry-after"]) > 0
        assert reply.headers["cache-control"] == "no-store"
        for secret in ["postgres@", "5432", "secret-socket", "connection"]:
            assert secret not in reply.text, (path, secret)
        assert "try again" in reply.text


@pytest.mark.parametrize(
    "path",
    ["/api/bots/ann%00", "/api/matches?bot=ann%00", "/bots/ann%00", "/api/matches?game=h%01"],
)
def test_a_control_character_is_a_400(client: TestClient, path: str) -> None:
    reply = client.get(path)
    assert reply.status_code == 400, reply.text
    assert "control character" in reply.text


def test_ids_are_ascii_digits_only(client: TestClient, world: World) -> None:
    wide = "".join(chr(0xFF10 + int(d)) for d in str(world.hart))
    assert client.get(f"/api/matches/{world.hart}").status_code == 200
    for raw in [f"0_{world.hart}", f"%20{world.hart}%20", wide, f"+{world.hart}", "-1"]:
        reply = client.get(f"/api/matches/{raw}")
        assert reply.status_code == 404 and "must be a number" in reply.json()["error"], raw
    for query in ["limit=1_0", "limit=%2010", "from=%EF%BC%91"]:
        reply = client.get(f"/api/matches/{world.hart}/steps?{query}")
        assert reply.status_code == 400 and "must be an integer" in reply.json()["error"], query


def test_errors_clip_what_they_echo(client: TestClient) -> None:
    long = "x" * 150
    reply = client.get(f"/api/bots/{long}")
    assert reply.status_code == 404 and "more characters" in reply.json()["error"]
    assert long not in reply.text
    huge = client.get("/api/bots/" + "y" * 60_000)
    assert huge.status_code == 400 and len(huge.text) < 300
    page = client.get("/bots/" + "y" * 60_000)
    assert page.status_code == 400 and "y" * 100 not in page.text


@pytest.mark.parametrize("path", ["/api/home", "/", "/healthz"])
def test_a_wrong_method_is_a_405_with_allow(client: TestClient, path: str) -> None:
    reply = client.post(path)
    assert reply.status_code == 405
    assert "GET" in reply.headers["allow"]
    if path != "/healthz":
        assert "not allowed" in reply.text and "no such page" not in reply.text


# -- pages -------------------------------------------------------------------------------------


def test_the_api_page_lists_what_each_endpoint_does(client: TestClient) -> None:
    page = html.unescape(client.get("/api").text)
    for path, item in openapi.document()["paths"].items():
        assert item["get"]["summary"] in page, path
        for param in item["get"]["parameters"]:
            assert f"<code>{param['name']}</code>" in page, (path, param["name"])
    replay = openapi.document()["paths"]["/api/matches/{match_id}/replay"]["get"]
    assert "409" in replay["responses"]


def test_recent_matches_are_the_last_to_finish(client: TestClient, world: World) -> None:
    recent = client.get("/api/home").json()["recent"]
    assert [m["match_id"] for m in recent] == [world.hart, world.crossing]
    assert recent[0]["finished_at"] > recent[1]["finished_at"]


def test_a_scheduled_tournament_says_when_it_starts(client: TestClient, world: World) -> None:
    page = client.get(f"/tournaments/{world.scheduled}").text
    starts = client.get(f"/api/tournaments/{world.scheduled}").json()["starts_at"]
    when = datetime.fromisoformat(starts).astimezone(UTC)
    assert f'Starts <time datetime="{starts}">{when:%Y-%m-%d %H:%M} UTC</time>' in page
    assert "(in 60 minutes)" in page or "(in 59 minutes)" in page
    assert f'data-starts="{starts}"' in page, "the script waits for the start, not the poll"


# -- fuzz --------------------------------------------------------------------------------------

ANY_TEXT = st.text(st.characters(codec="utf-8"), max_size=300)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=ANY_TEXT, raw_id=ANY_TEXT, limit=ANY_TEXT)
def test_any_path_or_query_value_is_answered_not_crashed_on(
    client: TestClient, world: World, name: str, raw_id: str, limit: str
) -> None:
    quoted, qid = quote(name, safe=""), quote(raw_id, safe="")
    for path in [
        f"/api/bots/{quoted}",
        f"/api/matches/{qid}/steps?limit={quote(limit, safe='')}",
        f"/api/matches?bot={quoted}&game={qid}&limit={quote(limit, safe='')}",
        f"/bots/{quoted}",
        f"/tournaments/{qid}",
    ]:
        if "//" in path or path.endswith("/"):
            continue  # another route (or none): not this test's door
        reply = client.get(path)
        assert reply.status_code in (200, 400, 404), (path, reply.status_code, reply.text[:200])
        if reply.status_code != 200 and path.startswith("/api/"):
            assert len(reply.json()["error"]) < 300, path
