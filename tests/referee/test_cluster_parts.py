"""The parts of the referee tier: envelopes, placement, the hub's bots elsewhere, and the registry
and relay on a real Redis."""

from __future__ import annotations

import asyncio
import secrets
import time
from datetime import timedelta
from typing import Any

import pytest
import redis.asyncio as aioredis
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.referee.bot_routes import BotRoutes, opened_ms
from arena.referee.placement import place
from arena.referee.registry import RefereeInfo, Registry
from arena.referee.relay import Envelope, Kind, Relay
from arena.referee.sessions import Hub, Pending
from arena.v1 import bot_pb2


@given(
    kind=st.sampled_from(list(Kind)),
    sender=st.text(max_size=40),
    bot_id=st.integers(-(2**63), 2**63 - 1),
    match_id=st.integers(-(2**63), 2**63 - 1),
    number=st.integers(-(2**63), 2**63 - 1),
    payload=st.binary(max_size=200),
)
def test_an_envelope_survives_its_encoding(
    kind: Kind, sender: str, bot_id: int, match_id: int, number: int, payload: bytes
) -> None:
    envelope = Envelope(kind, sender, bot_id, match_id, number, payload)
    assert Envelope.decode(envelope.encode()) == envelope


@settings(max_examples=300)
@given(st.binary(max_size=300))
def test_junk_on_the_relay_is_refused_with_value_error_or_read(data: bytes) -> None:
    try:
        envelope = Envelope.decode(data)
    except ValueError:
        return
    assert isinstance(envelope.kind, Kind)


def _info(name: str, hosted: int, draining: bool = False) -> RefereeInfo:
    return RefereeInfo(name, f"{name}:1", hosted, 0, draining, 0.0, 0.0)


def test_placement_prefers_the_least_loaded_referee_holding_the_bots() -> None:
    live = [_info("a", 5), _info("b", 2), _info("c", 0)]
    assert place({"a", "b"}, live, "a") == "b"  # c is idle but holds none of the bots
    assert place(set(), live, "a") == "c"  # no bot connected: the least loaded
    assert place({"x"}, live, "a") == "c"  # bots on a referee not live: the least loaded
    assert place({"a", "b"}, [_info("a", 2), _info("b", 2)], "b") == "b"  # a tie stays here
    assert place({"b"}, [_info("a", 0), _info("b", 0, draining=True)], "a") == "a"
    assert place({"a"}, [], "me") == "me"  # nobody known: here


def test_the_hub_sends_to_a_bot_elsewhere_and_starts_its_grace_when_it_goes() -> None:
    sent: list[tuple[str, int, str]] = []
    hub = Hub(timedelta(seconds=10))
    hub.remote_send = lambda referee, bot, message: sent.append(
        (referee, bot, message.WhichOneof("kind") or "")
    )
    assert not hub.is_connected(7) and not hub.send(7, bot_pb2.ArenaMessage())
    hub.connected_elsewhere(7, "ref-2", bot_pb2.PAYLOAD_FORM_TYPED)
    assert hub.is_connected(7) and hub.where(7) == "ref-2"
    assert hub.form_of(7) == bot_pb2.PAYLOAD_FORM_TYPED
    assert hub.send(7, bot_pb2.ArenaMessage(heartbeat=bot_pb2.Heartbeat()))
    assert sent == [("ref-2", 7, "heartbeat")]
    assert hub.reconnect_deadline(7) is None
    hub.gone_elsewhere(7, "ref-1")  # not where it is: ignored
    assert hub.where(7) == "ref-2"
    before = time.monotonic()
    hub.gone_elsewhere(7, "ref-2")
    deadline = hub.reconnect_deadline(7)
    assert deadline is not None and deadline >= before + 10
    assert not hub.is_connected(7)


def test_a_bot_connected_here_is_not_sent_elsewhere() -> None:
    async def scenario() -> None:
        hub = Hub(timedelta(seconds=10))
        hub.remote_send = lambda *_: pytest.fail("sent elsewhere")
        session = hub.connect(3, "three")
        hub.connected_elsewhere(3, "ref-9", 0)  # a stale announcement: the stream here wins
        assert hub.where(3) is None
        assert hub.send(3, bot_pb2.ArenaMessage(heartbeat=bot_pb2.Heartbeat()))
        assert session.outbox.qsize() == 1

    asyncio.run(scenario())


