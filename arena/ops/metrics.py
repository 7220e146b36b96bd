"""Prometheus metrics of every Arena process, named and labelled as Prometheus recommends.

Referees serve them over HTTP (`--metrics-port`). Celery's prefork workers use Prometheus
multiprocess mode: `PROMETHEUS_MULTIPROC_DIR` is set before the worker forks, every child writes
its samples there, and the worker's main process serves the merged view (see `workers/metrics.py`).
"""

from __future__ import annotations

from collections.abc import Iterable

from prometheus_client import Counter, Gauge, Histogram

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
MATCH_BUCKETS = (1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600)

# -- referee ----------------------------------------------------------------------------------
CONNECTED_BOTS = Gauge(
    "arena_connected_bots", "Bots with an open stream to this referee", multiprocess_mode="livesum"
)
ACTIVE_MATCHES = Gauge(
    "arena_active_matches",
    "Matches being played on this referee",
    ["game"],
    multiprocess_mode="livesum",
)
DECISIONS = Counter("arena_decisions_total", "Decisions applied", ["game"])
DECISION_ROUND_TRIP = Histogram(
    "arena_decision_round_trip_seconds",
    "From sending a decision request to receiving the bot's answer",
    ["game"],
    buckets=LATENCY_BUCKETS,
)
TIMEOUTS = Counter(
    "arena_decision_timeouts_total", "Decisions a bot did not answer in time", ["game"]
)
BAD_ANSWERS = Counter(
    "arena_bad_answers_total",
    "Answers that did not parse, were stale or were illegal",
    ["game", "kind"],
)
STALE_ANSWERS = Counter(
    "arena_stale_answers_total",
    "Answers dropped without a strike because they named no open decision of their seat, by why "
    "(closed, none_open, not_open, answered)",
    ["why"],
)
STRIKES = Counter("arena_strikes_total", "Strikes given to bots", ["game"])
FORFEITS = Counter("arena_forfeits_total", "Seats that forfeited after too many strikes", ["game"])
MATCHES_FINISHED = Counter(
    "arena_matches_finished_total", "Matches that ended", ["game", "termination"]
)
MATCH_DURATION = Histogram(
    "arena_match_duration_seconds", "Wall time of a match", ["game"], buckets=MATCH_BUCKETS
)
DB_ERRORS = Counter("arena_db_errors_total", "Failed database operations", ["operation"])
REFEREE_DB_OPERATIONS = (
    "start_match",
    "mark_absent_at_start",
    "record_decision",
    "resign_seats",
    "finish_match",
    "abort_match",
)
"""The `operation` labels of a referee's DB_ERRORS (arena/referee/persistence.py)."""
RPC_ERRORS = Counter("arena_rpc_errors_total", "Public API calls that failed", ["method", "code"])

# -- tournaments and workers ------------------------------------------------------------------
TASKS = Counter(
    "arena_tasks_total", "Celery tasks that ended, by name and outcome", ["task", "outcome"]
)
PAIRING_SECONDS = Histogram(
    "arena_pairing_seconds", "Time to pair one round", buckets=LATENCY_BUCKETS
)
RATING_UPDATE_SECONDS = Histogram(
    "arena_rating_update_seconds",
    "Time to rate one round or one ad-hoc match",
    buckets=LATENCY_BUCKETS,
)
ROUND_DURATION = Histogram(
    "arena_round_duration_seconds",
    "Wall time of a tournament round",
    ["game"],
    buckets=MATCH_BUCKETS,
)
TOURNAMENTS = Gauge(
    "arena_tournaments",
    "Tournaments by status (read from Postgres)",
    ["status"],
    multiprocess_mode="max",
)
ROUNDS_IN_PROGRESS = Gauge(
    "arena_rounds_in_progress",
    "Tournament rounds being played (read from Postgres)",
    multiprocess_mode="max",
)
OLDEST_ROUND_AGE = Gauge(
    "arena_oldest_round_age_seconds",
    "Age of the oldest round still being played (0 if none; read from Postgres)",
    multiprocess_mode="max",
)
ROUND_EXPECTED = Gauge(
    "arena_round_expected_seconds",
    "How long a round of the longest-running tournament should take at most",
    multiprocess_mode="max",
)
QUEUE_LENGTH = Gauge(
    "arena_celery_queue_length",
    "Messages waiting in a Celery queue (read from Redis)",
    ["queue"],
    multiprocess_mode="max",
)
TOP_RATING = Gauge(
    "arena_bot_rating",
    "Elo rating of the top bots per game (read from Postgres)",
    ["game", "bot"],
    multiprocess_mode="max",
)

