"""The version-test page and its JSON twin, over a real Postgres database."""

from __future__ import annotations

import asyncio
import hashlib
import re
import secrets

from starlette.testclient import TestClient

from arena.storage import Database
from arena.versiontest import store
from arena.versiontest.gsprt import Hypotheses
from arena.web.app import WebConfig, create_app
from arena.web.versiontests import llr_chart
from tests.versiontest.test_schedule import NAMES, FakeReferee, spec


def _seed(url: str) -> tuple[int, list[int]]:
    """A test with one counted set and one playing; its id and its match ids."""

    async def main() -> tuple[int, list[int]]:
        async with await Database.open(url) as db:
            await db.migrate()
            ids = {
                n: await db.create_bot(n, hashlib.sha256(secrets.token_bytes(8)).digest())
                for n in NAMES
            }
            ref = FakeReferee(db, ids)
            test_id = await store.start(db, spec(hypotheses=Hypotheses(0, 50)))
            await ref.tick()
            for match_id, _, _ in ref.created:
                await ref.finish(match_id, "cand")
            await ref.tick()
            return test_id, [m for m, _, _ in ref.created]

    return asyncio.run(main())


def test_the_page_charts_the_llr_and_links_each_match(fresh_database_url: str) -> None:
    test_id, match_ids = _seed(fresh_database_url)
    with TestClient(create_app(WebConfig(database_url=fresh_database_url))) as client:
        body = client.get(f"/api/versiontests/{test_id}").json()
        assert body["status"] == "running" and body["matches_counted"] == 2
        assert body["sets"][0]["score"] == 1.0 and body["sets"][0]["llr"] == body["llr"] > 0
        assert body["estimate"]["elo"] > 0 and body["estimate"]["sets"] == 1
        page = client.get(f"/versiontests/{test_id}")
        assert page.status_code == 200
        assert "<svg class='chart llr'" in page.text and "H1 +2.94" in page.text
        for match_id in match_ids:
            assert f'href="/matches/{match_id}"' in page.text
        assert "<script>" not in page.text  # the CSP allows no inline script
        assert re.search(r'<script src="/static/versiontest.js">', page.text)
        assert client.get("/static/versiontest.js").status_code == 200
        assert client.get("/api/versiontests/999").status_code == 404
        assert client.get("/versiontests/999").status_code == 404
        assert client.get("/versiontests/x").status_code == 404


def test_the_chart_draws_both_bounds_and_every_point() -> None:
    svg = llr_chart([0.5, 1.2, -0.3], -2.944, 2.944)
    assert svg.count("class='bound") == 2 and "H0 -2.94" in svg
    assert len(svg.split("points='")[1].split("'")[0].split()) == 4  # 0 then three sets
    assert "no sets" in llr_chart([], -1, 1)


def test_the_list_links_every_test_newest_first(fresh_database_url: str) -> None:
    test_id, _ = _seed(fresh_database_url)

    async def stopped() -> int:
        async with await Database.open(fresh_database_url) as db:
            other = await store.start(db, spec(candidate="cand@v1", baseline="cand"))
            await store.stop(db, other)
            return other

    other = asyncio.run(stopped())
    with TestClient(create_app(WebConfig(database_url=fresh_database_url))) as client:
        body = client.get("/api/versiontests").json()
        assert [t["test_id"] for t in body["tests"]] == [other, test_id]
        first = body["tests"][1]
        assert (first["candidate"], first["status"], first["sets_counted"]) == (
            "cand",
            "running",
            1,
        )
        running = client.get("/api/versiontests?status=running").json()
        assert [t["test_id"] for t in running["tests"]] == [test_id]
        bad = client.get("/api/versiontests?status=won")
        assert bad.status_code == 400 and "status must be one of" in bad.text
        page = client.get("/versiontests")
        assert page.status_code == 200
        for shown in (test_id, other):
            assert f'href="/versiontests/{shown}"' in page.text
        assert "stopped by an operator" in page.text and "H0 .. H1 Elo" in page.text
        assert 'href="/bots/cand@v1"' in page.text
        assert client.get("/bots/cand@v1").status_code == 200  # a version's own bot has a page
        assert 'href="/versiontests"' in client.get("/").text  # the nav links the list
        assert "no version tests stopped" not in page.text
        empty = client.get("/versiontests?status=h1")
        assert empty.status_code == 200 and "no version tests h1 yet" in empty.text