def test_a_bot_coming_back_elsewhere_wakes_its_waiting_request() -> None:
    async def scenario() -> None:
        hub = Hub(timedelta(seconds=10))
        request = bot_pb2.DecisionRequest(match_id=1, decision=0)
        pending = Pending(1, 0, 0, 5, request, time.monotonic() + 60)
        hub.owe(pending)
        rereads: list[None] = []
        pending.rearm = lambda: rereads.append(None)
        hub.connected_elsewhere(5, "ref-1", 0)
        assert rereads, "the wait re-reads its deadline"

    asyncio.run(scenario())


@pytest.fixture
def redis_for_test(redis_server_url: str) -> str:
    return redis_server_url


def test_the_registry_lists_live_referees_and_locates_bots(redis_for_test: str) -> None:
    async def scenario() -> None:
        redis = aioredis.Redis.from_url(redis_for_test)
        namespace = "test-" + secrets.token_hex(6)
        ttl = timedelta(milliseconds=600)
        a = Registry(redis, namespace, "a", "host-a:1", ttl)
        b = Registry(redis, namespace, "b", "host-b:1", ttl)
        other = Registry(redis, namespace + "-other", "a", "elsewhere:1", ttl)
        try:
            assert await a.claim_name()
            assert await a.beat(3, {1: (0, "one"), 2: (2, "two")}, False) is True  # new
            assert not await a.claim_name(), "a live referee holds the name"
            assert await b.beat(0, {}, True) is True  # new too
            assert await b.beat(0, {}, True) is False  # alive since
            await other.beat(9, {1: (0, "one")}, False)  # another arena: never seen here
            live = {r.name: r for r in await a.live()}
            assert set(live) == {"a", "b"}
            assert (live["a"].address, live["a"].hosted, live["a"].bots) == ("host-a:1", 3, 2)
            assert live["b"].draining and not live["a"].draining
            found = await b.locate([1, 2, 3])
            assert {k: (p.referee, p.form, p.bot_name) for k, p in found.items()} == {
                1: ("a", 0, "one"),
                2: ("a", 2, "two"),
            }
            assert await b.bot_here(1, 1, "one") == "a", "b learns the bot left a"
            await a.bot_left(1)  # no longer a's: b's key stays
            assert (await a.locate([1]))[1].referee == "b"
            assert set(await a.everyone()) == {1, 2}
            await b.count_placed("a")
            assert {r.name: r.hosted for r in await b.live()}["a"] == 4
            await asyncio.sleep(0.8)  # a and b stop beating: both expire
            assert await a.live() == []
            assert await a.locate([1, 2]) == {}
            assert await a.beat(0, {}, False) is True, "a learns it had been taken for dead"
        finally:
            await redis.aclose()

    asyncio.run(scenario())


def test_the_relay_delivers_in_order_and_survives_junk(redis_for_test: str) -> None:
    async def scenario() -> None:
        namespace = "test-" + secrets.token_hex(6)
        got: list[Envelope] = []
        done = asyncio.Event()

        def receive(envelope: Envelope) -> None:
            got.append(envelope)
            if len(got) == 50:
                done.set()

        redis_a = aioredis.Redis.from_url(redis_for_test)
        redis_b = aioredis.Redis.from_url(redis_for_test)
        a = Relay(redis_a, namespace, "a", lambda _: None)
        b = Relay(redis_b, namespace, "b", receive)
        await a.start()
        await b.start()
        try:
            await redis_a.publish(f"arena:{namespace}:relay:b", b"junk")  # ignored, logged
            for i in range(50):
                a.send("b", Envelope(Kind.TO_BOT, "a", bot_id=i, payload=bytes([i % 256])))
            await asyncio.wait_for(done.wait(), 10)
            assert [e.bot_id for e in got] == list(range(50))
            assert {e.sender for e in got} == {"a"}
        finally:
            await a.stop()
            await b.stop()
            await redis_a.aclose()
            await redis_b.aclose()

    asyncio.run(scenario())


