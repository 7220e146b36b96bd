-- Named queries of arena.storage. Each starts at a `-- name: query_name` line; the comment lines
-- right after it describe it. Parameters are `%(name)s` placeholders, never interpolated.

-- name: create_schema_migrations
-- The bookkeeping table of `migrate()`; created before anything else, under the migration lock.
CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
);

-- name: lock_migrations
-- Serialises migrations between processes until the end of the transaction.
SELECT pg_advisory_xact_lock(%(key)s);

-- name: migrations_table_exists
SELECT to_regclass('schema_migrations') IS NOT NULL;

-- name: applied_migrations
SELECT version FROM schema_migrations ORDER BY version;

-- name: record_migration
INSERT INTO schema_migrations (version) VALUES (%(version)s);

-- name: create_bot
-- A bot and its first version, 'v1', in one statement.
WITH bot AS (
    INSERT INTO bots (name, token_hash, owner_id)
    VALUES (%(name)s, %(token_hash)s, %(owner_id)s) RETURNING id
), first AS (
    INSERT INTO bot_versions (bot_id, label) SELECT id, 'v1' FROM bot
)
SELECT id FROM bot;

-- name: bot_by_token_hash
-- A retired bot's token no longer logs in (migration 0010).
SELECT id, name, created_at FROM bots WHERE token_hash = %(token_hash)s AND retired_at IS NULL;

-- name: bot_by_name
SELECT id, name, created_at FROM bots WHERE name = %(name)s;

-- name: list_bots
SELECT id, name, created_at FROM bots ORDER BY name;

-- name: create_match
-- Does nothing (returns no row) when the tournament table already has its match, unless the
-- table's only match aborted: then this is its one replay, attempt 2 (docs/tournaments.md).
-- An ad-hoc match (no table) finds no earlier attempt and is always attempt 1.
INSERT INTO matches (
    game, rules_version, options, seats, seed, clock, tournament_id, round_no, table_no, rated,
    attempt
)
SELECT %(game)s, %(rules_version)s, %(options)s, %(seats)s, %(seed)s, %(clock)s,
       %(tournament_id)s, %(round_no)s, %(table_no)s, %(rated)s, coalesce(last.attempt, 0) + 1
FROM (SELECT) AS one
LEFT JOIN LATERAL (
    SELECT m.attempt, m.status FROM matches m
    WHERE m.tournament_id = %(tournament_id)s AND m.round_no = %(round_no)s
      AND m.table_no = %(table_no)s
    ORDER BY m.attempt DESC LIMIT 1
) AS last ON true
WHERE last.attempt IS NULL OR (last.status = 'aborted' AND last.attempt < 2)
ON CONFLICT (tournament_id, round_no, table_no, attempt) DO NOTHING
RETURNING id;

-- name: match_at_table
-- The table's latest attempt.
SELECT id FROM matches
WHERE tournament_id = %(tournament_id)s AND round_no = %(round_no)s AND table_no = %(table_no)s
ORDER BY attempt DESC LIMIT 1;

-- name: create_seats
-- One seat per bot, in seat order, each with the version that plays: a version's own bot's
-- (migration 0014), else the bot's current (newest) one.
INSERT INTO seats (match_id, seat, bot_id, version_id)
SELECT %(match_id)s, t.ord - 1, t.bot_id,
       coalesce((SELECT b.plays_version_id FROM bots AS b WHERE b.id = t.bot_id),
                (SELECT max(v.id) FROM bot_versions AS v WHERE v.bot_id = t.bot_id))
FROM unnest(%(bot_ids)s::bigint[]) WITH ORDINALITY AS t (bot_id, ord);

-- name: seat_bot_ids
SELECT coalesce(array_agg(bot_id ORDER BY seat), '{}') AS bot_ids
FROM seats WHERE match_id = %(match_id)s;

-- name: start_match
-- A running match may be started again: that is a new host resuming it. Fenced: only by the
-- holder of the current lease epoch (0 for a match never claimed).
UPDATE matches
SET status = 'running', host = %(host)s, started_at = coalesce(started_at, now())
WHERE id = %(match_id)s AND status IN ('pending', 'running') AND lease_epoch = %(epoch)s
RETURNING id;

