"""OpenSpiel's games on the site, through Starlette's TestClient over a real Postgres database:
the games page and menu, a finished grid game's drawn steps, a running poker match's steps."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta

import pytest
from starlette.testclient import TestClient

from arena.storage import Database
from arena.web.app import WebConfig, create_app
from engines.registry import openspiel_names
from tests.web.seed import Stored, register, store_match

pytest.importorskip("pyspiel")


@dataclass(frozen=True)
class World:
    """A finished tic-tac-toe match and a running leduc poker match."""

    url: str
    tic_tac_toe: Stored
    leduc: Stored


@pytest.fixture(scope="module")
def world(migrated_database_url: str) -> World:
    async def seed() -> World:
        async with await Database.open(migrated_database_url) as db:
            bots = list((await register(db, ["ada", "bob"])).items())
            tic = await store_match(db, "openspiel/tic_tac_toe", bots, 21)
            leduc = await store_match(db, "openspiel/leduc_poker", bots, 22, keep=3)
            return World(migrated_database_url, tic, leduc)

    return asyncio.run(seed())


@pytest.fixture(scope="module")
def client(world: World) -> Iterator[TestClient]:
    app = create_app(
        WebConfig(database_url=world.url, spectator_delay=timedelta(0), fresh_for=timedelta(0))
    )
    with TestClient(app) as test_client:
        yield test_client


def steps_of(client: TestClient, match_id: int) -> list[dict[str, object]]:
    reply = client.get(f"/api/matches/{match_id}/steps?from=0&limit=200").json()
    assert len(reply["steps"]) == reply["total"]
    return list(reply["steps"])


def test_the_games_page_and_menu_list_every_curated_openspiel_game(client: TestClient) -> None:
    page = client.get("/games")
    assert page.status_code == 200
    names = openspiel_names()
    assert len(names) >= 20
    for name in names:
        assert f'href="/leaderboard/{name}"' in page.text, name
    assert "Leduc Poker" in page.text and "hidden information" in page.text
    assert "simultaneous moves" in page.text and "drawn grid" in page.text
    assert '<a href="/games">Games</a>' in client.get("/").text
    assert 'href="/games#openspiel"' in client.get("/").text
    listed = client.get("/api/games").json()
    assert [g["name"] for g in listed["openspiel"]] == list(names)
    assert {g["name"] for g in listed["games"]} >= {"hart", "crossing", "loyang"}
    kinds = {g["name"]: g["kind"] for g in listed["openspiel"]}
    assert kinds["openspiel/go"] == "perfect information"
    assert kinds["openspiel/kuhn_poker"] == "hidden information"
    assert kinds["openspiel/goofspiel"] == "simultaneous moves"


def test_a_tic_tac_toe_match_is_drawn_step_by_step(client: TestClient, world: World) -> None:
    page = client.get(f"/matches/{world.tic_tac_toe.match_id}")
    assert page.status_code == 200 and "OpenSpiel's public observation" in page.text
    steps = steps_of(client, world.tic_tac_toe.match_id)
    assert len(steps) >= 6  # the empty board, then at least five marks
    pieces = [str(s["board"]).count("class='piece") for s in steps]
    assert pieces[: len(steps) - 1] == list(range(len(steps) - 1))
    assert all("<svg class='grid'" in str(s["board"]) for s in steps)
    assert "final state" in str(steps[-1]["board"])


def test_a_running_leduc_match_shows_no_card(client: TestClient, world: World) -> None:
    steps = steps_of(client, world.leduc.match_id)
    assert len(steps) == 4  # the deal, then three decisions
    for step in steps:
        board = str(step["board"])
        assert "Hidden information" in board
        assert "Private" not in board and "Cards" not in board and "<pre" not in board