def test_news_nobody_listens_to_is_not_held_but_an_envelope_for_a_referee_is(
    redis_for_test: str,
) -> None:
    """A match's step news with no page listening is dropped at once; before, it was held for
    30 s and published again with every later envelope, a cost that grew with every step."""

    async def scenario() -> None:
        namespace = "test-" + secrets.token_hex(6)
        redis = aioredis.Redis.from_url(redis_for_test)
        relay = Relay(redis, namespace, "a", lambda _: None)
        await relay.start()
        try:
            for step in range(20):
                relay.publish(f"arena:{namespace}:steps:1", str(step).encode())
            relay.send("nobody", Envelope(Kind.HOST, "a", match_id=1))
            for _ in range(100):
                if relay._outgoing.empty() and relay._held:
                    break
                await asyncio.sleep(0.01)
            held = [target for target, _, _ in relay._held]
            assert held == [f"arena:{namespace}:relay:nobody"], held
        finally:
            relay._held.clear()
            await relay.stop()
            await redis.aclose()

    asyncio.run(scenario())


class _FakeRelay:
    name = "bots-here"

    def __init__(self) -> None:
        self.sent: list[tuple[str, Envelope]] = []

    def send(self, to: str, envelope: Envelope) -> None:
        self.sent.append((to, envelope))


class _FakeDb:
    def __init__(self, hosts: dict[int, tuple[str | None, int]]) -> None:
        self.hosts = hosts

    async def match_host(self, match_id: int) -> tuple[str | None, int] | None:
        return self.hosts.get(match_id)


class _FakeReferee:
    def __init__(self, hub: Hub, db: _FakeDb) -> None:
        self.hub = hub
        self.db = db
        self.runners: dict[int, object] = {}
        self.draining = False


def _routes(hosts: dict[int, tuple[str | None, int]]) -> tuple[Any, _FakeRelay, Hub]:
    hub = Hub(timedelta(seconds=10))
    relay = _FakeRelay()
    routes = BotRoutes(_FakeReferee(hub, _FakeDb(hosts)), relay, None)  # type: ignore[arg-type]
    return routes, relay, hub


def _to_bot(sender: str, match_id: int, epoch: int, decision: int) -> Envelope:
    message = bot_pb2.ArenaMessage(
        decision=bot_pb2.DecisionRequest(match_id=match_id, decision=decision)
    )
    return Envelope(Kind.TO_BOT, sender, 5, match_id, epoch, message.SerializeToString())


def test_a_bot_never_sees_a_request_from_a_host_that_lost_its_match() -> None:
    async def scenario() -> None:
        routes, relay, hub = _routes({})
        session = hub.connect(5, "five")
        await routes.receive(_to_bot("ref-new", 9, 2, 7))  # the new host, epoch 2
        await routes.receive(_to_bot("ref-old", 9, 1, 6))  # the stale host wakes up: dropped
        shown = [session.outbox.get_nowait() for _ in range(session.outbox.qsize())]
        assert [m.decision.decision for m in shown] == [7]
        assert routes.hosts[9] == ("ref-new", 2), "answers follow the newest host"
        relay.sent.clear()
        answer = bot_pb2.BotMessage(action=bot_pb2.Action(match_id=9, decision=7, index=0))
        assert await routes.forward(5, answer, answer.SerializeToString()) is None
        assert [(to, e.kind) for to, e in relay.sent] == [("ref-new", Kind.FROM_BOT)]

    asyncio.run(scenario())


def test_an_answer_refused_by_an_old_host_goes_to_the_new_one_once() -> None:
    async def scenario() -> None:
        routes, relay, hub = _routes({9: ("ref-new", 3)})
        session = hub.connect(5, "five")
        routes.hosts[9] = ("ref-old", 2)  # what this referee last knew
        answer = bot_pb2.BotMessage(action=bot_pb2.Action(match_id=9, decision=4, index=1))
        raw = answer.SerializeToString()
        await routes.forward(5, answer, raw)
        assert relay.sent[-1][0] == "ref-old"
        await routes.receive(Envelope(Kind.NOT_HOSTED, "ref-old", 5, 9, 0, raw))
        assert relay.sent[-1][0] == "ref-new" and relay.sent[-1][1].payload == raw
        # The new one refuses too (it has not started the match yet): a Problem, no loop.
        await routes.receive(Envelope(Kind.NOT_HOSTED, "ref-new", 5, 9, 0, raw))
        assert relay.sent[-1][0] == "ref-new", "nothing sent again"
        problem = session.outbox.get_nowait()
        assert problem.WhichOneof("kind") == "problem" and problem.problem.match_id == 9

    asyncio.run(scenario())