-- name: mark_absent_at_start
-- Fenced like `start_match`: only the match's current host says who it started without.
UPDATE seats SET absent_at_start = true
WHERE match_id = %(match_id)s AND seat = ANY(%(seats)s)
  AND EXISTS (SELECT 1 FROM matches
              WHERE id = %(match_id)s AND status = 'running' AND lease_epoch = %(epoch)s);

-- name: finish_match
-- Fenced like `start_match`; a finished match holds no lease.
UPDATE matches
SET status = 'finished', termination = %(termination)s, finished_at = now(),
    lease_expires = NULL
WHERE id = %(match_id)s AND status = 'running' AND lease_epoch = %(epoch)s
RETURNING seats;

-- name: record_results
-- Per-seat results, given as parallel arrays indexed by seat.
UPDATE seats AS s
SET rank = r.rank, score = r.score, strikes = r.strikes, forfeited = r.forfeited,
    time_used = r.time_used
FROM unnest(
    %(seats)s::integer[], %(ranks)s::integer[], %(scores)s::double precision[],
    %(strikes)s::integer[], %(forfeited)s::boolean[], %(time_used)s::interval[]
) AS r (seat, rank, score, strikes, forfeited, time_used)
WHERE s.match_id = %(match_id)s AND s.seat = r.seat;

-- name: abort_match
-- Fenced only when an epoch is given (a host's abort); an admin's abort passes NULL.
UPDATE matches
SET status = 'aborted', termination = %(reason)s, finished_at = now(), lease_expires = NULL
WHERE id = %(match_id)s AND status IN ('pending', 'running')
  AND (%(epoch)s::bigint IS NULL OR lease_epoch = %(epoch)s::bigint)
RETURNING id;

-- name: match_status
SELECT status, lease_epoch FROM matches WHERE id = %(match_id)s;

-- name: match
SELECT id, game, rules_version, options, seats, seed, clock, status, termination, host,
       created_at, started_at, finished_at, tournament_id, round_no, table_no, rated,
       lease_epoch
FROM matches WHERE id = %(match_id)s;

-- name: list_matches
-- Newest first; a NULL filter matches everything.
SELECT id, game, rules_version, options, seats, seed, clock, status, termination, host,
       created_at, started_at, finished_at, tournament_id, round_no, table_no, rated,
       lease_epoch
FROM matches AS m
WHERE (%(status)s::match_status IS NULL OR m.status = %(status)s::match_status)
  AND (%(game)s::text IS NULL OR m.game = %(game)s::text)
  AND (%(bot_id)s::bigint IS NULL
       OR EXISTS (SELECT 1 FROM seats AS s WHERE s.match_id = m.id AND s.bot_id = %(bot_id)s))
ORDER BY m.id DESC
LIMIT %(limit)s;

-- name: recent_matches
-- Finished matches, the last to finish first (the home page).
SELECT id, game, rules_version, options, seats, seed, clock, status, termination, host,
       created_at, started_at, finished_at, tournament_id, round_no, table_no, rated,
       lease_epoch
FROM matches WHERE status = 'finished'
ORDER BY finished_at DESC, id DESC
LIMIT %(limit)s;

-- name: seating
-- The seats of several matches, with their bots' names and the versions that played.
SELECT s.match_id, s.seat, s.bot_id, b.name AS bot_name, s.rank, s.score, s.strikes,
       s.forfeited, s.time_used, coalesce(v.label, '') AS version
FROM seats AS s JOIN bots AS b ON b.id = s.bot_id
LEFT JOIN bot_versions AS v ON v.id = s.version_id
WHERE s.match_id = ANY(%(match_ids)s::bigint[])
ORDER BY s.match_id, s.seat;

-- name: lock_lease_epochs
-- The fence of a decision batch, in its transaction: the lease epoch of each match it writes.
-- FOR SHARE makes a takeover (which updates the row) wait for the batch to commit, and the batch
-- wait for a takeover in flight; locking in id order keeps it from deadlocking with one.
SELECT id, lease_epoch FROM matches WHERE id = ANY(%(match_ids)s::bigint[])
ORDER BY id FOR SHARE;

-- name: write_decision_batch
-- The fast path of group commit: a whole batch, fenced, in one statement (one round trip, its
-- own transaction). `lease` share-locks the batch's matches in id order, as lock_lease_epochs
-- does; a row is written only if its epoch is its match's (a match not found passes, and the
-- foreign key refuses it). The epochs come back so that the caller can name the fenced rows.
WITH lease AS (
    SELECT id, lease_epoch FROM matches WHERE id = ANY(%(match_ids)s::bigint[])
    ORDER BY id FOR SHARE
), batch AS (
    SELECT * FROM jsonb_to_recordset(%(rows)s::jsonb) AS b(
        match_id bigint, number integer, label text, joint jsonb, elapsed jsonb, strikes jsonb,
        epoch bigint
    )
), written AS (
    INSERT INTO decisions (match_id, number, label, joint, elapsed, strikes, epoch)
    SELECT b.match_id, b.number, b.label, b.joint, b.elapsed, b.strikes, b.epoch
    FROM batch AS b LEFT JOIN lease AS l ON l.id = b.match_id
    WHERE l.lease_epoch IS NULL OR l.lease_epoch = b.epoch
    RETURNING 1
)
SELECT id, lease_epoch FROM lease;

