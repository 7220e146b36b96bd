"""The version-test tick against real Postgres, with a fake referee that only creates matches."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import pytest

from arena.referee.clock import Clock
from arena.storage import Database, SeatResult
from arena.storage.accounts import Accounts
from arena.storage.runners import Runners
from arena.versiontest import schedule, store
from arena.versiontest.entrants import Entrant, parse_entrant
from arena.versiontest.gsprt import Hypotheses
from arena.versiontest.store import VersionTestSpec
from engines import Termination

NAMES = ("cand", "base", "fill1", "fill2")


class FakeReferee:
    """Creates pending matches in the database, as the referee's CreateMatch does."""

    def __init__(self, db: Database, ids: dict[str, int]) -> None:
        self.db = db
        self.ids = ids
        self.created: list[tuple[int, tuple[str, ...], int]] = []
        self.online = set(ids)
        self.versions: set[str] = set()
        """Versions' own bots that count as connected (NAME@LABEL)."""

    async def connected(self) -> Sequence[str]:
        return sorted(self.online | self.versions)

    async def create_match(
        self, game: str, bots: Sequence[str], clock: Clock, seed: int, options: dict[str, Any]
    ) -> int:
        for name in set(bots) - set(self.ids):  # a version's own bot, made by the test's start
            row = await self.db.bot_by_name(name)
            assert row is not None, name
            self.ids[name] = row.id
            self.online.add(name)
        ids = [self.ids[b] for b in bots]
        match_id = await self.db.create_match(
            game, 1, options, len(bots), seed, clock.to_json(), ids
        )
        self.created.append((match_id, tuple(bots), seed))
        return match_id

    async def tick(self) -> list[int]:
        return await schedule.tick(self.db, self.connected, self.create_match)

    async def finish(self, match_id: int, winner: str) -> None:
        """End a match with `winner` first and the others after it in seat order."""
        bots = next(b for m, b, _ in self.created if m == match_id)
        order = [winner, *[b for b in bots if b != winner]]
        await self.db.start_match(match_id, "fake")
        results = [SeatResult(rank=order.index(b) + 1, score=0.0) for b in bots]
        await self.db.finish_match(match_id, Termination.COMPLETED, results)


def run(url: str, scenario: Callable[[Database, FakeReferee], Awaitable[None]]) -> None:
    async def main() -> None:
        db = await Database.open(url, max_size=4)
        try:
            await db.migrate()
            ids = {}
            for name in NAMES:
                ids[name] = await db.create_bot(
                    name, hashlib.sha256(secrets.token_bytes(8)).digest()
                )
            await scenario(db, FakeReferee(db, ids))
        finally:
            await db.close()

    asyncio.run(main())


def spec(**changes: Any) -> VersionTestSpec:
    base: dict[str, Any] = {
        "game": "hart",
        "candidate": "cand",
        "baseline": "base",
        "hypotheses": Hypotheses(0, 400),
        "seats": 4,
        "fillers": ("fill1", "fill2"),
    }
    return VersionTestSpec(**{**base, **changes})


def test_sets_pair_their_matches_count_once_and_stop_at_h1(fresh_database_url: str) -> None:
    async def scenario(db: Database, ref: FakeReferee) -> None:
        test_id = await store.start(db, spec())
        first = await ref.tick()
        second = await ref.tick()
        assert len(first) == len(second) == 2
        assert len(await ref.tick()) == 0  # two sets in flight: wait
        (m0, bots0, seed0), (m1, bots1, seed1) = ref.created[:2]
        assert seed0 == seed1 != ref.created[2][2]
        i, j = bots0.index("cand"), bots0.index("base")
        assert (bots1[i], bots1[j]) == ("base", "cand")
        assert [b for b in bots0 if b not in ("cand", "base")] == [
            b for b in bots1 if b not in ("cand", "base")
        ]
        await ref.finish(m0, "cand")
        await ref.tick()  # one match of set 0 is still pending: nothing counted
        assert (await store.report(db, test_id)).matches_counted == 0
        await ref.finish(m1, "cand")
        await ref.tick()
        await ref.tick()  # a second tick counts nothing again
        report = await store.report(db, test_id)
        assert report.matches_counted == 2
        assert report.sets[0].score == 1.0 and report.sets[0].llr == report.test.llr > 0
        while report.test.status == "running":
            for match_id, _, _ in list(ref.created):
                if (await db.match_status(match_id)).value == "pending":  # type: ignore[union-attr]
                    await ref.finish(match_id, "cand")
            await ref.tick()
            report = await store.report(db, test_id)
        assert report.test.status == "h1"
        assert report.test.llr >= report.test.hypotheses.upper
        assert report.estimate.elo > 0
        made = len(ref.created)
        await ref.tick()
        assert len(ref.created) == made  # a decided test makes no more matches

    run(fresh_database_url, scenario)


