"""Who is alive in the arena, and where each bot is connected: short-lived keys in Redis.

Each referee keeps a hash `arena:<namespace>:referee:<name>` (its address, load and state)
alive with a heartbeat, and one key `arena:<namespace>:bot:<id>` per bot connected to it,
holding "<name> <form> <bot name>" (the referee, the payload form the bot asked for, followed by
"f" when the bot follows its matches to their hosts, and the bot's name, which has no spaces).
Both expire after
`ttl` without a heartbeat, so a referee that dies (or is paused) disappears from both within
`ttl`; no cluster manager decides it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import redis.asyncio as aioredis

# Every key is under `arena:<namespace>:` (`arena.storage.identity`): arenas sharing a Redis
# never see each other.
REFEREE_PREFIX = "referee:"
REFEREES = "referees"
"""A set of every referee name seen; a name whose hash expired is dead and is pruned."""
BOT_PREFIX = "bot:"

# Delete a bot's presence key only if it still names this referee (a newer stream elsewhere
# must keep its own).
_DROP_IF_MINE = """
local value = redis.call('GET', KEYS[1])
if value and string.find(value, ARGV[1] .. ' ', 1, true) == 1 then
  return redis.call('DEL', KEYS[1])
end
return 0
"""
_COUNT_IF_LIVE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('HINCRBY', KEYS[1], 'hosted', 1)
end
return 0
"""
# A referee's hash without its address was not written by its heartbeat (which writes every field
# and the expiry in one transaction): it has no expiry, and would hold the name forever.
_DROP_IF_HEADLESS = """
if redis.call('HEXISTS', KEYS[1], 'address') == 0 then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


@dataclass(frozen=True, slots=True)
class RefereeInfo:
    """A live referee as it last described itself."""

    name: str
    address: str
    hosted: int
    bots: int
    draining: bool
    started_at: float
    seen_at: float


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


@dataclass(frozen=True, slots=True)
class Presence:
    """Where a bot is connected."""

    referee: str
    form: int
    bot_name: str
    follows: bool = False
    """The bot moves its stream to the referee hosting its match when told (Hello.follow_host)."""


def _presence(value: Any) -> Presence:
    referee, _, rest = _text(value).partition(" ")
    form, _, bot_name = rest.partition(" ")
    follows = form.endswith(FOLLOWS)
    form = form.removesuffix(FOLLOWS)
    return Presence(referee, int(form) if form.isdigit() else 0, bot_name, follows)


FOLLOWS = "f"
"""Appended to the form in a presence value for a bot that follows its matches (a referee
older than it reads the form as unset: both forms, which every bot accepts)."""


def presence_value(referee: str, form: int, bot_name: str, follows: bool = False) -> str:
    """The value of a bot's presence key."""
    return f"{referee} {form}{FOLLOWS if follows else ''} {bot_name}"


