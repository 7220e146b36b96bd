"""A bot that comes back to a restarted referee keeps its stream there, however late the word
that it had left that referee's dead predecessor arrives.

When a referee dies, its bots reconnect to another one, which sends the dead referee's name a
REPLACED envelope (close the older stream of this bot). Nobody listens on that channel, so the
relay holds the envelope and sends it again until the referee restarts. If the bot is back on
the restarted referee by then, the envelope must not close its new stream: the SDK takes ABORTED
as another process having taken its token over and stops for good. The version-test restart
test stalled once with two bots that never came back after such a kill.

Three processes here: two referees (ref-1 is killed and restarted) and the test with the bot.
ref-0 is paused (SIGSTOP) while ref-1 restarts, so its relay can send the held envelope only
after the bot is back on ref-1, as a loaded machine once made it.
"""

from __future__ import annotations

import asyncio
import signal
import tempfile
from datetime import timedelta
from pathlib import Path

import pytest

from arena.sdk.client import Bot, BotReplaced
from arena.sdk.turns import Turn
from engines import Json
from tests.dbfixtures import isolated_redis
from tests.referee.fleet import Fleet, until_serving
from tests.referee.harness import register, until

pytestmark = pytest.mark.integration


class IdleBot(Bot):
    """A bot with no match to play: only its connection matters here."""

    def decide(self, turn: Turn) -> Json:
        return turn.legal[0] if turn.legal else None


def test_a_bot_back_on_a_restarted_referee_is_not_closed_by_a_late_replaced(
    fresh_database_url: str,
) -> None:
    with isolated_redis() as redis_url, tempfile.TemporaryDirectory() as tmp:
        fleet = Fleet(fresh_database_url, redis_url, 2, Path(tmp))

        async def scenario() -> None:
            await fleet.start_all()
            token = await register(fleet.addresses[0], "back")
            bot = IdleBot()
            order = [fleet.addresses[1], fleet.addresses[0]]
            run = asyncio.create_task(bot.run_async(",".join(order), token))
            try:
                await until(lambda: bot.following.referee == "ref-1")
                fleet.signal(1, signal.SIGKILL)  # ref-0 says REPLACED to nobody: held
                await asyncio.to_thread(fleet.processes[1].wait, 10)  # type: ignore[union-attr]
                await until(lambda: bot.following.referee == "ref-0")
                fleet.signal(0, signal.SIGSTOP)
                fleet.start(1)
                await until_serving(fleet.addresses[1])
                # The bot finds ref-0 silent and goes back to ref-1.
                await until(lambda: bot.following.referee == "ref-1", timedelta(seconds=25))
                fleet.signal(0, signal.SIGCONT)  # its relay sends the held REPLACED now
                await asyncio.sleep(3.0)
                if run.done():
                    with pytest.raises(BotReplaced):
                        run.result()
                    pytest.fail("a REPLACED older than the bot's stream ended the bot")
                assert bot.following.referee == "ref-1"
            finally:
                bot.stop()
                await asyncio.gather(run, return_exceptions=True)

        try:
            asyncio.run(scenario())
        finally:
            fleet.stop_all()