def test_an_aborted_match_replays_its_set_once_then_voids_it(fresh_database_url: str) -> None:
    async def scenario(db: Database, ref: FakeReferee) -> None:
        test_id = await store.start(db, spec(in_flight=1))
        await ref.tick()
        (m0, _, seed), (m1, _, _) = ref.created
        await ref.finish(m0, "base")
        await db.abort_match(m1, "referee lost")
        await ref.tick()
        report = await store.report(db, test_id)
        assert report.sets[0].attempt == 2 and report.sets[0].status == "playing"
        replay = ref.created[2:4]
        assert len(replay) == 2 and replay[0][2] == replay[1][2] != seed
        for match_id, _, _ in replay:
            await db.abort_match(match_id, "again")
        await ref.tick()
        report = await store.report(db, test_id)
        assert report.sets[0].status == "void" and report.matches_counted == 0
        assert len(report.sets) == 2  # the next set started in the same tick

    run(fresh_database_url, scenario)


def test_a_match_started_without_a_bot_replays_its_set_once_then_voids_it(
    fresh_database_url: str,
) -> None:
    async def scenario(db: Database, ref: FakeReferee) -> None:
        test_id = await store.start(db, spec(in_flight=1))
        await ref.tick()
        (m0, bots, seed), (m1, _, _) = ref.created
        # The baseline was not connected when m1 started; the candidate won both, by strikes.
        await db.start_match(m1, "fake")
        await db.mark_absent_at_start(m1, [bots.index("base")])
        await ref.finish(m0, "cand")
        await ref.finish(m1, "cand")
        await ref.tick()
        report = await store.report(db, test_id)
        assert report.matches_counted == 0, "a set with an absent bot was counted"
        assert report.sets[0].attempt == 2 and report.sets[0].status == "playing"
        replay = ref.created[2:4]
        assert len(replay) == 2 and replay[0][2] == replay[1][2] != seed
        for match_id, replayed, _ in replay:
            await db.start_match(match_id, "fake")
            await db.mark_absent_at_start(match_id, [replayed.index("cand")])
            await ref.finish(match_id, "base")
        await ref.tick()
        report = await store.report(db, test_id)
        assert report.sets[0].status == "void" and report.matches_counted == 0

    run(fresh_database_url, scenario)


def test_only_the_current_host_marks_a_seat_absent(fresh_database_url: str) -> None:
    async def scenario(db: Database, ref: FakeReferee) -> None:
        await store.start(db, spec(in_flight=1))
        await ref.tick()
        match_id = ref.created[0][0]
        await db.mark_absent_at_start(match_id, [0])  # still pending: nobody hosts it
        await db.start_match(match_id, "fake")
        await db.mark_absent_at_start(match_id, [1], epoch=7)  # a stale lease epoch
        await db.mark_absent_at_start(match_id, [2])
        async with db.pool.connection("read seats") as conn:
            cursor = await conn.execute(
                "SELECT seat FROM seats WHERE match_id = %s AND absent_at_start ORDER BY seat",
                (match_id,),
            )
            assert [int(r[0]) for r in await cursor.fetchall()] == [2]

    run(fresh_database_url, scenario)


def test_a_cap_stops_the_test_with_its_estimate(fresh_database_url: str) -> None:
    async def scenario(db: Database, ref: FakeReferee) -> None:
        test_id = await store.start(db, spec(max_matches=4, hypotheses=Hypotheses(0, 5)))
        for _ in range(4):
            await ref.tick()
        assert len(ref.created) == 4  # the cap allows two sets
        for match_id, bots, _ in ref.created:
            await ref.finish(match_id, bots[0])
        await ref.tick()
        report = await store.report(db, test_id)
        assert report.test.status == "capped" and report.matches_counted == 4
        assert report.estimate.low <= report.estimate.elo <= report.estimate.high

    run(fresh_database_url, scenario)


def test_no_sets_while_a_bot_is_away_and_none_after_stop(fresh_database_url: str) -> None:
    async def scenario(db: Database, ref: FakeReferee) -> None:
        test_id = await store.start(db, spec())
        ref.online.discard("fill2")
        assert await ref.tick() == []
        ref.online.add("fill2")
        await store.stop(db, test_id)
        assert await ref.tick() == []
        assert (await store.report(db, test_id)).test.status == "stopped"
        with pytest.raises(LookupError, match="no running version test"):
            await store.stop(db, test_id)

    run(fresh_database_url, scenario)


@pytest.mark.parametrize(
    ("changes", "complaint"),
    [
        ({"baseline": "cand"}, "different bots"),
        ({"candidate": "nobody"}, "no bot named nobody"),
        ({"fillers": ("fill1",)}, "needs 2 different filler"),
        ({"fillers": ("fill1", "cand")}, "cannot be the candidate"),
        (
            {"candidate": "cand@v9"},
            r"bot cand has no version 'v9' \(in cand@v9\); its versions: v1$",
        ),
        ({"baseline": "nobody@v1"}, "no bot named nobody"),
        ({"candidate": "cand@v1", "baseline": "cand@v1"}, "different bots or versions"),
        ({"candidate": "cand@"}, "names no version"),
        ({"seats": 9}, "not a seat count of hart"),
        ({"max_matches": 1}, "at least 2"),
    ],
)
def test_bad_tests_are_refused(
    fresh_database_url: str, changes: dict[str, Any], complaint: str
) -> None:
    async def scenario(db: Database, ref: FakeReferee) -> None:
        with pytest.raises((ValueError, LookupError), match=complaint):
            await store.start(db, spec(**changes))

    run(fresh_database_url, scenario)


