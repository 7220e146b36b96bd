"""The web server's settings (`WebConfig`), one frozen dataclass with a docstring per field."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from arena.referee.limits import Rate
from arena.web.signin import FAILED_SIGNINS


@dataclass(frozen=True, slots=True)
class WebConfig:
    """Settings of the web server."""

    database_url: str = ""
    """Where Postgres is (ignored when a `Database` is given to `create_app`)."""
    spectator_delay: timedelta = timedelta(seconds=3)
    """A running match is shown this long after each decision, never sooner."""
    poll_interval: timedelta = timedelta(seconds=1)
    """How often live pages ask the API for news."""
    redis_url: str = ""
    """The arena's Redis, where referees publish step news; without it live feeds poll."""
    live_poll: timedelta = timedelta(seconds=1)
    """How often a live feed looks for steps without news (5 s once Redis news flows)."""
    max_live: int = 5000
    """Live spectators one web process serves at most (then 503 with Retry-After)."""
    fresh_for: timedelta = timedelta(seconds=1)
    """A page or API answer is shared by every client asking within this long (0: not shared;
    a finished match's answers are kept regardless: they never change)."""
    pool_size: int = 10
    """Postgres connections per web process (each answer needs one for a few milliseconds)."""
    pool_wait: timedelta = timedelta(seconds=2)
    """How long a request waits for a free connection before it gets a 503 and Retry-After."""
    cache_bytes: int = 128 * 1024 * 1024
    """The most the rendered answers of one web process may hold (least recently used go)."""
    failed_signins: Rate = FAILED_SIGNINS
    """Failed sign-ins per client address and per account name."""