-- name: insert_decision
INSERT INTO decisions (match_id, number, label, joint, elapsed, strikes, epoch)
VALUES (%(match_id)s, %(number)s, %(label)s, %(joint)s, %(elapsed)s, %(strikes)s, %(epoch)s);

-- name: decision
SELECT match_id, number, label, joint, elapsed, strikes, created_at, epoch
FROM decisions WHERE match_id = %(match_id)s AND number = %(number)s;

-- name: decisions
SELECT match_id, number, label, joint, elapsed, strikes, created_at, epoch
FROM decisions WHERE match_id = %(match_id)s ORDER BY number;

-- name: decisions_from
-- The decisions of a match from number `start` on (a live page reads only the new ones).
SELECT match_id, number, label, joint, elapsed, strikes, created_at, epoch
FROM decisions WHERE match_id = %(match_id)s AND number >= %(start)s ORDER BY number;

-- name: decision_counts
-- How many decisions each of several matches has logged (matches with none are left out).
SELECT match_id, count(*)::integer AS decisions
FROM decisions WHERE match_id = ANY(%(match_ids)s::bigint[])
GROUP BY match_id;

-- name: active_match_counts
-- How many unfinished matches each of several bots plays (bots with none are left out).
SELECT s.bot_id, count(*)::integer AS active
FROM seats AS s JOIN matches AS m ON m.id = s.match_id
WHERE s.bot_id = ANY(%(bot_ids)s::bigint[]) AND m.status IN ('pending', 'running')
GROUP BY s.bot_id;

-- name: match_rating_changes
-- The Elo change each bot got from each of several matches (rated matches only).
SELECT match_id, bot_id, delta
FROM rating_changes WHERE match_id = ANY(%(match_ids)s::bigint[]);

-- name: lock_adhoc_match
-- Serialises creating ad-hoc matches of one (game, seed) until the end of the transaction.
SELECT pg_advisory_xact_lock(hashtextextended(%(game)s || ':' || %(seed)s::text, 0));

-- name: active_adhoc_match
-- An unfinished ad-hoc match with exactly this game, seed, options and seating.
SELECT m.id FROM matches AS m
WHERE m.tournament_id IS NULL AND m.status IN ('pending', 'running')
  AND m.game = %(game)s AND m.seed = %(seed)s AND m.options = %(options)s
  AND (SELECT array_agg(s.bot_id ORDER BY s.seat) FROM seats AS s WHERE s.match_id = m.id)
      = %(bot_ids)s::bigint[]
ORDER BY m.id
LIMIT 1;

-- name: resign_seats
-- Seats that resigned from a running match (kept through a referee restart).
UPDATE seats AS s SET forfeited = true
FROM matches AS m
WHERE s.match_id = %(match_id)s AND s.seat = ANY(%(seats)s::int[])
  AND m.id = s.match_id AND m.status = 'running'
RETURNING s.seat;