def test_a_side_is_a_bot_or_one_of_its_versions() -> None:
    assert parse_entrant("alice") == Entrant("alice") and parse_entrant("alice").name == "alice"
    assert parse_entrant("alice@v2") == Entrant("alice", "v2")
    assert parse_entrant("alice@v2").name == "alice@v2"
    for bad, complaint in (("alice@", "names no version"), ("@v2", "names no bot")):
        with pytest.raises(ValueError) as caught:
            parse_entrant(bad)
        assert "\n" not in str(caught.value) and complaint in str(caught.value)


async def _seat_versions(db: Database, match_id: int) -> dict[str, str]:
    async with db.transaction("read seats") as conn:
        cursor = await conn.execute(
            "SELECT b.name, v.label FROM seats s JOIN bots b ON b.id = s.bot_id"
            " JOIN bot_versions v ON v.id = s.version_id WHERE s.match_id = %(m)s",
            {"m": match_id},
        )
        return {str(name): str(label) for name, label in await cursor.fetchall()}


def test_two_versions_of_one_bot_play_as_their_own_bots(fresh_database_url: str) -> None:
    async def scenario(db: Database, ref: FakeReferee) -> None:
        accounts = Accounts(db.pool)
        await accounts.create_version(ref.ids["cand"], "v2", "", False)
        await accounts.create_version(ref.ids["cand"], "v3", "", False)  # newest: not in the test
        test_id = await store.start(db, spec(candidate="cand@v2", baseline="cand@v1"))
        report = await store.report(db, test_id)
        assert (report.test.candidate, report.test.baseline) == ("cand@v2", "cand@v1")
        assert await ref.tick() == []  # the versions' own bots are not connected yet
        ref.versions |= {"cand@v1", "cand@v2"}
        made = await ref.tick()
        assert len(made) == 2
        for match_id, bots, _ in ref.created:
            assert {"cand@v1", "cand@v2"} <= set(bots) and "cand" not in bots
            seats = await _seat_versions(db, match_id)
            assert (seats["cand@v2"], seats["cand@v1"]) == ("v2", "v1")
            assert seats["fill1"] == "v1"
            await ref.finish(match_id, "cand@v2")
        await ref.tick()
        report = await store.report(db, test_id)
        assert report.matches_counted == 2 and report.sets[0].score == 1.0
        again = await store.start(db, spec(candidate="cand@v1", baseline="base"))
        first, second = await store.report(db, test_id), await store.report(db, again)
        assert second.test.candidate == first.test.baseline == "cand@v1"
        async with db.transaction("count version bots") as conn:
            cursor = await conn.execute("SELECT count(*) FROM bots WHERE name LIKE 'cand@%%'")
            assert (await cursor.fetchone()) == (2,)  # one bot per version, made once

    run(fresh_database_url, scenario)


def test_a_hosted_version_in_a_running_test_is_run_as_its_own_bot(fresh_database_url: str) -> None:
    async def scenario(db: Database, ref: FakeReferee) -> None:
        sha = hashlib.sha256(b"archive").digest()
        async with db.transaction("hosted versions") as conn:
            await conn.execute(
                "INSERT INTO bot_archives (sha256, content) VALUES (%(sha)s, 'x')", {"sha": sha}
            )
            await conn.execute(
                "INSERT INTO bot_versions (bot_id, label, archive_sha256, run_command)"
                " VALUES (%(bot)s, 'v2', %(sha)s, 'python3 bot.py')",
                {"bot": ref.ids["cand"], "sha": sha},
            )
            await conn.execute(  # the newest version is the author's own program
                "INSERT INTO bot_versions (bot_id, label) VALUES (%(bot)s, 'v3')",
                {"bot": ref.ids["cand"]},
            )
            await conn.execute("INSERT INTO ladders (game, table_size) VALUES ('hart', 2)")
        runners = Runners(db.pool)
        assert await runners.needed() == []
        test_id = await store.start(db, spec(candidate="cand@v2", baseline="cand"))
        version_bot = await db.bot_by_name("cand@v2")
        assert version_bot is not None
        assert await runners.needed() == [version_bot.id]
        launch = await runners.launch(version_bot.id)
        assert launch is not None and (launch.label, launch.archive_sha256) == ("v2", sha)
        assert await runners.launch(ref.ids["cand"]) is None  # cand itself plays v3, not hosted
        await store.stop(db, test_id)
        assert await runners.needed() == []  # a ladder runs hosted bots, not versions' own bots

    run(fresh_database_url, scenario)