class Registry:
    """This referee's entries in Redis, and what it reads of the others'."""

    def __init__(
        self, redis: aioredis.Redis, namespace: str, name: str, address: str, ttl: timedelta
    ) -> None:
        self.redis = redis
        self.prefix = f"arena:{namespace}:"
        self.name = name
        self.address = address
        self.ttl_ms = int(ttl.total_seconds() * 1000)
        self.started_at = time.time()
        self._drop = redis.register_script(_DROP_IF_MINE)
        self._count = redis.register_script(_COUNT_IF_LIVE)
        self._drop_headless = redis.register_script(_DROP_IF_HEADLESS)

    async def claim_name(self) -> bool:
        """Whether no live referee uses this name (two referees of one name would fence each
        other's matches and steal each other's bots)."""
        key = self.prefix + REFEREE_PREFIX + self.name
        if await self.redis.hexists(key, "address"):
            return False
        await self._drop_headless(keys=[key])
        return True

    async def beat(
        self,
        hosted: int,
        bots: Mapping[int, tuple[int, str]],
        draining: bool,
        following: Set[int] = frozenset(),
    ) -> bool:
        """Refresh this referee's hash and its bots' presence (`bots`: id -> (form, name);
        `following`: the ids of those that follow their matches); whether the hash had expired
        (the others took this referee for dead and may have moved its bots' matches)."""
        key = self.prefix + REFEREE_PREFIX + self.name
        # One transaction: a Redis that stops between the fields and their expiry would
        # otherwise keep a hash that never expires, and the name would stay taken for good.
        pipe = self.redis.pipeline(transaction=True)
        pipe.exists(key)
        pipe.hset(
            key,
            mapping={
                "address": self.address,
                "hosted": hosted,
                "bots": len(bots),
                "draining": int(draining),
                "started_at": self.started_at,
                "seen_at": time.time(),
            },
        )
        pipe.pexpire(key, self.ttl_ms)
        pipe.sadd(self.prefix + REFEREES, self.name)
        for bot_id, (form, bot_name) in bots.items():
            value = presence_value(self.name, form, bot_name, bot_id in following)
            pipe.set(self.prefix + BOT_PREFIX + str(bot_id), value, px=self.ttl_ms)
        existed = (await pipe.execute())[0]
        return not existed

    async def leave(self) -> None:
        """Remove this referee's hash (a clean stop: the others need not wait for the TTL)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.delete(self.prefix + REFEREE_PREFIX + self.name)
        pipe.srem(self.prefix + REFEREES, self.name)
        await pipe.execute()

    async def live(self) -> list[RefereeInfo]:
        """Every live referee, by name (this one included once it has beaten)."""
        names = sorted(_text(n) for n in await self.redis.smembers(self.prefix + REFEREES))
        pipe = self.redis.pipeline(transaction=False)
        for name in names:
            pipe.hgetall(self.prefix + REFEREE_PREFIX + name)
        found = await pipe.execute()
        out, dead = [], []
        for name, fields in zip(names, found, strict=True):
            f = {_text(k): _text(v) for k, v in fields.items()}
            if "address" not in f:  # expired, or a headless hash (see _DROP_IF_HEADLESS)
                dead.append(name)
                if f:
                    await self._drop_headless(keys=[self.prefix + REFEREE_PREFIX + name])
                continue
            out.append(
                RefereeInfo(
                    name=name,
                    address=f.get("address", ""),
                    hosted=int(f.get("hosted", 0)),
                    bots=int(f.get("bots", 0)),
                    draining=f.get("draining") == "1",
                    started_at=float(f.get("started_at", 0)),
                    seen_at=float(f.get("seen_at", 0)),
                )
            )
        if dead:
            await self.redis.srem(self.prefix + REFEREES, *dead)
        return out

    async def count_placed(self, name: str) -> None:
        """Count a match just placed on `name` in its load until its next heartbeat, so that
        matches created in one burst spread out. A referee whose hash has expired is left
        alone: an increment would make a hash with no expiry, a dead referee listed as live
        and its name taken for good (seen in a 30-minute chaos soak: the killed referee could
        never start again)."""
        await self._count(keys=[self.prefix + REFEREE_PREFIX + name])

    # -- bots ------------------------------------------------------------------------------------
    async def bot_here(
        self, bot_id: int, form: int, bot_name: str, follows: bool = False
    ) -> str | None:
        """Record that the bot is connected here; the referee it was connected to before, if
        that was another one and its key had not expired."""
        key = self.prefix + BOT_PREFIX + str(bot_id)
        value = presence_value(self.name, form, bot_name, follows)
        previous = await self.redis.set(key, value, px=self.ttl_ms, get=True)
        if previous is None:
            return None
        name = _presence(previous).referee
        return None if name == self.name else name

    async def bot_left(self, bot_id: int) -> None:
        """Remove the bot's presence key if it still names this referee."""
        await self._drop(keys=[self.prefix + BOT_PREFIX + str(bot_id)], args=[self.name])

    async def locate(self, bot_ids: Sequence[int]) -> dict[int, Presence]:
        """Bot id -> where it is connected, for those connected anywhere."""
        if not bot_ids:
            return {}
        found = await self.redis.mget([self.prefix + BOT_PREFIX + str(b) for b in bot_ids])
        return {b: _presence(v) for b, v in zip(bot_ids, found, strict=True) if v is not None}

    async def everyone(self) -> dict[int, Presence]:
        """Every bot connected to any live referee (a scan: for listings, not for play)."""
        pattern = self.prefix + BOT_PREFIX + "*"
        keys = [key async for key in self.redis.scan_iter(match=pattern, count=500)]
        if not keys:
            return {}
        found = await self.redis.mget(keys)
        start = len(self.prefix + BOT_PREFIX)
        return {
            int(_text(key)[start:]): _presence(value)
            for key, value in zip(keys, found, strict=True)
            if value is not None
        }
