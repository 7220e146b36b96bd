"""The JSON API and the pages through Starlette's TestClient, over a real Postgres database."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta

import psycopg
import pytest
from prometheus_client import REGISTRY
from starlette.routing import Route
from starlette.testclient import TestClient

import engines
from arena.referee.clock import Clock
from arena.storage import Database
from arena.tournament import rounds as tournaments
from arena.web import openapi
from arena.web.app import WebConfig, create_app
from engines.replay import Record, replay
from tests.web.seed import Stored, register, store_match

NAMES = ["alpha", "beta", "gamma", "delta"]
RUNNING_SEED = 987_654_321_013


@dataclass(frozen=True)
class World:
    """What the seeded database holds."""

    url: str
    hart: Stored
    crossing: Stored
    running: Stored
    tournament_id: int


@pytest.fixture(scope="module")
def world(migrated_database_url: str) -> World:
    """Two finished rated matches, a running Loyang match, a started tournament."""

    async def seed() -> World:
        async with await Database.open(migrated_database_url) as db:
            ids = await register(db, NAMES)
            bots = list(ids.items())
            timeout = ("timeout", "no answer to decision 3 within 1.000s")
            hart = await store_match(db, "hart", bots, 11, strikes={(3, 0): timeout})
            crossing = await store_match(db, "crossing", bots[:3], 12)
            # Three decisions in, both seats hold cards drawn in the card phase.
            running = await store_match(db, "loyang", bots[:2], RUNNING_SEED, keep=3)
            tid = await tournaments.create_tournament(
                db,
                name="web cup",
                game="hart",
                bot_names=NAMES,
                table_size=4,
                rounds=2,
                clock=Clock(),
            )
            await tournaments.start(db, tid)
            return World(migrated_database_url, hart, crossing, running, tid)

    return asyncio.run(seed())


@pytest.fixture(scope="module")
def client(world: World) -> Iterator[TestClient]:
    """The app with no spectator delay (the delay has its own test)."""
    app = create_app(
        WebConfig(database_url=world.url, spectator_delay=timedelta(0), fresh_for=timedelta(0))
    )
    with TestClient(app) as test_client:
        yield test_client


def all_steps(client: TestClient, match_id: int) -> dict[str, object]:
    """Every step of a match, fetched page by page as the viewer does."""
    steps: list[dict[str, object]] = []
    while True:
        reply = client.get(f"/api/matches/{match_id}/steps?from={len(steps)}&limit=50").json()
        steps += reply["steps"]
        if len(steps) >= reply["total"]:
            return {**reply, "steps": steps}


def test_leaderboard_lists_the_ratings_in_the_database(client: TestClient, world: World) -> None:
    with psycopg.connect(world.url) as conn:
        stored = conn.execute(
            "SELECT b.name, r.rating, r.games FROM ratings r JOIN bots b ON b.id = r.bot_id "
            "WHERE r.game = 'hart' ORDER BY r.rating DESC"
        ).fetchall()
    board = client.get("/api/leaderboard/hart").json()
    assert [(e["bot"], e["rating"], e["games"]) for e in board["entries"]] == [
        (name, round(rating, 1), games) for name, rating, games in stored
    ]
    assert [e["rank"] for e in board["entries"]] == [1, 2, 3, 4]
    page = client.get("/leaderboard/hart").text
    for name, rating, _ in stored:
        assert name in page and f"{rating:.1f}" in page
    # The rough 95% margin, 681 / sqrt(games) Elo, so authors see who is not yet told apart.
    for entry, (_, _, games) in zip(board["entries"], stored, strict=True):
        assert abs(entry["rating_margin"] - 680.97 / games**0.5) < 0.06
        assert f"±{entry['rating_margin']:.0f}" in page


def test_an_openspiel_games_leaderboard_has_a_route_of_its_own(
    client: TestClient, world: World
) -> None:
    """`openspiel/leduc_poker` holds a slash, which `{game}` does not take."""
    pytest.importorskip("pyspiel")
    with psycopg.connect(world.url) as conn:
        (bot_id, name) = conn.execute("SELECT id, name FROM bots ORDER BY id LIMIT 1").fetchone()
        conn.execute(
            "INSERT INTO ratings (bot_id, game, rating, games) "
            "VALUES (%s, 'openspiel/leduc_poker', 1612.5, 7)",
            (bot_id,),
        )
    try:
        board = client.get("/api/leaderboard/openspiel/leduc_poker").json()
        page = client.get("/leaderboard/openspiel/leduc_poker")
    finally:
        with psycopg.connect(world.url) as conn:
            conn.execute("DELETE FROM ratings WHERE game = 'openspiel/leduc_poker'")
    assert board["game"] == "openspiel/leduc_poker" and "Leduc" in board["title"]
    assert [(e["bot"], e["rating"], e["games"]) for e in board["entries"]] == [(name, 1612.5, 7)]
    assert page.status_code == 200 and name in page.text and "1612.5" in page.text


def test_leaderboard_shows_the_second_rating_system_beside_elo(
    client: TestClient, world: World
) -> None:
    assert client.get("/api/leaderboard/hart").json()["second_system"] is None
    with psycopg.connect(world.url, autocommit=True) as conn:
        bot_id = conn.execute("SELECT id FROM bots WHERE name = 'alpha'").fetchone()
        assert bot_id is not None
        conn.execute(
            "INSERT INTO skill_ratings (bot_id, game, system, mu, sigma, games) "
            "VALUES (%s, 'hart', 'openskill', 30.0, 2.5, 4)",
            (bot_id[0],),
        )
        try:
            board = client.get("/api/leaderboard/hart").json()
            page = client.get("/leaderboard/hart").text
        finally:
            conn.execute("DELETE FROM skill_ratings WHERE bot_id = %s", (bot_id[0],))
    assert board["second_system"] == "OpenSkill"
    shown = {e["bot"]: e["openskill"] for e in board["entries"]}
    assert shown.pop("alpha") == 22.5  # mu - 3 sigma
    assert {e["bot"]: e["openskill_sigma"] for e in board["entries"]}["alpha"] == 2.5
    assert "\N{GREEK SMALL LETTER SIGMA} 2.5" in page
    assert set(shown.values()) == {None}
    assert "OpenSkill" in page and "22.5" in page


def test_bot_page_and_api_show_the_diagnostics(client: TestClient, world: World) -> None:
    bot = client.get("/api/bots/alpha").json()
    hart = next(g for g in bot["games"] if g["game"] == "hart")
    assert hart["timeouts"] == 1 and hart["strikes_by_kind"] == {"timeout": 1}
    assert hart["problems"][0]["match_id"] == world.hart.match_id
    assert hart["problems"][0]["decision"] == 3
    assert hart["think"]["decisions"] == world.hart.decisions or hart["think"]["decisions"] > 0
    assert hart["rating"] is not None and len(hart["history"]) == 1
    assert {r["match_id"] for r in bot["recent"]} == {
        world.hart.match_id,
        world.crossing.match_id,
        world.running.match_id,
    }
    page = client.get("/bots/alpha").text
    assert f"/matches/{world.hart.match_id}#step=4" in page, "the Problem links to its step"
    assert "<svg class='chart'" in page
    assert [v["label"] for v in bot["versions"]] == ["v1"]
    assert {r["version"] for r in bot["recent"]} == {"v1"}, "every match records its version"
    assert "<h2>Versions</h2>" in page and "(plays now)" in page


def test_replay_steps_end_with_the_stored_ranking(client: TestClient, world: World) -> None:
    reply = all_steps(client, world.hart.match_id)
    steps = reply["steps"]
    assert isinstance(steps, list)
    assert len(steps) == world.hart.decisions + 1, "the setup, then one step per decision"
    assert [s["index"] for s in steps] == list(range(len(steps)))
    assert steps[0]["decision"] == -1 and steps[1]["decision"] == 0
    assert steps[0]["board"] != steps[1]["board"]
    assert reply["complete"] is True
    final = reply["final"]
    assert isinstance(final, dict)
    ranks = {r["seat"]: r["rank"] for r in final["ranking"]}
    assert tuple(ranks[s] for s in range(4)) == world.hart.ranks


def test_the_crossing_track_is_drawn_once_and_used_by_every_step(
    client: TestClient, world: World
) -> None:
    first = client.get(f"/api/matches/{world.crossing.match_id}/steps?limit=3").json()
    assert "id='crossing-track'" in first["defs"]
    assert all("href='#crossing-track'" in s["board"] for s in first["steps"])
    later = client.get(f"/api/matches/{world.crossing.match_id}/steps?from=3&limit=3").json()
    assert later["defs"] == "", "the shared track comes with the first page only"


def test_a_running_match_waits_for_the_spectator_delay(world: World) -> None:
    delayed = create_app(WebConfig(database_url=world.url, spectator_delay=timedelta(hours=1)))
    with TestClient(delayed) as slow:
        reply = slow.get(f"/api/matches/{world.running.match_id}/steps").json()
        assert reply["total"] == 1 and reply["complete"] is False and reply["final"] is None
        finished = slow.get(f"/api/matches/{world.hart.match_id}/steps?limit=1").json()
        assert finished["total"] == world.hart.decisions + 1, "no delay once a match is over"


def test_a_running_match_shows_no_private_information(client: TestClient, world: World) -> None:
    reply = all_steps(client, world.running.match_id)
    assert reply["total"] == world.running.decisions + 1 and reply["complete"] is False
    text = json.dumps(reply)
    with psycopg.connect(world.url) as conn:
        seed, options = conn.execute(
            "SELECT seed, options FROM matches WHERE id = %s", (world.running.match_id,)
        ).fetchone()  # type: ignore[misc]
        moves = [
            {int(k): v for k, v in row[0].items()}
            for row in conn.execute(
                "SELECT joint FROM decisions WHERE match_id = %s ORDER BY number",
                (world.running.match_id,),
            )
        ]
    rules = engines.get("loyang")
    state = replay(rules, Record("loyang", rules.version, options, 2, seed, tuple(moves)))
    public = json.dumps(rules.dump_observation(rules.observe(state, None)))
    hidden = set()
    for seat in range(2):
        hand = rules.dump_observation(rules.observe(state, seat))["hand"]
        hidden |= {card["id"] for card in hand if card["id"] not in public}
    assert hidden, "the seats hold cards nobody else has seen"
    leaked = {card for card in hidden if re.search(rf"\b{card}\b", text)}
    assert not leaked, f"private cards in the spectators' view: {leaked}"
    assert str(seed) not in text and '"seed"' not in text and '"joint"' not in text
    replay_reply = client.get(f"/api/matches/{world.running.match_id}/replay")
    assert replay_reply.status_code == 409 and "opens at its end" in replay_reply.json()["error"]


def test_the_record_of_a_finished_match_is_public(client: TestClient, world: World) -> None:
    reply = client.get(f"/api/matches/{world.hart.match_id}/replay").json()
    record = Record.from_json(reply["record"])
    assert len(record.moves) == world.hart.decisions


def test_tournament_shows_rounds_tables_and_standings(client: TestClient, world: World) -> None:
    t = client.get(f"/api/tournaments/{world.tournament_id}").json()
    assert t["name"] == "web cup" and t["status"] == "running" and t["current_round"] == 1
    (first,) = t["rounds_played"]
    assert sorted(b for table in first["tables"] for b in table["bots"]) == sorted(NAMES)
    assert sorted(s["bot"] for s in t["standings"]) == sorted(NAMES)
    assert {"score", "tiebreak", "rating", "byes", "rounds_played"} <= set(t["standings"][0])
    page = client.get(f"/tournaments/{world.tournament_id}").text
    assert "/static/tournament.js" in page and "Round 1" in page
    listed = client.get("/api/tournaments").json()["tournaments"]
    assert [x["tournament_id"] for x in listed] == [world.tournament_id]


def test_home_lists_games_live_matches_and_tournaments(client: TestClient, world: World) -> None:
    home = client.get("/api/home").json()
    assert [g["name"] for g in home["games"]] == list(engines.names())
    assert [m["match_id"] for m in home["live"]] == [world.running.match_id]
    assert {m["match_id"] for m in home["recent"]} == {
        world.hart.match_id,
        world.crossing.match_id,
    }
    page = client.get("/").text
    assert f"/matches/{world.running.match_id}" in page and "web cup" in page


@pytest.mark.parametrize(
    ("path", "status", "says"),
    [
        ("/api/bots/nobody", 404, "unknown bot 'nobody'"),
        ("/api/leaderboard/chess", 404, "unknown game 'chess'"),
        ("/api/leaderboard/openspiel/nope", 404, "unknown game 'openspiel/nope'"),
        ("/api/matches/999999", 404, "no match 999999"),
        ("/api/matches/abc/steps", 404, "match id must be a number"),
        ("/api/tournaments/424242", 404, "no tournament 424242"),
        ("/api/matches?limit=0", 400, "'limit' must be between 1 and 500"),
        ("/api/matches?limit=x", 400, "'limit' must be an integer"),
        ("/api/matches?status=lost", 400, "unknown status 'lost'"),
        ("/api/nothing", 404, "no such API endpoint"),
    ],
)
def test_bad_requests_get_a_clear_json_error(
    client: TestClient, path: str, status: int, says: str
) -> None:
    reply = client.get(path)
    assert reply.status_code == status
    assert says in reply.json()["error"]


def test_unknown_pages_are_html_404s(client: TestClient) -> None:
    reply = client.get("/bots/nobody")
    assert reply.status_code == 404 and "unknown bot" in reply.text and "<html" in reply.text


def test_matches_filter_by_status_game_and_bot(client: TestClient, world: World) -> None:
    running = client.get("/api/matches?status=running").json()["matches"]
    assert [m["match_id"] for m in running] == [world.running.match_id]
    by_game = client.get("/api/matches?game=crossing").json()["matches"]
    assert [m["match_id"] for m in by_game] == [world.crossing.match_id]
    by_bot = client.get("/api/matches?bot=delta").json()["matches"]
    assert [m["match_id"] for m in by_bot] == [world.hart.match_id]


def test_openapi_documents_every_api_route(client: TestClient) -> None:
    doc = client.get("/api/openapi.json").json()
    assert doc["openapi"].startswith("3.")
    app = client.app
    routes = {
        r.path
        for r in app.routes  # type: ignore[attr-defined]
        if isinstance(r, Route) and r.path.startswith("/api/") and r.path != "/api/openapi.json"
    }
    assert routes == set(doc["paths"]) == set(openapi.document()["paths"])
    assert "/api/matches/{match_id}/steps" in client.get("/api").text


def test_requests_are_counted_by_route(client: TestClient, world: World) -> None:
    def served() -> float:
        value = REGISTRY.get_sample_value(
            "arena_web_requests_total",
            {"method": "GET", "route": "/api/matches/{match_id}", "status": "200"},
        )
        return value or 0.0

    before = served()
    client.get(f"/api/matches/{world.hart.match_id}")
    client.get(f"/api/matches/{world.crossing.match_id}")
    assert served() == before + 2
    latency = REGISTRY.get_sample_value(
        "arena_web_request_duration_seconds_count",
        {"method": "GET", "route": "/api/matches/{match_id}"},
    )
    assert latency is not None and latency >= 2


def test_pages_load_their_scripts_and_styles_locally(client: TestClient, world: World) -> None:
    for path in ["/", f"/matches/{world.hart.match_id}", f"/tournaments/{world.tournament_id}"]:
        page = client.get(path).text
        sources = re.findall(r'(?:src|href)="([^"#]+)"', page)
        assert sources and all(s.startswith("/") for s in sources), sources
        for source in sources:
            assert client.get(source).status_code == 200, source