def test_a_replaced_older_than_the_stream_here_leaves_it_open() -> None:
    """A REPLACED the relay held while this referee was dead reaches it after a restart: a bot
    that came back here since keeps its stream (closing it ended the bot for good)."""

    async def scenario() -> None:
        routes, _, hub = _routes({})
        session = hub.connect(5, "five")
        opened = opened_ms(session)
        await routes.receive(Envelope(Kind.REPLACED, "ref-0", 5, number=opened - 3000))
        assert hub.session(5) is session and not session.replaced
        await routes.receive(Envelope(Kind.REPLACED, "ref-0", 5, number=opened + 1))
        assert hub.session(5) is None and session.replaced, "a newer stream elsewhere wins"

    asyncio.run(scenario())


def test_a_referee_refused_its_name_closes_its_redis_connections(redis_for_test: str) -> None:
    """A referee that cannot join never calls `Cluster.stop`: `start` must close what it opened
    (CI once failed an unrelated later test on such a socket, left for the garbage collector)."""
    from arena.referee.cluster import Cluster, ClusterTimings, NameTaken

    async def scenario() -> None:
        namespace = "test-" + secrets.token_hex(6)
        holder_redis = aioredis.Redis.from_url(redis_for_test)
        refused_redis = aioredis.Redis.from_url(redis_for_test)
        timings = ClusterTimings(beat=timedelta(milliseconds=50), ttl=timedelta(seconds=2))
        holder = Registry(holder_redis, namespace, "a", "host-a:1", timings.ttl)
        refused = Cluster(object(), refused_redis, namespace, "a", "host-b:1", timings)  # type: ignore[arg-type]
        try:
            assert await holder.claim_name()

            async def stay_alive() -> None:
                while True:
                    await holder.beat(0, {}, False)
                    await asyncio.sleep(0.05)

            beating = asyncio.create_task(stay_alive())
            with pytest.raises(NameTaken):
                await refused.start()
            beating.cancel()
            pool = refused_redis.connection_pool
            opened = [*pool._available_connections, *pool._in_use_connections]
            assert opened, "the refused referee asked Redis for its name"
            assert not any(connection.is_connected for connection in opened)
        finally:
            await holder_redis.aclose()

    asyncio.run(scenario())


def test_a_match_placed_on_a_referee_just_dead_does_not_keep_its_name_forever(
    redis_for_test: str,
) -> None:
    """Seen in a 30-minute chaos soak: a referee placed a match on one whose entry had just
    expired; the load count made a hash with no expiry, the dead referee stayed listed as live
    and its restarts were refused ("a live referee is already named 'ref-2'") for good."""

    async def scenario() -> None:
        redis = aioredis.Redis.from_url(redis_for_test)
        namespace = "test-" + secrets.token_hex(6)
        ttl = timedelta(milliseconds=300)
        dead = Registry(redis, namespace, "dead", "host-dead:1", ttl)
        placer = Registry(redis, namespace, "placer", "host-placer:1", ttl)
        key = f"arena:{namespace}:referee:dead"
        try:
            await dead.beat(0, {}, False)
            await asyncio.sleep(0.5)  # it stops beating: its entry expires
            await placer.beat(0, {}, False)
            await placer.count_placed("dead")  # from a list of the live read just before
            assert await redis.ttl(key) != -1, "a hash with no expiry"
            assert "dead" not in {r.name for r in await placer.live()}
            assert await dead.claim_name(), "the dead referee's name is free again"

            # A headless hash an older arena left behind frees the name as well.
            await redis.hset(key, "hosted", 1)
            await redis.sadd(f"arena:{namespace}:referees", "dead")
            assert "dead" not in {r.name for r in await placer.live()}
            assert not await redis.exists(key)
            await redis.hset(key, "hosted", 1)
            assert await dead.claim_name()
            assert await dead.beat(0, {}, False) is True
            assert 0 < await redis.pttl(key) <= 300
            await placer.count_placed("dead")  # a live referee's count still goes up
            assert await redis.hget(key, "hosted") == b"1"
        finally:
            await redis.aclose()

    asyncio.run(scenario())