# -- untrusted input and aborted matches (issue 10) -------------------------------------------
ANSWER_PARSER_ERRORS = Counter(
    "arena_answer_parser_errors_total",
    "Bot answers whose reading raised an unexpected exception (a parser bug; the bot got a strike)",
    ["game", "exception"],
)
MATCHES_ABORTED = Counter(
    "arena_matches_aborted_total",
    "Matches the referee aborted because of its own failure (the reason is logged and stored)",
    ["game"],
)
# -- limits and outages (referee) -------------------------------------------------------------
FAILED_LOGINS = Counter(
    "arena_failed_logins_total",
    "Bot streams refused before login, by reason",
    ["reason"],
)
JUNK_MESSAGES = Counter(
    "arena_junk_messages_total",
    "Bot stream messages that were undecodable, oversized or made no sense, by kind",
    ["kind"],
)
RATE_LIMITED = Counter(
    "arena_rate_limited_total",
    "Calls refused with RESOURCE_EXHAUSTED because their caller went over a rate limit",
    ["limit"],
)
SLOW_CONSUMER_DISCONNECTS = Counter(
    "arena_slow_consumer_disconnects_total",
    "Bot streams closed because the bot did not read what the referee sent",
)
DATABASE_UP = Gauge(
    "arena_database_up",
    "1 while this process's database probe reaches Postgres, 0 while it does not",
    multiprocess_mode="livemin",
)
SLOW_WATCHERS = Counter(
    "arena_slow_watchers_dropped_total",
    "WatchMatch calls ended with RESOURCE_EXHAUSTED because the spectator fell too far behind",
)


# -- several referees (leases, routing, takeover) ------------------------------------------------
# Each referee labels its own series with its name (`arena serve --name`), so sums across the
# referee job stay meaningful and a dashboard can show one line per referee.
REFEREE_HOSTED_MATCHES = Gauge(
    "arena_referee_hosted_matches",
    "Matches this referee hosts (holds the lease of)",
    ["referee"],
    multiprocess_mode="livesum",
)
ROUTED_MESSAGES = Counter(
    "arena_referee_routed_messages_total",
    "Messages routed through Redis to or from another referee",
    ["referee", "direction"],
)
TAKEOVERS = Counter(
    "arena_referee_takeovers_total",
    "Matches this referee took over after their host's lease lapsed or it drained",
    ["referee", "reason"],
)
LEASE_RENEWALS_FAILED = Counter(
    "arena_referee_lease_renewals_failed_total",
    "Lease renewals that failed or found a lease lost",
    ["referee"],
)
FENCED_WRITES = Counter(
    "arena_referee_fenced_writes_total",
    "Writes refused because another referee took the match over",
    ["referee"],
)
LIVE_REFEREES = Gauge(
    "arena_live_referees",
    "Referees this one sees alive in Redis",
    ["referee"],
    multiprocess_mode="liveall",
)
ROUTED_DIRECTIONS = ("in", "out", "resent", "lost")
"""`direction` of ROUTED_MESSAGES: "out" sent to another referee, "in" received from one,
"resent" sent again after Redis did not deliver it the first time, "lost" given up on after
`arena.referee.relay.HOLD`."""
TAKEOVER_REASONS = ("lapsed", "released")
"""`reason` of TAKEOVERS: the host's lease lapsed (it died or stalled), or it drained and
released the match (SIGTERM)."""


