"""OpenSpiel's games in the match viewer, without a browser: the drawn grids (tic-tac-toe,
connect four, go), chess's board, the poker games' card table at the end, the observation text,
and no hidden information on a running match's steps."""

from __future__ import annotations

import asyncio
import random
import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest

import engines
from arena.storage.rows import DecisionRow, MatchRow, MatchStatus, SeatRow
from arena.web import boards, data
from arena.web.boards.openspiel import GRIDS, rows_of
from arena.web.steps import MatchSteps
from engines.driver import MatchDriver

pytest.importorskip("pyspiel")
MATCH = 77


def played(game: str, seed: int, moves: list[str] | None = None) -> MatchDriver[Any, Any]:
    """A match of `game` played to the end: `moves` first, then random legal actions."""
    rules = engines.get(game)
    driver: MatchDriver[Any, Any] = MatchDriver(
        rules, min(rules.seat_counts), dict(rules.conformance_options), seed
    )
    rng = random.Random(seed)
    script = list(moves or [])
    while (decision := driver.decision) is not None:
        if script:
            driver.play({min(decision.seats): script.pop(0)})
        else:
            driver.play({s: rng.choice(driver.space(s).listing()) for s in decision.seats})
    return driver


def test_tic_tac_toe_is_drawn_as_its_grid_with_each_mark_in_its_cell() -> None:
    view = {"observation": "x.o\n.x.\n..o"}
    drawn = boards.board("openspiel/tic_tac_toe", view, ["ada", "bob"])
    assert "aria-label='3 by 3 board'" in drawn and drawn.count("<rect") == 9
    assert drawn.count("class='piece x'") == 2 and drawn.count("class='piece o'") == 2
    # x at (row 0, col 0) and (1, 1): the strokes are centred on those cells (30 units each)
    assert "M6.0 6.0L24.0 24.0" in drawn and "M36.0 36.0L54.0 54.0" in drawn
    assert "cx='75.0' cy='15.0'" in drawn and "cx='75.0' cy='75.0'" in drawn
    assert "<pre class='observation'>x.o\n.x.\n..o</pre>" in drawn


@pytest.mark.parametrize(
    ("game", "pieces"), [("openspiel/connect_four", "xo"), ("openspiel/go", "XO")]
)
def test_a_played_grid_game_shows_every_piece_of_its_observation(game: str, pieces: str) -> None:
    driver = played(game, seed=4)
    text = driver.view(None)["final"]
    rows = rows_of(text, GRIDS[game.removeprefix("openspiel/")])
    assert rows is not None and len({len(r) for r in rows}) == 1
    drawn = boards.board(game, driver.view(None), ["ada", "bob"])
    stones = sum(row.count(c) for row in rows for c in pieces)  # go's header is not a row
    assert drawn.count("class='piece'") == stones > 0
    if game == "openspiel/go":  # stones on the 5x5 lines' intersections, no squares
        assert "aria-label='5 by 5 board'" in drawn and "<rect" not in drawn
        assert drawn.count("<line") == 10
    assert "final state" in drawn and drawn.count("<li>") == 2


def test_text_that_is_not_a_rectangle_of_cells_is_only_shown_as_text() -> None:
    grid = GRIDS["tic_tac_toe"]
    assert rows_of("x.o\n.x\n..o", grid) is None
    assert rows_of("nothing here", grid) is None
    drawn = boards.board("openspiel/tic_tac_toe", {"observation": "<b>x.o</b>"}, [])
    assert "<svg" not in drawn and "&lt;b&gt;x.o&lt;/b&gt;" in drawn
    hex_board = boards.board("openspiel/hex", {"observation": ". x\n o ."}, [])
    assert "<svg" not in hex_board and "<pre class='observation'>" in hex_board


class OpenSpielDb:
    """One OpenSpiel match, logged decision by decision, as `data.match_steps` reads it."""

    def __init__(self, game: str, seed: int) -> None:
        self.driver = played(game, seed)
        record = self.driver.record()
        self.all = [
            DecisionRow(MATCH, n, "turn", dict(joint), {}, {})
            for n, joint in enumerate(record.moves)
        ]
        self.logged = 0
        seats = self.driver.seats
        seating = tuple(
            SeatRow(MATCH, s, s + 1, f"bot{s}", None, None, 0, False, timedelta(0))
            for s in range(seats)
        )
        now = datetime.now(UTC)
        self.row = MatchRow(
            MATCH, game, 1, dict(record.options), seats, seed, {}, MatchStatus.RUNNING, None,
            "ref", now, now, None, None, None, None, True, 0, seating,
        )  # fmt: skip

    def log(self, count: int) -> None:
        for row in self.all[self.logged : self.logged + count]:
            self.all[row.number] = replace(row, created_at=datetime.now(UTC))
        self.logged += count

    async def decisions_from(self, match_id: int, start: int) -> list[DecisionRow]:
        return self.all[start : self.logged]

    async def match(self, match_id: int) -> MatchRow | None:
        return self.row


def secrets_of(game: str, seed: int) -> list[str]:
    """What no spectator may see while the match runs: every seat's information-state string at
    every decision, the final state, and leduc's card fields."""
    driver = played(game, seed)
    record = driver.record()
    replay: MatchDriver[Any, Any] = MatchDriver(
        engines.get(game), driver.seats, dict(record.options), seed
    )
    out = {driver.view(None)["final"], "[Private:", "Cards (public"}
    for joint in record.moves:
        for seat in range(driver.seats):
            view = replay.view(seat)
            out.add(str(view.get("information_state") or view.get("observation")))
        replay.play_wire(joint)
    return sorted(s for s in out if len(s) >= 8)  # a short one ("1 2") may be any text


@pytest.mark.parametrize(
    ("game", "seed"),
    [("openspiel/leduc_poker", 3), ("openspiel/liars_dice", 5)],
)
def test_a_running_hidden_information_match_shows_nothing_hidden_until_its_end(
    game: str, seed: int
) -> None:
    db = OpenSpielDb(game, seed)
    cache = MatchSteps(db, timedelta(0))  # type: ignore[arg-type]
    secrets = secrets_of(game, seed)
    assert len(db.all) >= 2 and len(secrets) >= 4

    async def page() -> tuple[bytes, dict[str, Any]]:
        body = orjson.dumps(await data.match_steps(db, cache, MATCH, 0, 500))  # type: ignore[arg-type]
        return body, orjson.loads(body)

    async def scenario() -> None:
        for logged in range(len(db.all)):
            db.log(1 if logged else 0)
            body, reply = await page()
            text = body.decode()
            assert len(reply["steps"]) == db.logged + 1
            for secret in secrets:
                assert secret not in text, (logged, secret)
            assert all("Hidden information" in s["board"] for s in reply["steps"])
            assert "card-table" not in text and "playing-card" not in text
        db.log(len(db.all))
        db.row = replace(db.row, status=MatchStatus.FINISHED)
        _, reply = await page()
        last = reply["steps"][-1]["board"]
        final = db.driver.view(None)["final"]
        assert "final state" in last and re.sub(r"\s+", " ", final).strip()[:20] in " ".join(
            last.split()
        )
        assert last.count("<li>") == db.driver.seats
        drawn = boards.board(game, db.driver.view(None), ["a", "b"])
        assert (last.count("class='hand'") == db.driver.seats) == (game != "openspiel/liars_dice")
        assert last.count("class='hand'") == drawn.count("class='hand'")

    asyncio.run(scenario())