def start_referee_series(games: Iterable[str]) -> None:
    """Create a referee's labelled series at 0, so the first event shows as an increase (and
    dashboards have data before it)."""
    for game in games:
        MATCHES_ABORTED.labels(game)
    # ArenaDatabaseErrors reads rate(): a series born at its first error shows no increase, and
    # a referee's first database outage would raise no alert (the chaos soak's `alerts` check).
    for operation in REFEREE_DB_OPERATIONS:
        DB_ERRORS.labels(operation)
    for reason in ("no_hello", "oversized", "not_hello", "no_token", "unknown_token"):
        FAILED_LOGINS.labels(reason)
    for kind in ("undecodable", "malformed", "oversized"):
        JUNK_MESSAGES.labels(kind)
    for limit in ("login", "admin", "register", "messages"):
        RATE_LIMITED.labels(limit)


def start_cluster_series(referee: str) -> None:
    """Create referee `referee`'s series of the multi-referee metrics at 0, so its first takeover
    or failed renewal shows as an increase (an alert on `increase()` needs the zero before).
    LIVE_REFEREES starts at 1, the referee itself, until its first heartbeat round counts the
    others: a 0 would read as "sees no referee" to ArenaLiveRefereesLow."""
    REFEREE_HOSTED_MATCHES.labels(referee).set(0)
    LIVE_REFEREES.labels(referee).set(1)
    for direction in ROUTED_DIRECTIONS:
        ROUTED_MESSAGES.labels(referee, direction)
    for reason in TAKEOVER_REASONS:
        TAKEOVERS.labels(referee, reason)
    LEASE_RENEWALS_FAILED.labels(referee)
    FENCED_WRITES.labels(referee)


# -- runners of hosted bots (`arena runner`, issue 28) -------------------------------------------
# Each runner labels its series with its name (`arena runner --name`), like referees do.
UPLOAD_BUCKETS = (0.25, 0.5, 1, 2, 3, 5, 10, 15, 30, 60, 120, 300, 600)
RUNNER_BOTS = Gauge(
    "arena_runner_bots",
    "Hosted bots this runner holds the lease of and keeps running",
    ["runner"],
    multiprocess_mode="livesum",
)
RUNNER_STARTS = Counter(
    "arena_runner_bot_starts_total",
    "Hosted bot processes a runner started in their sandbox (first starts and restarts)",
    ["runner"],
)
RUNNER_RESTARTS = Counter(
    "arena_runner_bot_restarts_total",
    "Hosted bots a runner started again after their process ended or could not start",
    ["runner"],
)
RUNNER_ENDS = Counter(
    "arena_runner_bot_ends_total",
    "Hosted bot processes that ended, by cause (exited, crashed, memory, processes, output, "
    "stopped; failed: could not be started)",
    ["runner", "cause"],
)
RUNNER_MEMORY = Gauge(
    "arena_runner_sandbox_memory_bytes",
    "Memory the hosted bots' sandboxes on this runner use, summed over their cgroups",
    ["runner"],
    multiprocess_mode="livesum",
)
RUNNER_UPLOAD_TO_CONNECTED = Histogram(
    "arena_runner_upload_to_connected_seconds",
    "From a hosted version's upload to its bot's first connection through a runner (versions "
    "uploaded less than UPLOAD_WINDOW before it)",
    ["runner"],
    buckets=UPLOAD_BUCKETS,
)
RUNNER_LEASE_TAKEOVERS = Counter(
    "arena_runner_lease_takeovers_total",
    "Hosted bots this runner claimed after another runner's lease of them lapsed",
    ["runner"],
)
END_CAUSES = ("exited", "crashed", "memory", "processes", "output", "stopped", "failed")
"""`cause` of RUNNER_ENDS: arena.hosting.limits.ExitCause's values, and "failed" for a start that
did not get as far as a process (a storage outage, a missing archive)."""


def start_runner_series(runner: str) -> None:
    """Create runner `runner`'s series at 0, so its first restart, kill or takeover shows as an
    increase (alerts on `increase()` need the zero before) and the dashboard has data before
    the first upload."""
    RUNNER_BOTS.labels(runner).set(0)
    RUNNER_MEMORY.labels(runner).set(0)
    RUNNER_STARTS.labels(runner)
    RUNNER_RESTARTS.labels(runner)
    RUNNER_LEASE_TAKEOVERS.labels(runner)
    RUNNER_UPLOAD_TO_CONNECTED.labels(runner)
    for cause in END_CAUSES:
        RUNNER_ENDS.labels(runner, cause)
